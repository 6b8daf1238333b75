// The command lines of //reports:report and //reports:compare: exit 2 and one line
// naming the file and field (or the flag) on bad input, with no output file; the three
// report files on good input.
#include "reports/cli.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "reports/load.h"
#include "reports/report.h"
#include "reports/test_util.h"

namespace trickbench {
namespace reports {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using testing::CopyOfRun;
using testing::Fixture;
using testing::ScratchDir;
using testing::Slurp;
using testing::Spit;

// The command line: exit 2, one line naming file and field, no output file.
TEST(Cli, ReportOnBadInputWritesNothing) {
  const std::string dir = CopyOfRun("bad_run");
  json alpha = json::parse(Slurp(dir + "/alpha_fast.json"));
  alpha["trickbench"]["rounds"][0]["samples"]["ns_per_iteration"][0] = -3.0;
  Spit(dir + "/alpha_fast.json", alpha.dump());
  std::ostringstream out, err;
  EXPECT_EQ(ReportMain({dir}, out, err), 2);
  EXPECT_EQ(err.str(),
            "report: " + dir +
                "/alpha_fast.json: trickbench.rounds[0].samples.ns_per_iteration[0]: not a "
                "positive time (a ratio needs positive times)\n");
  for (const char* name : {"report.json", "report.md", "report.html"}) {
    EXPECT_FALSE(fs::exists(dir + "/" + name)) << name;
  }
  std::ostringstream out2, err2;
  EXPECT_EQ(ReportMain({dir + "/nothere"}, out2, err2), 2);
  EXPECT_EQ(ReportMain({}, out2, err2), 2);
  EXPECT_EQ(ReportMain({"--bogus"}, out2, err2), 2);
}

TEST(Cli, ReportWritesThreeFiles) {
  const std::string out_dir = ScratchDir("good_run");
  std::ostringstream out, err;
  ASSERT_EQ(ReportMain({Fixture("run"), "--out_dir=" + out_dir}, out, err), 0) << err.str();
  for (const char* name : {"report.json", "report.md", "report.html"}) {
    EXPECT_TRUE(fs::exists(out_dir + "/" + name)) << name;
    EXPECT_NE(out.str().find(out_dir + "/" + name), std::string::npos);
  }
  std::string kind;
  const Report back = LoadReportOrResult(out_dir + "/report.json", &kind);
  EXPECT_EQ(kind, "report");
  EXPECT_EQ(back.tricks.size(), 8u);
}

TEST(Cli, CompareRejectsBadInputAndMixedKinds) {
  const std::string dir = ScratchDir("compare_bad");
  std::ostringstream out, err;
  ASSERT_EQ(ReportMain({Fixture("run"), "--out_dir=" + dir}, out, err), 0);
  const std::string md = dir + "/cmp.md";
  std::ostringstream o1, e1;
  EXPECT_EQ(
      CompareMain({dir + "/report.json", Fixture("run/alpha_fast.json"), "--md=" + md}, o1, e1), 2);
  const std::string e1_text = e1.str();
  EXPECT_NE(e1_text.find("same kind"), std::string::npos) << e1_text;
  EXPECT_EQ(std::count(e1_text.begin(), e1_text.end(), '\n'), 1);
  EXPECT_FALSE(fs::exists(md));
  json r = json::parse(Slurp(dir + "/report.json"));
  r["schema_version"] = 99;
  Spit(dir + "/v99.json", r.dump());
  std::ostringstream o2, e2;
  EXPECT_EQ(CompareMain({dir + "/report.json", dir + "/v99.json", "--md=" + md}, o2, e2), 2);
  EXPECT_NE(e2.str().find("v99.json: schema_version: wrong schema version 99"), std::string::npos)
      << e2.str();
  EXPECT_FALSE(fs::exists(md));
  r = json::parse(Slurp(dir + "/report.json"));
  r["tricks"][0]["variants"][1]["samples_ns"][2] = -5;
  Spit(dir + "/neg.json", r.dump());
  std::ostringstream o3, e3;
  EXPECT_EQ(CompareMain({dir + "/report.json", dir + "/neg.json", "--md=" + md}, o3, e3), 2);
  EXPECT_NE(e3.str().find("tricks[0].variants[1].samples_ns[2]: negative time"), std::string::npos)
      << e3.str();
  EXPECT_FALSE(fs::exists(md));
  std::ostringstream o4, e4;
  EXPECT_EQ(CompareMain({dir + "/report.json"}, o4, e4), 2);
  EXPECT_EQ(
      CompareMain({dir + "/report.json", dir + "/report.json", "--fail_on_regression=x"}, o4, e4),
      2);
}

// Flags go through the shared parser (common/flags.h): one line naming the flag, exit 2.
TEST(Cli, FlagErrorsNameTheFlag) {
  const auto report = [](std::vector<std::string> args) {
    std::ostringstream out, err;
    const int code = ReportMain(args, out, err);
    return std::to_string(code) + " " + err.str() + out.str();
  };
  const auto compare = [](std::vector<std::string> args) {
    std::ostringstream out, err;
    const int code = CompareMain(args, out, err);
    return std::to_string(code) + " " + err.str() + out.str();
  };
  EXPECT_EQ(report({"--bogus"}), "2 report: unknown flag --bogus (see --help)\n");
  EXPECT_EQ(report({Fixture("run"), "--out_dir="}), "2 report: --out_dir is empty\n");
  EXPECT_EQ(report({Fixture("run"), Fixture("run_again")}),
            "2 report: one RUN_DIR expected, got another: " + Fixture("run_again") + "\n");
  EXPECT_EQ(compare({"a.json", "b.json", "--fail_on_regression=x"}),
            "2 compare: bad value for --fail_on_regression: 'x' (expected a percentage >= 0)\n");
  EXPECT_EQ(compare({"a.json", "b.json", "--fail_on_regression=-1"}),
            "2 compare: bad value for --fail_on_regression: '-1' (expected a percentage >= 0)\n");
  EXPECT_EQ(compare({"a.json", "b.json", "--md"}), "2 compare: --md needs a value (--md=...)\n");
  EXPECT_EQ(compare({"a.json", "b.json", "--md=x", "--md=y"}), "2 compare: --md is given twice\n");
  const std::string report_help = report({"--help"});
  EXPECT_EQ(report_help.rfind("0 usage: bazel run //reports:report", 0), 0u) << report_help;
  EXPECT_NE(report_help.find("  --out_dir=VALUE"), std::string::npos) << report_help;
  const std::string compare_help = compare({"--help"});
  EXPECT_NE(compare_help.find("  --fail_on_regression=PCT"), std::string::npos) << compare_help;
  EXPECT_NE(compare_help.find("  --html=VALUE"), std::string::npos) << compare_help;
}

}  // namespace
}  // namespace reports
}  // namespace trickbench
