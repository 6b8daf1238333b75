// Rendering: golden Markdown of the fixture run; the HTML page is well formed,
// self-contained and has every trick.
#include "reports/render.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "reports/test_util.h"

namespace trickbench {
namespace reports {
namespace {

using testing::Fixture;
using testing::Slurp;

TEST(Markdown, MatchesTheGoldenFile) {
  const std::string md = RenderMarkdown(MergeRun(Fixture("run")));
  const std::string golden = Slurp(Fixture("run.md"));
  // To update after an intended change: bazel run //reports:report --
  // reports/testdata/run --out_dir=/tmp/g && cp /tmp/g/report.md reports/testdata/run.md
  EXPECT_EQ(md, golden);
}

TEST(Markdown, FlagsNoiseAndNamesEveryTrick) {
  const Report r = MergeRun(Fixture("run"));
  const std::string md = RenderMarkdown(r);
  for (const auto& t : r.tricks) EXPECT_NE(md.find("### " + t.id), std::string::npos) << t.id;
  EXPECT_NE(md.find("inconclusive (NOISY)"), std::string::npos);
  EXPECT_NE(md.find("repetitions would settle it"), std::string::npos);
}

// Checks that tags nest and close (void elements excepted): what a strict parser needs.
std::string WellFormedError(const std::string& html) {
  static const std::set<std::string> kVoid = {"meta", "br", "hr", "img", "input", "link", "col"};
  std::vector<std::string> stack;
  size_t i = 0;
  while ((i = html.find('<', i)) != std::string::npos) {
    const size_t end = html.find('>', i);
    if (end == std::string::npos) return "unclosed '<' at " + std::to_string(i);
    std::string tag = html.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.empty() || tag[0] == '!') continue;
    const bool closing = tag[0] == '/';
    const bool self_closing = tag.back() == '/';
    std::string name = tag.substr(closing ? 1 : 0);
    name = name.substr(0, name.find_first_of(" /\t\n"));
    if (closing) {
      if (stack.empty() || stack.back() != name) {
        return "</" + name + "> closes " + (stack.empty() ? "nothing" : "<" + stack.back() + ">");
      }
      stack.pop_back();
    } else if (!self_closing && !kVoid.count(name)) {
      stack.push_back(name);
    }
  }
  return stack.empty() ? "" : "<" + stack.back() + "> never closed";
}

TEST(Html, IsWellFormedSelfContainedAndHasEveryTrick) {
  const Report r = MergeRun(Fixture("run"));
  const std::string html = RenderHtml(r);
  EXPECT_EQ(WellFormedError(html), "");
  for (const auto& t : r.tricks) {
    EXPECT_NE(html.find("<section class=\"trick\" id=\"t-" + t.id + "\">"), std::string::npos) << t.id;
    EXPECT_NE(html.find("href=\"#t-" + t.id + "\""), std::string::npos) << t.id;
  }
  EXPECT_EQ(std::regex_search(html, std::regex("(src|href)=\"(https?:)?//")), false);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"speedups with 95% intervals\""), std::string::npos);
  EXPECT_NE(html.find("aria-label=\"peak memory change\""), std::string::npos);
  EXPECT_NE(html.find("NOISY"), std::string::npos);
}

TEST(Html, CheckerCatchesBrokenNesting) {
  EXPECT_NE(WellFormedError("<p><b></p></b>"), "");
  EXPECT_NE(WellFormedError("<div>"), "");
  EXPECT_EQ(WellFormedError("<p><br><meta charset=\"x\"><svg><line/></svg></p>"), "");
}

TEST(Html, EscapesText) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  EXPECT_EQ(MarkdownCell("a|b\nc"), "a\\|b c");
}

}  // namespace
}  // namespace reports
}  // namespace trickbench
