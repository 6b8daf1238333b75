// The report as a document: golden Markdown of the fixture run; the HTML page is well
// formed, self-contained and has every trick. (The printers' own tests: document_test.)
#include "reports/render.h"

#include <gtest/gtest.h>

#include <regex>

#include "reports/html_printer.h"
#include "reports/load.h"
#include "reports/markdown_printer.h"
#include "reports/test_util.h"

namespace trickbench {
namespace reports {
namespace {

using testing::Fixture;
using testing::Slurp;
using testing::WellFormedError;

TEST(Markdown, MatchesTheGoldenFile) {
  const std::string md = doc::PrintMarkdown(ReportDocument(MergeRun(Fixture("run"))));
  const std::string golden = Slurp(Fixture("run.md"));
  // To update after an intended change: bazel run //reports:report --
  // reports/testdata/run --out_dir=/tmp/g && cp /tmp/g/report.md reports/testdata/run.md
  EXPECT_EQ(md, golden);
}

TEST(Markdown, FlagsImpreciseAndNamesEveryTrick) {
  const Report r = MergeRun(Fixture("run"));
  const std::string md = doc::PrintMarkdown(ReportDocument(r));
  for (const auto& t : r.tricks) EXPECT_NE(md.find("### " + t.id), std::string::npos) << t.id;
  EXPECT_NE(md.find("holds (imprecise)"), std::string::npos);
  EXPECT_NE(md.find("1 of 7 timed settings imprecise"), std::string::npos);
  EXPECT_EQ(md.find("schema 1"), std::string::npos);
  EXPECT_NE(md.find("1 process(es) x 9 paired rounds"), std::string::npos);
  EXPECT_NE(md.find("faster (beyond ±5%)"), std::string::npos);
}

TEST(Html, IsWellFormedSelfContainedAndHasEveryTrick) {
  const Report r = MergeRun(Fixture("run"));
  const std::string html = doc::PrintHtml(ReportDocument(r));
  EXPECT_EQ(WellFormedError(html), "");
  for (const auto& t : r.tricks) {
    EXPECT_NE(html.find("<section id=\"t-" + t.id + "\">"), std::string::npos) << t.id;
    EXPECT_NE(html.find("href=\"#t-" + t.id + "\""), std::string::npos) << t.id;
  }
  EXPECT_EQ(std::regex_search(html, std::regex("(src|href)=\"(https?:)?//")), false);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"speedups with 95% intervals; shaded: the range the claim "
                      "states\""),
            std::string::npos);
  // Every timed setting with a time claim has that claim drawn beside its interval
  // (alpha_fast's "faster" from its words: beyond the band, open-ended).
  EXPECT_NE(html.find("<rect class=\"claimed\""), std::string::npos);
  EXPECT_NE(html.find("<title>claimed: faster (beyond ±5%)</title>"), std::string::npos);
  // The answer before the method: the verdicts and the chart come first.
  EXPECT_LT(html.find(">Verdicts<"), html.find("Speedups (95% intervals"));
  EXPECT_LT(html.find("Speedups (95% intervals"), html.find(">Method<"));
  EXPECT_NE(html.find("aria-label=\"peak memory change\""), std::string::npos);
  EXPECT_NE(html.find("imprecise"), std::string::npos);
}

}  // namespace
}  // namespace reports
}  // namespace trickbench
