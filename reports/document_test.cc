// The document model and its two printers, on small hand-built documents: what each
// printer writes for each block, escaping, what Markdown leaves out, and documents that
// break the rules (refused by both printers with a message naming the problem).
#include "reports/document.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "reports/html_printer.h"
#include "reports/markdown_printer.h"
#include "reports/test_util.h"

namespace trickbench {
namespace reports {
namespace doc {
namespace {

using testing::WellFormedError;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// One of every block, in a section and a subsection.
Document Sample() {
  Document d;
  d.title = "A & B";
  d.blocks.push_back(
      Paragraph{{Plain("Run "), Code("--x=1"), Plain(" and "), Strong("done"), Plain(".")}});
  d.blocks.push_back(Note{{Strong("Warning:"), Plain(" two machines")}, {"one", "two"}});
  Table t("summary", {"name", "verdict"});
  t.AddRow({Text{Link("alpha", "s-alpha")}, Text{Plain("holds", Tone::kGood), Badge("NOISY")}});
  t.AddRow({"beta", Cell("slower", Tone::kBad)});
  Section top{"Top", "", {t}, {}};
  Section alpha{Text{Plain("alpha: "), Plain("holds", Tone::kGood)}, "s-alpha", {}, {}};
  alpha.blocks.push_back(List{{"first", "second"}});
  alpha.blocks.push_back(Details{"raw", {"1 2 3"}});
  top.sections.push_back(alpha);
  d.sections.push_back(top);
  IntervalChart speed{"speedups", "no speedups", {}};
  speed.rows.push_back({"alpha", 2.0, 1.5, 2.5, Tone::kGood, false, "2x"});
  speed.rows.push_back({"beta", 0.9, 0.5, 1.2, Tone::kMuted, true, "0.9x"});
  ChangeChart memory{"memory", "no memory", {{"alpha", -0.5, Tone::kGood, "half"}}};
  d.sections.push_back({"Charts", "", {speed, memory}, {}});
  return d;
}

TEST(Markdown, PrintsEveryBlockItKeeps) {
  EXPECT_EQ(PrintMarkdown(Sample()),
            "# A & B\n"
            "\n"
            "Run `--x=1` and **done**.\n"
            "\n"
            "> **Warning:** two machines\n"
            "> - one\n"
            "> - two\n"
            "\n"
            "## Top\n"
            "\n"
            "| name | verdict |\n"
            "|---|---|\n"
            "| alpha | holds (NOISY) |\n"
            "| beta | slower |\n"
            "\n"
            "### alpha: holds\n"
            "\n"
            "- first\n"
            "- second\n");
}

TEST(Markdown, LeavesOutChartsDetailsAndSectionsLeftEmpty) {
  const std::string md = PrintMarkdown(Sample());
  EXPECT_FALSE(Has(md, "Charts"));  // the section held only charts
  EXPECT_FALSE(Has(md, "raw"));
  EXPECT_FALSE(Has(md, "1 2 3"));
}

TEST(Markdown, EscapesTableCellsAndKeepsLinesWhole) {
  Document d;
  d.title = "t";
  Table t("", {"a|b", "c"});
  t.AddRow({"x|y\nz", Text{Code("p|q")}});
  d.blocks.push_back(t);
  d.blocks.push_back(List{{"line one\nline two"}});
  d.blocks.push_back(Paragraph{{Code("a`b")}});
  const std::string md = PrintMarkdown(d);
  EXPECT_TRUE(Has(md, "| a\\|b | c |\n")) << md;
  EXPECT_TRUE(Has(md, "| x\\|y z | `p\\|q` |\n")) << md;
  EXPECT_TRUE(Has(md, "- line one line two\n")) << md;
  EXPECT_TRUE(Has(md, "`` a`b ``")) << md;
  EXPECT_EQ(MarkdownCell("a|b\nc"), "a\\|b c");
}

TEST(Markdown, EmptyTableIsItsHeader) {
  Document d;
  d.title = "t";
  d.blocks.push_back(Table("", {"one", "two"}));
  EXPECT_EQ(PrintMarkdown(d), "# t\n\n| one | two |\n|---|---|\n");
}

TEST(Html, IsWellFormedAndSelfContained) {
  const std::string html = PrintHtml(Sample());
  EXPECT_EQ(WellFormedError(html), "");
  EXPECT_TRUE(Has(html, "<!DOCTYPE html>\n"));
  EXPECT_FALSE(Has(html, "<script"));
  EXPECT_FALSE(Has(html, "http"));  // nothing fetched (the SVG needs no namespace inline)
  size_t styles = 0;
  for (size_t at = 0; (at = html.find("<style>", at)) != std::string::npos; ++at) ++styles;
  EXPECT_EQ(styles, 1u);
}

TEST(Html, PrintsEveryBlock) {
  const std::string html = PrintHtml(Sample());
  EXPECT_TRUE(Has(html, "<title>A &amp; B</title>"));
  EXPECT_TRUE(Has(html, "<h1>A &amp; B</h1>"));
  EXPECT_TRUE(Has(html, "<p>Run <code>--x=1</code> and <strong>done</strong>.</p>"));
  EXPECT_TRUE(
      Has(html,
          "<div class=\"note\"><p><strong>Warning:</strong> two machines</p>\n<ul>\n<li>one</li>"));
  EXPECT_TRUE(Has(html, "<section>\n<h2>Top</h2>"));
  EXPECT_TRUE(
      Has(html, "<section id=\"s-alpha\">\n<h3>alpha: <span class=\"good\">holds</span></h3>"));
  EXPECT_TRUE(
      Has(html, "<table id=\"summary\">\n<thead><tr><th>name</th><th>verdict</th></tr></thead>"));
  EXPECT_TRUE(Has(html, "<td><a href=\"#s-alpha\">alpha</a></td>"));
  EXPECT_TRUE(
      Has(html, "<td><span class=\"good\">holds</span><span class=\"badge\">NOISY</span></td>"));
  EXPECT_TRUE(Has(html, "<td class=\"bad\">slower</td>"));  // a cell's own tone
  EXPECT_TRUE(Has(html, "<ul>\n<li>first</li>\n<li>second</li>\n</ul>"));
  EXPECT_TRUE(Has(html, "<details><summary>raw</summary>\n<div>1 2 3</div>\n</details>"));
}

TEST(Html, DrawsChartsAsInlineSvg) {
  const std::string html = PrintHtml(Sample());
  EXPECT_TRUE(Has(html, "<svg class=\"chart\" role=\"img\" aria-label=\"speedups\""));
  EXPECT_TRUE(Has(html, "<svg class=\"chart\" role=\"img\" aria-label=\"memory\""));
  EXPECT_TRUE(Has(html, "<title>2x</title></circle>"));
  EXPECT_TRUE(Has(html, "stroke-dasharray"));  // the tentative row
  EXPECT_TRUE(Has(html, "<title>half</title></rect>"));
  EXPECT_TRUE(Has(html, ">-50.0%</text>"));
  EXPECT_TRUE(Has(html, ">1x</text>"));  // the reference line of the log axis is labelled
  // Without rows, the chart's own words instead of an empty drawing.
  Document d;
  d.title = "t";
  d.blocks.push_back(IntervalChart{"speedups", "nothing timed", {}});
  d.blocks.push_back(ChangeChart{"memory", "nothing measured", {}});
  const std::string empty = PrintHtml(d);
  EXPECT_FALSE(Has(empty, "<svg"));
  EXPECT_TRUE(Has(empty, "<p>nothing timed</p>"));
  EXPECT_TRUE(Has(empty, "<p>nothing measured</p>"));
}

TEST(Html, EscapesEverythingItWasGiven) {
  Document d;
  d.title = "<t>";
  Table t("id\"x", {"<th>"});
  t.AddRow({Text{Link("<a>", "s\"1"), Code("&"), Badge("'b'")}});
  d.blocks.push_back(t);
  IntervalChart chart{"a\"b", "", {{"<label>", 1, 1, 1, Tone::kPlain, false, "<tip>"}}};
  d.sections.push_back({"<h>", "s\"1", {chart, Details{"<s>", {"<l>"}}}, {}});
  const std::string html = PrintHtml(d);
  EXPECT_EQ(WellFormedError(html), "");
  for (const char* raw : {"<t>", "<th><th>", "<a>", "<label>", "<tip>", "<h>", "<s>", "<l>",
                          "id\"x", "s\"1", "a\"b", "'b'"}) {
    EXPECT_FALSE(Has(html, raw)) << raw;
  }
  EXPECT_TRUE(Has(html, "<table id=\"id&quot;x\">"));
  EXPECT_TRUE(Has(html, "<a href=\"#s&quot;1\">&lt;a&gt;</a><code>&amp;</code>"));
  EXPECT_EQ(HtmlEscape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
}

TEST(Html, EmptyTableKeepsItsHeader) {
  Document d;
  d.title = "t";
  d.blocks.push_back(Table("", {"one"}));
  const std::string html = PrintHtml(d);
  EXPECT_TRUE(
      Has(html, "<table>\n<thead><tr><th>one</th></tr></thead>\n<tbody>\n</tbody>\n</table>"));
  EXPECT_EQ(WellFormedError(html), "");
}

// ---------------------------------------------------------------- broken documents

std::string Refusal(const Document& d) {
  std::string md_error, html_error;
  try {
    PrintMarkdown(d);
  } catch (const std::invalid_argument& e) {
    md_error = e.what();
  }
  try {
    PrintHtml(d);
  } catch (const std::invalid_argument& e) {
    html_error = e.what();
  }
  EXPECT_EQ(md_error, html_error);
  return md_error;
}

TEST(Check, AcceptsTheSample) { EXPECT_EQ(DocumentError(Sample()), ""); }

TEST(Check, RowWiderThanItsTable) {
  Document d = Sample();
  std::get<Table>(d.sections[0].blocks[0]).AddRow({"a", "b", "c"});
  EXPECT_EQ(Refusal(d),
            "document 'A & B': section 'Top': table 'summary' row 3: 3 cells for 2 columns");
}

TEST(Check, RowInANestedSectionIsLocated) {
  Document d = Sample();
  Table t("variants", {"one"});
  t.AddRow({});
  d.sections[0].sections[0].blocks.push_back(t);
  EXPECT_EQ(DocumentError(d),
            "section 'Top': section 'alpha: holds': table 'variants' row 1: 0 cells for 1 columns");
}

TEST(Check, LinkToNoSection) {
  Document d = Sample();
  d.sections[0].sections[0].anchor = "renamed";
  EXPECT_EQ(Refusal(d),
            "document 'A & B': section 'Top': link to 's-alpha': no section has that anchor");
}

TEST(Check, AnchorsAreUnique) {
  Document d = Sample();
  d.sections[1].anchor = "s-alpha";
  EXPECT_EQ(DocumentError(d), "section 'Charts': anchor 's-alpha' used twice");
  Document t = Sample();
  t.sections[1].anchor = "summary";  // a table's id is an anchor too
  EXPECT_NE(DocumentError(t), "");
}

TEST(Check, ChartValuesMustBeDrawable) {
  for (double bad : {0.0, -1.0, std::nan(""), double(INFINITY)}) {
    Document d = Sample();
    std::get<IntervalChart>(d.sections[1].blocks[0]).rows[0].low = bad;
    EXPECT_EQ(DocumentError(d),
              "section 'Charts': chart 'speedups' row 'alpha': values must be "
              "positive and finite on a log axis")
        << bad;
  }
  Document d = Sample();
  auto& row = std::get<IntervalChart>(d.sections[1].blocks[0]).rows[0];
  row.low = 3;  // above high
  EXPECT_EQ(DocumentError(d), "section 'Charts': chart 'speedups' row 'alpha': low above high");
  for (const IntervalChart::Band& bad :
       {IntervalChart::Band{2, 1, "x"}, IntervalChart::Band{-1, 2, "x"},
        IntervalChart::Band{1, 1, "x"}}) {
    Document c = Sample();
    std::get<IntervalChart>(c.sections[1].blocks[0]).rows[0].claimed = {bad};
    EXPECT_EQ(DocumentError(c),
              "section 'Charts': chart 'speedups' row 'alpha': claimed band "
              "needs 0 <= low < high");
  }
  Document open = Sample();  // open ends are what a claim without figures has
  std::get<IntervalChart>(open.sections[1].blocks[0]).rows[0].claimed = {
      {1.05, double(INFINITY), "faster"}, {0, 0.9, "slower"}};
  EXPECT_EQ(DocumentError(open), "");
  EXPECT_NE(PrintHtml(open).find("<title>claimed: faster</title>"), std::string::npos);
  Document m = Sample();
  std::get<ChangeChart>(m.sections[1].blocks[1]).rows[0].change = std::nan("");
  EXPECT_EQ(Refusal(m),
            "document 'A & B': section 'Charts': chart 'memory' row 'alpha': change not finite");
}

TEST(Check, TablesNeedColumnsAndSectionsTitles) {
  Document d;
  d.title = "t";
  d.blocks.push_back(Table("bare", {}));
  EXPECT_EQ(DocumentError(d), "table 'bare': no columns");
  Document s;
  s.title = "t";
  s.sections.push_back({});
  EXPECT_EQ(DocumentError(s), "section '': no title");
}

}  // namespace
}  // namespace doc
}  // namespace reports
}  // namespace trickbench
