// A format-neutral document: what a report or a comparison says, built once and then
// printed by one printer per format (markdown_printer.h, html_printer.h). Builders
// decide what to say and how much it matters (a Tone); printers decide how it looks and
// know nothing of trickbench's reports.
//
//   using namespace trickbench::reports;
//   doc::Document d;
//   d.title = "trickbench compare: old -> new";
//   d.blocks.push_back(doc::Paragraph{{doc::Plain("Geometric mean: "), doc::Strong("1.02")}});
//   doc::Table changes("changes", {"trick", "change"});
//   changes.AddRow({"alpha_fast", doc::Cell("+30.0%", doc::Tone::kBad)});
//   d.blocks.push_back(std::move(changes));
//   std::string md = doc::PrintMarkdown(d);   // tables, lists, notes: terminals and CI logs
//   std::string html = doc::PrintHtml(d);     // one self-contained page, charts as inline SVG
//
// What a printer may leave out: charts and Details are for a screen. The Markdown printer
// omits them (and a section left with nothing to print), so every number a chart draws
// must also be in a Table or a Paragraph.
//
// A document that breaks its own rules (a row wider than its table, a chart value that
// is not finite, a link to no section) is a builder's bug: CheckDocument names it, and
// both printers call it before writing anything.
#pragma once

#include <initializer_list>
#include <string>
#include <variant>
#include <vector>

namespace trickbench {
namespace reports {
namespace doc {

// How much a piece of text matters to the reader, independent of any colour scheme.
enum class Tone {
  kPlain,
  kGood,       // a finding in favour (a claim holds, faster, less memory)
  kBad,        // a finding against (does not hold, slower, a check failed)
  kUncertain,  // measured but not settled
  kMuted,      // not applicable, not measured
  kFlagged,    // to be read with care (noisy): highlighted, not a finding either way
};

// A run of inline text. Build them with the functions below.
struct Span {
  enum class Kind { kPlain, kStrong, kCode, kLink, kBadge };
  Kind kind = Kind::kPlain;
  std::string text;
  Tone tone = Tone::kPlain;  // of a kPlain span (a badge is always a flag)
  std::string anchor;        // kLink: the anchor of a Section of the same document
};
Span Plain(std::string text, Tone tone = Tone::kPlain);
Span Strong(std::string text);
Span Code(std::string text);
Span Link(std::string text, std::string anchor);
// A short flag on the text before it ("holds" + Badge("NOISY")): Markdown "holds (NOISY)".
Span Badge(std::string text);

// Inline text: spans in order. A plain string converts to one plain span.
struct Text {
  std::vector<Span> spans;

  Text() = default;
  Text(std::string plain);  // NOLINT: implicit on purpose, most text is plain
  Text(const char* plain);  // NOLINT
  Text(std::initializer_list<Span> spans);
  Text& operator+=(Span span);
  Text& operator+=(const Text& more);
  bool empty() const { return spans.empty(); }
};

struct Paragraph {
  Text text;
};

struct List {
  std::vector<Text> items;
};

// A warning set apart from the text, with optional points under it.
struct Note {
  Text text;
  std::vector<Text> items;
};

struct Cell {
  Text text;
  Tone tone = Tone::kPlain;  // the whole cell's status (its spans may have their own)

  Cell(Text text, Tone tone = Tone::kPlain);  // NOLINT: a Text is a plain cell
  Cell(std::string text);                     // NOLINT
  Cell(const char* text);                     // NOLINT
};

struct Table {
  std::string id;  // an anchor for the table ("" for none); unique in the document
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;  // each exactly as wide as `columns`

  Table(std::string id, std::vector<std::string> columns);
  Table& AddRow(std::vector<Cell> row);
};

// Estimates with their intervals on a log axis, with a reference line at 1 (no change):
// speedups with 95 % intervals, one row per setting, each beside the range its claim
// allows (a shaded band), so that the reader sees the claim and the measurement at once.
struct IntervalChart {
  // What was claimed on this axis: 0 and infinity are open ends (drawn to the edge).
  struct Band {
    double low = 0, high = 0;  // 0 <= low < high
    std::string label;         // "1.30-4.00x faster"
  };
  struct Row {
    std::string label;
    double estimate = 1, low = 1, high = 1;  // positive and finite; low <= high
    Tone tone = Tone::kPlain;
    bool tentative = false;  // drawn dashed: not a finding
    std::string tooltip;
    std::vector<Band> claimed;  // none: nothing claimed for this row on this axis
  };
  std::string description;  // what it shows: its accessible name
  std::string empty_text;   // said instead of a chart with no row
  std::vector<Row> rows;
};

// Signed changes as bars from 0, as fractions (-0.3 is 30 % less): memory changes.
struct ChangeChart {
  struct Row {
    std::string label;
    double change = 0;  // finite; drawn clipped beyond +-500 %, the label says the value
    Tone tone = Tone::kPlain;
    std::string tooltip;
  };
  std::string description;
  std::string empty_text;
  std::vector<Row> rows;
};

// Supporting detail a reader opens on demand (raw samples): collapsed on a screen.
struct Details {
  std::string summary;
  std::vector<Text> lines;
};

using Block = std::variant<Paragraph, List, Note, Table, IntervalChart, ChangeChart, Details>;

// A heading and what it holds; `sections` follow the blocks, one level deeper.
struct Section {
  Text title;
  std::string anchor;  // what a Link names ("" for none); unique in the document
  std::vector<Block> blocks;
  std::vector<Section> sections;
};

struct Document {
  std::string title;
  std::vector<Block> blocks;  // before the first section
  std::vector<Section> sections;
};

// "" when `d` keeps the rules above, else the first broken one, located:
// "section 'Details': section 'alpha': table 'variants' row 2: 5 cells for 6 columns".
std::string DocumentError(const Document& d);
// Throws std::invalid_argument with DocumentError's text.
void CheckDocument(const Document& d);

}  // namespace doc
}  // namespace reports
}  // namespace trickbench
