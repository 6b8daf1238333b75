#include "reports/markdown_printer.h"

#include <algorithm>
#include <sstream>
#include <type_traits>

namespace trickbench {
namespace reports {
namespace doc {
namespace {

// Inline text never breaks a line: a break would end a list item, a quote or a row.
std::string OneLine(const std::string& s) {
  std::string out = s;
  std::replace(out.begin(), out.end(), '\n', ' ');
  std::replace(out.begin(), out.end(), '\r', ' ');
  return out;
}

// A code span may hold backticks: a longer fence around it, padded (CommonMark 6.1).
std::string CodeSpan(const std::string& s) {
  if (s.find('`') == std::string::npos) return "`" + s + "`";
  return "`` " + s + " ``";
}

std::string Inline(const Text& t, bool in_table) {
  std::string out;
  for (const Span& span : t.spans) {
    std::string text = OneLine(span.text);
    if (in_table) text = MarkdownCell(text);
    switch (span.kind) {
      case Span::Kind::kPlain:
      case Span::Kind::kLink:
        out += text;
        break;
      case Span::Kind::kStrong:
        out += "**" + text + "**";
        break;
      case Span::Kind::kCode:
        out += CodeSpan(text);
        break;
      case Span::Kind::kBadge:
        out += " (" + text + ")";
        break;
    }
  }
  return out;
}

bool Printed(const Block& b) {
  return !std::holds_alternative<IntervalChart>(b) && !std::holds_alternative<ChangeChart>(b) &&
         !std::holds_alternative<Details>(b);
}

bool Printed(const Section& s) {
  return std::any_of(s.blocks.begin(), s.blocks.end(), [](const Block& b) { return Printed(b); }) ||
         std::any_of(s.sections.begin(), s.sections.end(),
                     [](const Section& inner) { return Printed(inner); });
}

class Printer {
 public:
  std::string Run(const Document& d) {
    md_ << "# " << OneLine(d.title) << "\n";
    Blocks(d.blocks);
    for (const Section& s : d.sections) OneSection(s, 2);
    return md_.str();
  }

 private:
  // Every block is preceded by a blank line and ends with a line break.
  void Blocks(const std::vector<Block>& blocks) {
    for (const Block& b : blocks) {
      if (!Printed(b)) continue;
      md_ << "\n";
      std::visit([&](const auto& x) { One(x); }, b);
    }
  }

  void OneSection(const Section& s, int level) {
    if (!Printed(s)) return;
    md_ << "\n" << std::string(std::min(level, 6), '#') << " " << Inline(s.title, false) << "\n";
    Blocks(s.blocks);
    for (const Section& inner : s.sections) OneSection(inner, level + 1);
  }

  void One(const Paragraph& p) { md_ << Inline(p.text, false) << "\n"; }

  void One(const List& l) {
    for (const Text& item : l.items) md_ << "- " << Inline(item, false) << "\n";
  }

  void One(const Note& n) {
    md_ << "> " << Inline(n.text, false) << "\n";
    for (const Text& item : n.items) md_ << "> - " << Inline(item, false) << "\n";
  }

  void One(const Table& t) {
    md_ << "|";
    for (const auto& c : t.columns) md_ << " " << MarkdownCell(OneLine(c)) << " |";
    md_ << "\n|";
    for (size_t i = 0; i < t.columns.size(); ++i) md_ << "---|";
    md_ << "\n";
    for (const auto& row : t.rows) {
      md_ << "|";
      for (const Cell& c : row) md_ << " " << Inline(c.text, true) << " |";
      md_ << "\n";
    }
  }

  template <typename Omitted>
  void One(const Omitted&) {}  // charts and details: see Printed

  std::ostringstream md_;
};

}  // namespace

std::string MarkdownCell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string PrintMarkdown(const Document& document) {
  CheckDocument(document);
  return Printer().Run(document);
}

}  // namespace doc
}  // namespace reports
}  // namespace trickbench
