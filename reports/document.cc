#include "reports/document.h"

#include <cmath>
#include <set>
#include <stdexcept>

namespace trickbench {
namespace reports {
namespace doc {

Span Plain(std::string text, Tone tone) { return {Span::Kind::kPlain, std::move(text), tone, ""}; }
Span Strong(std::string text) { return {Span::Kind::kStrong, std::move(text), Tone::kPlain, ""}; }
Span Code(std::string text) { return {Span::Kind::kCode, std::move(text), Tone::kPlain, ""}; }
Span Link(std::string text, std::string anchor) {
  return {Span::Kind::kLink, std::move(text), Tone::kPlain, std::move(anchor)};
}
Span Badge(std::string text) { return {Span::Kind::kBadge, std::move(text), Tone::kPlain, ""}; }

Text::Text(std::string plain) : spans{Plain(std::move(plain))} {}
Text::Text(const char* plain) : Text(std::string(plain)) {}
Text::Text(std::initializer_list<Span> s) : spans(s) {}

Text& Text::operator+=(Span span) {
  spans.push_back(std::move(span));
  return *this;
}

Text& Text::operator+=(const Text& more) {
  spans.insert(spans.end(), more.spans.begin(), more.spans.end());
  return *this;
}

Cell::Cell(Text t, Tone tn) : text(std::move(t)), tone(tn) {}
Cell::Cell(std::string t) : text(std::move(t)) {}
Cell::Cell(const char* t) : text(t) {}

Table::Table(std::string table_id, std::vector<std::string> table_columns)
    : id(std::move(table_id)), columns(std::move(table_columns)) {}

Table& Table::AddRow(std::vector<Cell> row) {
  rows.push_back(std::move(row));
  return *this;
}

namespace {

std::string PlainText(const Text& t) {
  std::string s;
  for (const Span& span : t.spans) s += span.text;
  return s;
}

// Collects anchors and links while walking the document, then checks them.
class Checker {
 public:
  std::string Run(const Document& d) {
    std::string error = Blocks(d.blocks, "");
    for (const Section& s : d.sections) {
      if (error.empty()) error = OneSection(s, "");
    }
    if (!error.empty()) return error;
    for (const auto& [where, anchor] : links_) {
      if (!anchors_.count(anchor)) {
        return where + "link to '" + anchor + "': no section has that anchor";
      }
    }
    return "";
  }

 private:
  std::string OneSection(const Section& s, const std::string& outer) {
    const std::string where = outer + "section '" + PlainText(s.title) + "': ";
    if (s.title.empty()) return where + "no title";
    if (!s.anchor.empty() && !anchors_.insert(s.anchor).second) {
      return where + "anchor '" + s.anchor + "' used twice";
    }
    Links(s.title, where);
    std::string error = Blocks(s.blocks, where);
    for (const Section& inner : s.sections) {
      if (error.empty()) error = OneSection(inner, where);
    }
    return error;
  }

  void Links(const Text& t, const std::string& where) {
    for (const Span& span : t.spans) {
      if (span.kind == Span::Kind::kLink) links_.push_back({where, span.anchor});
    }
  }

  std::string Blocks(const std::vector<Block>& blocks, const std::string& where) {
    for (const Block& b : blocks) {
      const std::string error = std::visit([&](const auto& x) { return One(x, where); }, b);
      if (!error.empty()) return error;
    }
    return "";
  }

  std::string One(const Paragraph& p, const std::string& where) {
    Links(p.text, where);
    return "";
  }
  std::string One(const List& l, const std::string& where) {
    for (const Text& item : l.items) Links(item, where);
    return "";
  }
  std::string One(const Note& n, const std::string& where) {
    Links(n.text, where);
    for (const Text& item : n.items) Links(item, where);
    return "";
  }
  std::string One(const Details& d, const std::string& where) {
    for (const Text& line : d.lines) Links(line, where);
    return "";
  }
  std::string One(const Table& t, const std::string& where) {
    const std::string at = where + "table '" + t.id + "'";
    if (t.columns.empty()) return at + ": no columns";
    if (!t.id.empty() && !anchors_.insert(t.id).second) return at + ": id used twice";
    for (size_t r = 0; r < t.rows.size(); ++r) {
      if (t.rows[r].size() != t.columns.size()) {
        return at + " row " + std::to_string(r + 1) + ": " + std::to_string(t.rows[r].size()) +
               " cells for " + std::to_string(t.columns.size()) + " columns";
      }
      for (const Cell& c : t.rows[r]) Links(c.text, where);
    }
    return "";
  }
  std::string One(const IntervalChart& c, const std::string& where) {
    for (const auto& row : c.rows) {
      for (double v : {row.estimate, row.low, row.high}) {
        if (!std::isfinite(v) || v <= 0) {
          return where + "chart '" + c.description + "' row '" + row.label +
                 "': values must be positive and finite on a log axis";
        }
      }
      if (row.low > row.high) {
        return where + "chart '" + c.description + "' row '" + row.label + "': low above high";
      }
      for (const auto& band : row.claimed) {
        if (!(band.low >= 0 && band.high > band.low)) {
          return where + "chart '" + c.description + "' row '" + row.label +
                 "': claimed band needs 0 <= low < high";
        }
      }
    }
    return "";
  }
  std::string One(const ChangeChart& c, const std::string& where) {
    for (const auto& row : c.rows) {
      if (!std::isfinite(row.change)) {
        return where + "chart '" + c.description + "' row '" + row.label + "': change not finite";
      }
    }
    return "";
  }

  std::set<std::string> anchors_;
  std::vector<std::pair<std::string, std::string>> links_;  // where, anchor
};

}  // namespace

std::string DocumentError(const Document& d) { return Checker().Run(d); }

void CheckDocument(const Document& d) {
  const std::string error = DocumentError(d);
  if (!error.empty()) throw std::invalid_argument("document '" + d.title + "': " + error);
}

}  // namespace doc
}  // namespace reports
}  // namespace trickbench
