#include "reports/html_printer.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "reports/format.h"

namespace trickbench {
namespace reports {
namespace doc {
namespace {

// The one style sheet. Tone classes work on spans and cells alike.
constexpr char kCss[] =
    R"(body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;color:#24292f;padding:0 16px}
table{border-collapse:collapse;margin:8px 0 16px}th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}code{background:#f6f8fa;padding:0 3px}
.good{color:#1a7f37;font-weight:600}.bad{color:#cf222e;font-weight:600}.uncertain{color:#9a6700;font-weight:600}.muted{color:#6e7781}
.flagged{background:#fff8c5}
.badge{background:#fff8c5;border:1px solid #d4a72c;border-radius:3px;padding:0 4px;font-size:12px;margin-left:4px}
.note{background:#fff8c5;border-left:4px solid #d4a72c;padding:8px 12px;margin:8px 0}.note p{margin:0}
.chart text{font-size:12px;fill:#24292f}.chart .axis{fill:#57606a;font-size:11px}
details{margin:4px 0 12px}details div{font-family:monospace;font-size:12px;color:#57606a}
section section{border-top:1px solid #d0d7de;padding-top:6px}
)";

std::string ToneClass(Tone t) {
  switch (t) {
    case Tone::kPlain:
      return "";
    case Tone::kGood:
      return "good";
    case Tone::kBad:
      return "bad";
    case Tone::kUncertain:
      return "uncertain";
    case Tone::kMuted:
      return "muted";
    case Tone::kFlagged:
      return "flagged";
  }
  return "";
}

// Chart marks carry the tone as a colour (SVG fill and stroke do not take the classes).
std::string ToneColour(Tone t) {
  switch (t) {
    case Tone::kPlain:
      return "#24292f";
    case Tone::kGood:
      return "#1a7f37";
    case Tone::kBad:
      return "#cf222e";
    case Tone::kUncertain:
      return "#9a6700";
    case Tone::kMuted:
      return "#8c959f";
    case Tone::kFlagged:
      return "#d4a72c";
  }
  return "#24292f";
}

std::string ClassAttribute(Tone t) {
  const std::string c = ToneClass(t);
  return c.empty() ? "" : " class=\"" + c + "\"";
}

std::string Inline(const Text& t) {
  std::string out;
  for (const Span& span : t.spans) {
    const std::string text = HtmlEscape(span.text);
    switch (span.kind) {
      case Span::Kind::kPlain:
        out += span.tone == Tone::kPlain
                   ? text
                   : "<span" + ClassAttribute(span.tone) + ">" + text + "</span>";
        break;
      case Span::Kind::kStrong:
        out += "<strong>" + text + "</strong>";
        break;
      case Span::Kind::kCode:
        out += "<code>" + text + "</code>";
        break;
      case Span::Kind::kLink:
        out += "<a href=\"#" + HtmlEscape(span.anchor) + "\">" + text + "</a>";
        break;
      case Span::Kind::kBadge:
        out += "<span class=\"badge\">" + text + "</span>";
        break;
    }
  }
  return out;
}

std::string Num(double v) { return FormatFixed(v, 1); }

// Both charts: a label column, a plot area, one row per entry, an axis line on top.
constexpr int kLabelWidth = 330, kPlotWidth = 460, kRowHeight = 22, kTop = 26;

std::string SvgOpen(const std::string& description, int width, int height) {
  std::ostringstream s;
  s << "<svg class=\"chart\" role=\"img\" aria-label=\"" << HtmlEscape(description) << "\" width=\""
    << width << "\" height=\"" << height << "\" viewBox=\"0 0 " << width << " " << height
    << "\">\n";
  return s.str();
}

std::string AxisLine(double x, int height, bool reference, const std::string& label) {
  std::ostringstream s;
  s << "<line x1=\"" << Num(x) << "\" x2=\"" << Num(x) << "\" y1=\"" << kTop - 6 << "\" y2=\""
    << height - 6 << "\" stroke=\"" << (reference ? "#24292f" : "#d0d7de") << "\" stroke-width=\""
    << (reference ? 1.5 : 1) << "\"/><text x=\"" << Num(x)
    << "\" y=\"14\" text-anchor=\"middle\" class=\"axis\">" << HtmlEscape(label) << "</text>\n";
  return s.str();
}

// Estimates and intervals on a log axis; 1 is the line of no change.
std::string Svg(const IntervalChart& c) {
  double lo = 0.5, hi = 2.0;
  for (const auto& row : c.rows) {
    lo = std::min(lo, row.low);
    hi = std::max(hi, row.high);
    for (const auto& band : row.claimed) {  // a claim's finite ends are on the axis too
      if (band.low > 0) lo = std::min(lo, band.low);
      if (std::isfinite(band.high)) hi = std::max(hi, band.high);
    }
  }
  const double llo = std::log10(lo) - 0.05, lhi = std::log10(hi) + 0.05;
  const int height = kTop + kRowHeight * static_cast<int>(c.rows.size()) + 10;
  const int width = kLabelWidth + kPlotWidth + 20;
  auto x = [&](double v) { return kLabelWidth + (std::log10(v) - llo) / (lhi - llo) * kPlotWidth; };
  std::ostringstream s;
  s << SvgOpen(c.description, width, height);
  for (double tick : {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0}) {
    if (tick < std::pow(10, llo) || tick > std::pow(10, lhi)) continue;
    s << AxisLine(x(tick), height, tick == 1.0, FormatFixed(tick, tick < 1 ? 2 : 0) + "x");
  }
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const auto& row = c.rows[i];
    const double y = kTop + kRowHeight * i + kRowHeight / 2.0;
    const std::string colour = ToneColour(row.tone);
    for (const auto& band : row.claimed) {  // behind the interval; open ends to the edges
      // The axis already spans every finite end (above), so only open ends need a bound.
      const double x0 = band.low > 0 ? x(band.low) : kLabelWidth;
      const double x1 = std::isfinite(band.high) ? x(band.high) : kLabelWidth + kPlotWidth;
      s << "<rect class=\"claimed\" x=\"" << Num(x0) << "\" y=\"" << Num(y - 8) << "\" width=\""
        << Num(std::max(1.0, x1 - x0)) << "\" height=\"16\" fill=\"#9aa5b1\" fill-opacity=\"0.28\">"
        << "<title>claimed: " << HtmlEscape(band.label) << "</title></rect>";
    }
    s << "<text x=\"" << kLabelWidth - 8 << "\" y=\"" << Num(y + 4) << "\" text-anchor=\"end\">"
      << HtmlEscape(row.label) << "</text><line x1=\"" << Num(x(row.low)) << "\" x2=\""
      << Num(x(row.high)) << "\" y1=\"" << Num(y) << "\" y2=\"" << Num(y) << "\" stroke=\""
      << colour << "\" stroke-width=\"3\"" << (row.tentative ? " stroke-dasharray=\"4 3\"" : "")
      << "/>"
      << "<circle cx=\"" << Num(x(row.estimate)) << "\" cy=\"" << Num(y) << "\" r=\"5\" fill=\""
      << colour << "\"><title>" << HtmlEscape(row.tooltip) << "</title></circle>\n";
  }
  s << "</svg>\n";
  return s.str();
}

// Signed changes as bars from 0 %; beyond +-500 % the bar is clipped, the label is not.
std::string Svg(const ChangeChart& c) {
  double span = 0.1;
  for (const auto& row : c.rows) span = std::max(span, std::fabs(row.change));
  span = std::min(span, 5.0);
  const int height = kTop + kRowHeight * static_cast<int>(c.rows.size()) + 10;
  const int width = kLabelWidth + kPlotWidth + 90;
  const double zero = kLabelWidth + kPlotWidth / 2.0;
  auto x = [&](double f) {
    return zero + std::max(-1.0, std::min(1.0, f / span)) * kPlotWidth / 2.0;
  };
  std::ostringstream s;
  s << SvgOpen(c.description, width, height);
  for (double f : {-span, -span / 2, 0.0, span / 2, span}) {
    s << AxisLine(x(f), height, f == 0, FormatPercent(f, 0));
  }
  for (size_t i = 0; i < c.rows.size(); ++i) {
    const auto& row = c.rows[i];
    const double y = kTop + kRowHeight * i + 4;
    const double x0 = std::min(x(0), x(row.change)),
                 w = std::max(1.0, std::fabs(x(row.change) - x(0)));
    s << "<text x=\"" << kLabelWidth - 8 << "\" y=\"" << Num(y + 12) << "\" text-anchor=\"end\">"
      << HtmlEscape(row.label) << "</text><rect x=\"" << Num(x0) << "\" y=\"" << Num(y)
      << "\" width=\"" << Num(w) << "\" height=\"14\" fill=\"" << ToneColour(row.tone)
      << "\"><title>" << HtmlEscape(row.tooltip) << "</title></rect><text x=\""
      << Num(kLabelWidth + kPlotWidth + 6) << "\" y=\"" << Num(y + 12) << "\">"
      << HtmlEscape(FormatPercent(row.change)) << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

class Printer {
 public:
  std::string Run(const Document& d) {
    const std::string title = HtmlEscape(d.title);
    h_ << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" << title
       << "</title>\n<style>\n"
       << kCss << "</style>\n</head>\n<body>\n<h1>" << title << "</h1>\n";
    Blocks(d.blocks);
    for (const Section& s : d.sections) OneSection(s, 2);
    h_ << "</body>\n</html>\n";
    return h_.str();
  }

 private:
  void Blocks(const std::vector<Block>& blocks) {
    for (const Block& b : blocks) std::visit([&](const auto& x) { One(x); }, b);
  }

  void OneSection(const Section& s, int level) {
    const std::string h = "h" + std::to_string(std::min(level, 6));
    h_ << "<section" << (s.anchor.empty() ? "" : " id=\"" + HtmlEscape(s.anchor) + "\"") << ">\n<"
       << h << ">" << Inline(s.title) << "</" << h << ">\n";
    Blocks(s.blocks);
    for (const Section& inner : s.sections) OneSection(inner, level + 1);
    h_ << "</section>\n";
  }

  void One(const Paragraph& p) { h_ << "<p>" << Inline(p.text) << "</p>\n"; }

  void Items(const std::vector<Text>& items) {
    h_ << "<ul>\n";
    for (const Text& item : items) h_ << "<li>" << Inline(item) << "</li>\n";
    h_ << "</ul>\n";
  }

  void One(const List& l) { Items(l.items); }

  void One(const Note& n) {
    h_ << "<div class=\"note\"><p>" << Inline(n.text) << "</p>\n";
    if (!n.items.empty()) Items(n.items);
    h_ << "</div>\n";
  }

  void One(const Table& t) {
    h_ << "<table" << (t.id.empty() ? "" : " id=\"" + HtmlEscape(t.id) + "\"") << ">\n<thead><tr>";
    for (const auto& c : t.columns) h_ << "<th>" << HtmlEscape(c) << "</th>";
    h_ << "</tr></thead>\n<tbody>\n";
    for (const auto& row : t.rows) {
      h_ << "<tr>";
      for (const Cell& c : row)
        h_ << "<td" << ClassAttribute(c.tone) << ">" << Inline(c.text) << "</td>";
      h_ << "</tr>\n";
    }
    h_ << "</tbody>\n</table>\n";
  }

  template <typename Chart>
  void OneChart(const Chart& c) {
    if (c.rows.empty()) {
      h_ << "<p>" << HtmlEscape(c.empty_text) << "</p>\n";
    } else {
      h_ << Svg(c);
    }
  }
  void One(const IntervalChart& c) { OneChart(c); }
  void One(const ChangeChart& c) { OneChart(c); }

  void One(const Details& d) {
    h_ << "<details><summary>" << HtmlEscape(d.summary) << "</summary>\n";
    for (const Text& line : d.lines) h_ << "<div>" << Inline(line) << "</div>\n";
    h_ << "</details>\n";
  }

  std::ostringstream h_;
};

}  // namespace

std::string HtmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string PrintHtml(const Document& document) {
  CheckDocument(document);
  return Printer().Run(document);
}

}  // namespace doc
}  // namespace reports
}  // namespace trickbench
