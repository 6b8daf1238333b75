// compare with a noise study's session parts (--noise): each setting the study measured
// is tested with its session part on both sides, and a bad study is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "reports/cli.h"
#include "reports/compare.h"
#include "reports/compare_fixture.h"
#include "reports/compare_render.h"
#include "reports/load.h"
#include "reports/markdown_printer.h"
#include "reports/session_parts.h"
#include "reports/test_util.h"

namespace trickbench {
namespace reports {
namespace {

using json = nlohmann::ordered_json;
using testing::HandMade;
using testing::ReportOf;
using testing::ScratchDir;
using testing::Spit;

// A noise study of this machine (noise_study.json, as run_all:noise_study writes it)
// with one setting per entry: (trick, between_sd), or a negative sd for a setting whose
// study was too short to say (between_sessions null).
std::string NoiseStudy(const std::string& dir,
                       const std::vector<std::pair<std::string, double>>& settings) {
  json j = {{"kind", "trickbench-noise-study"}, {"schema_version", 2}, {"settings", json::array()}};
  for (const auto& [trick, sd] : settings) {
    j["settings"].push_back(
        {{"trick", trick},
         {"case", ""},
         {"variant", "optimized"},
         {"between_sessions",
          sd < 0 ? json(nullptr)
                 : json{{"sessions", 12}, {"h", 2}, {"p_value", 0.01}, {"between_sd", sd}}}});
  }
  Spit(dir + "/noise_study.json", j.dump(2));
  return dir + "/noise_study.json";
}

// Two runs 10 % apart on settings with tight intervals: "slower" as measured. A study
// that saw the setting vary by 5 % a session between A/A runs makes the same 10 % two
// draws of that part, not a change: unknown, and beyond what more processes could
// settle. The setting the study did not measure is compared as measured.
TEST(Compare, NoiseStudyAddsEachMeasuredSettingsSessionPart) {
  const Report old_r = HandMade({std::log(1.1), std::log(1.1), std::log(1.1)}, 0.01);
  const Report new_r = HandMade({0, 0, 0}, 0.01);
  const ReportDiff bare = CompareReports(old_r, new_r);
  for (const auto& s : bare.speedups) EXPECT_EQ(s.change.outcome, stats::ChangeOutcome::kSlower);
  const SessionParts parts = LoadSessionParts(
      NoiseStudy(ScratchDir("noise_parts"), {{"t0", 0.05}, {"t1", 0.002}, {"t2", -1}}));
  const ReportDiff c = CompareReports(old_r, new_r, {}, &parts);
  ASSERT_EQ(c.speedups.size(), 3u);
  EXPECT_EQ(c.noise_source, parts.source);
  EXPECT_EQ(c.speedups[0].session_sd, 0.05);
  EXPECT_EQ(c.speedups[0].change.outcome, stats::ChangeOutcome::kUnknown);
  EXPECT_GT(c.speedups[0].change.log_se, std::hypot(0.05, 0.05));
  EXPECT_TRUE(c.speedups[0].beyond_processes);
  EXPECT_FALSE(c.speedups[0].processes_to_settle.has_value());
  // The MDE is the compare's own, part included.
  EXPECT_GT(c.speedups[0].minimum_detectable_effect,
            2 * bare.speedups[0].minimum_detectable_effect);
  // A small part: still slower, a little wider.
  EXPECT_EQ(c.speedups[1].change.outcome, stats::ChangeOutcome::kSlower);
  EXPECT_GT(c.speedups[1].change.log_se, bare.speedups[1].change.log_se);
  // Not measured by the study (too few sessions there): as measured.
  EXPECT_FALSE(c.speedups[2].session_sd.has_value());
  EXPECT_EQ(c.speedups[2].change.p_value, bare.speedups[2].change.p_value);
  // The measured speedups are shown as measured; the part is said and shown.
  EXPECT_EQ(c.speedups[0].old_time.log_se, 0.01);
  const std::string md = doc::PrintMarkdown(DiffDocument(c, std::nullopt));
  EXPECT_NE(md.find("added to both sides of 2 of 3 settings"), std::string::npos) << md;
  EXPECT_NE(md.find("| session sd |"), std::string::npos) << md;
  EXPECT_NE(md.find("no number of processes would settle it: the session part alone (sd 5.0%)"),
            std::string::npos)
      << md;
  EXPECT_EQ(doc::PrintMarkdown(DiffDocument(bare, std::nullopt)).find("session sd"),
            std::string::npos);
}

// compare --noise from the command line: the part changes the outcome, and a bad study
// is refused with the file and field named, nothing written.
TEST(Compare, NoiseFlagReadsTheStudyAndRefusesABadOne) {
  const std::string old_r = ReportOf("run", "noise_old"),
                    new_r = ReportOf("run_regressed", "noise_new");
  const ReportDiff bare = CompareReports(LoadReportOrResult(old_r), LoadReportOrResult(new_r));
  const auto slower = std::find_if(bare.speedups.begin(), bare.speedups.end(), [](const auto& s) {
    return s.change.outcome == stats::ChangeOutcome::kSlower;
  });
  ASSERT_NE(slower, bare.speedups.end());
  const std::string dir = ScratchDir("noise_cli");
  json j = {{"kind", "trickbench-noise-study"},
            {"schema_version", 2},
            {"settings",
             {{{"trick", slower->trick},
               {"case", slower->case_name},
               {"variant", slower->variant},
               {"between_sessions",
                {{"sessions", 12}, {"h", 3}, {"p_value", 0.001}, {"between_sd", 0.3}}}}}}};
  Spit(dir + "/study.json", j.dump());
  std::ostringstream out, err;
  EXPECT_EQ(CompareMain({old_r, new_r, "--fail_on_regression=10", "--noise=" + dir + "/study.json"},
                        out, err),
            0)
      << err.str();
  EXPECT_NE(out.str().find("Session parts from " + dir + "/study.json"), std::string::npos)
      << out.str();
  const auto refused = [&](const json& study, const std::string& message) {
    Spit(dir + "/bad.json", study.dump());
    std::ostringstream o, e;
    EXPECT_EQ(
        CompareMain({old_r, new_r, "--noise=" + dir + "/bad.json", "--md=" + dir + "/c.md"}, o, e),
        2)
        << message;
    EXPECT_NE(e.str().find(message), std::string::npos) << e.str();
    EXPECT_FALSE(std::filesystem::exists(dir + "/c.md"));
  };
  json other = j;
  other["kind"] = "trickbench-report";
  refused(other, "bad.json: kind: expected trickbench-noise-study");
  json negative = j;
  negative["settings"][0]["between_sessions"]["between_sd"] = -0.1;
  refused(negative, "bad.json: settings[0].between_sessions.between_sd: must be >= 0");
  json few = j;
  few["settings"][0]["between_sessions"]["sessions"] = 2;
  refused(few, "settings[0].between_sessions.sessions");
  json twice = j;
  twice["settings"].push_back(j["settings"][0]);
  refused(twice, "settings[1]: the setting " + slower->trick);
  json no_settings = j;
  no_settings.erase("settings");
  refused(no_settings, "bad.json: settings");
  std::ostringstream o, e;
  EXPECT_EQ(CompareMain({old_r, new_r, "--noise=" + dir + "/absent.json"}, o, e), 2);
  EXPECT_NE(e.str().find("absent.json"), std::string::npos) << e.str();
  std::ostringstream o2, e2;
  EXPECT_EQ(CompareMain({old_r, new_r, "--noise="}, o2, e2), 2);
  EXPECT_EQ(e2.str(), "compare: --noise is empty\n");
}

}  // namespace
}  // namespace reports
}  // namespace trickbench
