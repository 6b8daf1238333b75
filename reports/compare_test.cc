// compare: a planted regression fails the CI option, unchanged code does not, tricks on
// one side are listed, environment differences warn.
#include "reports/compare.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "reports/cli.h"
#include "reports/load.h"
#include "reports/markdown_printer.h"
#include "reports/test_util.h"

namespace trickbench {
namespace reports {
namespace {

using testing::Fixture;
using testing::ScratchDir;
using testing::Slurp;
using testing::Spit;

std::string ReportOf(const std::string& run, const std::string& name) {
  const std::string dir = ScratchDir(name);
  std::ostringstream out, err;
  EXPECT_EQ(ReportMain({Fixture(run), "--out_dir=" + dir}, out, err), 0) << err.str();
  return dir + "/report.json";
}

TEST(Compare, PlantedRegressionFailsTheCiOption) {
  const std::string old_r = ReportOf("run", "cmp_old"), new_r = ReportOf("run_regressed", "cmp_new");
  std::ostringstream out, err;
  EXPECT_EQ(CompareMain({old_r, new_r, "--fail_on_regression=10"}, out, err), 1);
  EXPECT_NE(out.str().find("CI check FAILED: 1 significant regression(s) beyond 10.0%"),
            std::string::npos)
      << out.str();
  EXPECT_NE(err.str().find("1 significant regression(s)"), std::string::npos);
  // The same regression, under a threshold above it, passes.
  std::ostringstream out2, err2;
  EXPECT_EQ(CompareMain({old_r, new_r, "--fail_on_regression=50"}, out2, err2), 0);
  // Per-trick result files work the same way.
  std::ostringstream out3, err3;
  EXPECT_EQ(CompareMain({Fixture("run/alpha_fast.json"), Fixture("run_regressed/alpha_fast.json"),
                         "--fail_on_regression=10"},
                        out3, err3),
            1);
}

TEST(Compare, UnchangedCodePassesAndReportsTheChanges) {
  const ReportDiff c = CompareReports(LoadReportOrResult(ReportOf("run", "u_old")),
                                       LoadReportOrResult(ReportOf("run_again", "u_new")));
  EXPECT_EQ(SignificantRegressions(c, 10), 0);
  ASSERT_TRUE(c.geomean_ratio.has_value());
  EXPECT_NEAR(*c.geomean_ratio, 1, 0.1);
  EXPECT_GE(c.changes.size(), 10u);
  EXPECT_EQ(c.not_compared.size(), 3u);  // skipped, invalid, crashed on both sides
  EXPECT_TRUE(c.environment.empty());
  const ReportDiff r = CompareReports(LoadReportOrResult(ReportOf("run", "r_old")),
                                       LoadReportOrResult(ReportOf("run_regressed", "r_new")));
  bool found = false;
  for (const auto& b : r.changes) {
    if (b.trick == "alpha_fast" && b.variant == "optimized") {
      found = true;
      EXPECT_TRUE(b.significant);
      EXPECT_NEAR(b.ratio, 1.3, 0.08);
      EXPECT_LT(b.ci_low, b.ratio);
      EXPECT_GT(b.ci_high, b.ratio);
    }
  }
  EXPECT_TRUE(found);
}

TEST(Compare, ListsOneSidedTricksAndWarnsOnEnvironment) {
  const std::string dir = ScratchDir("env");
  auto j = nlohmann::ordered_json::parse(Slurp(Fixture("run/beta_memory.json")));
  j["context"]["torch_version"] = "2.4.0";
  j["context"]["intra_op_threads"] = "8";
  j["context"]["git_revision"] = "fedcba987654";
  Spit(dir + "/beta_new.json", j.dump());
  std::ostringstream out, err;
  ASSERT_EQ(CompareMain({Fixture("run/beta_memory.json"), dir + "/beta_new.json",
                         "--md=" + dir + "/c.md", "--html=" + dir + "/c.html"},
                        out, err),
            0)
      << err.str();
  const std::string md = Slurp(dir + "/c.md");
  EXPECT_NE(md.find("Warning: the environments differ"), std::string::npos);
  EXPECT_NE(md.find("torch_version: `1.13.0` -> `2.4.0`"), std::string::npos);
  EXPECT_NE(md.find("intra_op_threads"), std::string::npos);
  EXPECT_NE(md.find("## Other environment differences"), std::string::npos);  // git revision
  const std::string html = Slurp(dir + "/c.html");
  EXPECT_NE(html.find("class=\"note\""), std::string::npos);
  EXPECT_NE(html.find("beta_memory"), std::string::npos);

  const ReportDiff c = CompareReports(LoadReportOrResult(Fixture("run/alpha_fast.json")),
                                       LoadReportOrResult(Fixture("run/beta_memory.json")));
  EXPECT_EQ(c.only_old, std::vector<std::string>{"alpha_fast"});
  EXPECT_EQ(c.only_new, std::vector<std::string>{"beta_memory"});
  EXPECT_FALSE(c.geomean_ratio.has_value());
  const std::string text = doc::PrintMarkdown(DiffDocument(c, std::nullopt));
  EXPECT_NE(text.find("- alpha_fast: only in old"), std::string::npos);
  EXPECT_NE(text.find("- beta_memory: only in new"), std::string::npos);
}

}  // namespace
}  // namespace reports
}  // namespace trickbench
