// The noise study as a user runs it: a tiny study of the noop test trick (2 A/A
// sessions, 1 process, 3 rounds, one planted session), resumed, and its bad command
// lines; and the default trick set against the real trick binaries (--dry_run).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/test_files.h"
#include "harness/testing/subprocess.h"
#include "results/checked_json.h"
#include "results/result_file.h"
#include "results/run_index.h"

namespace trickbench {
namespace {

namespace fs = std::filesystem;
using subprocess::Proc;

std::string g_study, g_noop, g_benches;  // g_benches: every trick binary, space-separated

Proc Exec(const std::string& cmd) { return subprocess::RunCommand(cmd); }

// Nothing at the path: the study creates its own folders and refuses some that exist.
using test_files::FreshPath;

const std::string kTiny =
    " --tricks=noop --sessions=2 --processes=1 --rounds=3 --min_time=0.001"
    " --plants=1.5 --plant_sessions=1";

// Under `bazel run` a relative --out_dir, --reuse or --noise is the user's folder.
TEST(NoiseStudy, UnderBazelRunRelativeFoldersAreTheCallers) {
  const std::string caller = test_files::ScratchDir("caller");
  const std::string env = "BUILD_WORKING_DIRECTORY=" + caller + " ";
  Proc p = Exec(env + g_study + " " + g_noop + kTiny + " --part=aa --out_dir=study");
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_TRUE(fs::exists(caller + "/study/noise_study.json")) << p.output;
  EXPECT_FALSE(fs::exists("study")) << "written beside the binary, in its runfiles";
  p = Exec(env + g_study + " " + g_noop + kTiny + " --part=aa --reuse=study");
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("0 to run, 2 reused"), std::string::npos) << p.output;
  p = Exec(env + g_study + " " + g_noop + kTiny + " --part=aa --reuse=study --noise=none.json");
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find(caller + "/none.json"), std::string::npos) << p.output;
}

TEST(NoiseStudy, ATinyStudyWritesItsRatesAndResumes) {
  const std::string dir = FreshPath("tiny");
  Proc p = Exec(g_study + " " + g_noop + kTiny + " --out_dir=" + dir);
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("noise study: 3 sessions (2 A/A, 1 planted) of 1 tricks x 1 processes"),
            std::string::npos)
      << p.output;
  EXPECT_NE(p.output.find("3 to run, 0 reused; estimated "), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("pooled false alarms: "), std::string::npos) << p.output;
  for (const char* s : {"aa-1", "aa-2", "plant-1.50-1"}) {
    EXPECT_TRUE(fs::exists(dir + "/" + s + "/report.json")) << s;
  }
  // The sessions after the first time its iteration counts: every pair like for like.
  EXPECT_EQ(results::ReadResultFile(dir + "/aa-1/noop.p1.json").trickbench.settings.iterations_from,
            "");
  for (const char* s : {"aa-2", "plant-1.50-1"}) {
    EXPECT_EQ(results::ReadResultFile(dir + "/" + s + "/noop.p1.json")
                  .trickbench.settings.iterations_from,
              fs::canonical(dir).string() + "/aa-1/noop.p1.json")
        << s;
  }
  const results::Json j = results::ReadJsonFile(dir + "/noise_study.json");
  EXPECT_EQ(j["kind"], "trickbench-noise-study");
  EXPECT_EQ(j["aa_sessions"], 2);
  EXPECT_EQ(j["aa_comparisons"], 1);
  EXPECT_EQ(j["planted_sessions"]["1.50"], 1);
  // noop has one non-baseline variant: one setting, compared once A/A and against
  // each of the 2 A/A sessions when planted.
  ASSERT_EQ(j["settings"].size(), 1u) << j.dump(2);
  const results::Json& b = j["settings"][0];
  EXPECT_EQ(b["trick"], "noop");
  EXPECT_EQ(b["variant"], "optimized");
  EXPECT_EQ(b["false_alarms"]["comparisons"], 1);
  EXPECT_TRUE(b["false_alarms"]["rate"].is_number());
  EXPECT_TRUE(b["false_alarms"]["upper_95"].is_number());
  ASSERT_EQ(b["detected"].size(), 1u);
  EXPECT_EQ(b["detected"][0]["factor"], 1.5);
  EXPECT_EQ(b["detected"][0]["comparisons"], 2);
  EXPECT_EQ(j["pooled_false_alarms"]["comparisons"], 1);
  ASSERT_EQ(j["detection"].size(), 1u);
  EXPECT_EQ(j["detection"][0]["mde_within"]["comparisons"].get<int>() +
                j["detection"][0]["mde_beyond"]["comparisons"].get<int>(),
            2);
  // The table, through the document model: in the output and in noise_study.md/.html.
  EXPECT_NE(
      p.output.find("| setting | A/A false alarms | MDE | between sessions | detected x1.50 |"),
      std::string::npos)
      << p.output;
  // Two A/A sessions are too few to say how sessions vary: said, not guessed.
  EXPECT_TRUE(b["between_sessions"].is_null());
  EXPECT_NE(p.output.find("| noop/optimized | "), std::string::npos) << p.output;
  for (const char* f : {"/noise_study.md", "/noise_study.html"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + f)) << f;
  }
  // The planted session really forwarded the plant.
  const results::Json index = results::ReadJsonFile(dir + "/plant-1.50-1/index.json");
  EXPECT_NE(index["forwarded_flags"].dump().find("--plant_slowdown=all:1.50"), std::string::npos)
      << index["forwarded_flags"].dump();

  // Resumed: nothing to run, the same comparisons.
  p = Exec(g_study + " " + g_noop + kTiny + " --reuse=" + dir);
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("0 to run, 3 reused"), std::string::npos) << p.output;
  EXPECT_EQ(p.output.find("session aa-1"), std::string::npos) << p.output;
  EXPECT_EQ(results::ReadJsonFile(dir + "/noise_study.json")["settings"], j["settings"]);

  // With another study's session parts (compare --noise's), the same sessions are
  // compared with them added, and the study says so.
  results::Json parts = {{"kind", "trickbench-noise-study"},
                         {"schema_version", 2},
                         {"settings",
                          {{{"trick", "noop"},
                            {"case", b["case"]},
                            {"variant", "optimized"},
                            {"between_sessions", {{"sessions", 12}, {"between_sd", 0.5}}}}}}};
  const std::string parts_path = FreshPath("parts.json");
  test_files::Write(parts_path, parts.dump());
  p = Exec(g_study + " " + g_noop + kTiny + " --reuse=" + dir + " --noise=" + parts_path);
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("Compared as compare --noise=" + parts_path), std::string::npos)
      << p.output;
  const results::Json with_parts = results::ReadJsonFile(dir + "/noise_study.json");
  EXPECT_EQ(with_parts["noise"], parts_path);
  EXPECT_EQ(with_parts["pooled_false_alarms"]["comparisons"], 1);
  // A part of sd 0.5 on both sides: compare can only see far larger changes.
  EXPECT_GT(with_parts["settings"][0]["mde"].get<double>(), 1.0) << with_parts.dump(2);

  // The same folder with other settings is another study: refused, nothing run.
  std::string other = kTiny;
  other.replace(other.find("--rounds=3"), 10, "--rounds=4");
  p = Exec(g_study + " " + g_noop + other + " --reuse=" + dir);
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("aa-1 holds another session"), std::string::npos) << p.output;
  // A fresh --out_dir must be empty.
  p = Exec(g_study + " " + g_noop + kTiny + " --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("is not empty (to resume a study there: --reuse="), std::string::npos)
      << p.output;
}

// Without --processes every session spends run_all's budget, as a default run does; a
// study folder is resumed only with the same budget.
TEST(NoiseStudy, BudgetedSessionsAreResumedOnlyUnderTheSameBudget) {
  const std::string dir = FreshPath("budgeted");
  const std::string budgeted =
      " --tricks=noop --sessions=2 --rounds=3 --min_time=0.001"
      " --plants=1.5 --plant_sessions=1 --part=aa --budget=4";
  Proc p = Exec(g_study + " " + g_noop + budgeted + " --out_dir=" + dir);
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("of 1 tricks under a budget of 0.1 min"), std::string::npos) << p.output;
  const results::RunIndex index = results::ReadRunIndex(dir + "/aa-1/index.json");
  ASSERT_TRUE(index.budget.has_value());
  EXPECT_EQ(index.budget->seconds, 4);
  p = Exec(g_study + " " + g_noop + budgeted + " --reuse=" + dir + " --dry_run");
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("0 to run, 2 reused"), std::string::npos) << p.output;
  for (const std::string& other : {std::string(" --budget=5"), std::string(" --processes=1")}) {
    const std::string flags = budgeted.substr(0, budgeted.find(" --budget=4")) + other;
    p = Exec(g_study + " " + g_noop + flags + " --reuse=" + dir + " --dry_run");
    EXPECT_EQ(p.exit_code, 2) << other << "\n" << p.output;
    EXPECT_NE(p.output.find("aa-1 holds another session (budget --budget"), std::string::npos)
        << other << "\n"
        << p.output;
  }
}

// Sessions fork their trick processes as run_all does by default; --exec reaches every
// session's run_all, and sessions of exec'd processes are another study than sessions of
// forked ones: a folder of one is not resumed as the other.
TEST(NoiseStudy, ExecdSessionsAreExecdAndAnotherStudy) {
  const std::string dir = FreshPath("execd");
  const std::string aa =
      " --tricks=noop --sessions=2 --processes=1 --rounds=3 --min_time=0.001"
      " --part=aa";
  Proc p = Exec(g_study + " " + g_noop + aa + " --exec --out_dir=" + dir);
  ASSERT_EQ(p.exit_code, 0) << p.output;
  const results::RunIndex index = results::ReadRunIndex(dir + "/aa-1/index.json");
  ASSERT_FALSE(index.tricks.empty());
  for (const auto& t : index.tricks) EXPECT_FALSE(t.forked) << t.id;
  p = Exec(g_study + " " + g_noop + aa + " --exec --reuse=" + dir + " --dry_run");
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("0 to run, 2 reused"), std::string::npos) << p.output;
  p = Exec(g_study + " " + g_noop + aa + " --reuse=" + dir + " --dry_run");
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("aa-1 holds another session (processes 1, flags --rounds=3 "
                          "--min_time=0.001, exec'd, or other tricks)"),
            std::string::npos)
      << p.output;
  // A default session's processes are forked.
  const std::string forked = FreshPath("forked");
  p = Exec(g_study + " " + g_noop + aa + " --out_dir=" + forked);
  ASSERT_EQ(p.exit_code, 0) << p.output;
  for (const auto& t : results::ReadRunIndex(forked + "/aa-1/index.json").tricks) {
    EXPECT_TRUE(t.forked) << t.id;
  }
}

TEST(NoiseStudy, PartsRunApart) {
  const std::string dir = FreshPath("parts");
  Proc p = Exec(g_study + " " + g_noop + kTiny + " --part=planted --reuse=" + dir);
  EXPECT_EQ(p.exit_code, 2) << p.output;  // no such folder yet
  EXPECT_NE(p.output.find("--reuse: " + dir + " is not a study folder"), std::string::npos)
      << p.output;
  fs::create_directories(dir);
  p = Exec(g_study + " " + g_noop + kTiny + " --part=planted --reuse=" + dir);
  EXPECT_EQ(p.exit_code, 2) << p.output;
  EXPECT_NE(p.output.find("--part=planted needs the A/A sessions; not complete in " + dir +
                          ": aa-1, aa-2 (run --part=aa first)"),
            std::string::npos)
      << p.output;
  p = Exec(g_study + " " + g_noop + kTiny + " --part=aa --reuse=" + dir);
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_FALSE(fs::exists(dir + "/plant-1.50-1"));
  EXPECT_TRUE(results::ReadJsonFile(dir + "/noise_study.json")["planted_sessions"].empty());
  p = Exec(g_study + " " + g_noop + kTiny + " --part=planted --reuse=" + dir);
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("1 to run, 2 reused"), std::string::npos) << p.output;
  EXPECT_EQ(results::ReadJsonFile(dir + "/noise_study.json")["planted_sessions"]["1.50"], 1);
}

TEST(NoiseStudy, BadCommandLinesAreOneLineAndRunNothing) {
  const std::string dir = FreshPath("bad");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {" --tricks=nope", "noise_study: unknown trick 'nope' (known: noop)"},
      {" --tricks=noop --plants=0.9", "bad value for --plants: '0.9' (expected factors above 1"},
      {" --tricks=noop --sessions=1", "bad value for --sessions: '1'"},
      {" --tricks=noop --part=planted", "--part=planted compares against the A/A sessions"},
      {" --tricks=noop --reuse=/x --out_dir=/y", "--reuse and --out_dir name the same thing"},
      {" --tricks=noop --part=some", "bad value for --part: 'some'"},
      {" --tricks=noop --processes=2 --budget=10",
       "--budget is not for sessions of a fixed count (--processes)"},
      {" --tricks=noop --noise=" + dir + "/absent.json",
       "noise_study: --noise: " + dir + "/absent.json: "},
  };
  for (const auto& [flags, message] : cases) {
    const Proc p = Exec(g_study + " " + g_noop + flags + " --dry_run");
    EXPECT_EQ(p.exit_code, 2) << flags << ": " << p.output;
    EXPECT_NE(p.output.find(message), std::string::npos) << flags << ": " << p.output;
  }
  EXPECT_FALSE(fs::exists(dir));
}

TEST(NoiseStudy, HelpSaysWhatItMeasures) {
  const Proc p = Exec(g_study + " --help");
  EXPECT_EQ(p.exit_code, 0);
  for (const char* s : {"--sessions=", "--tricks=", "--plants=", "--plant_sessions=", "--part=",
                        "--reuse=", "--dry_run", "Clopper-Pearson", "minimum detectable effect"}) {
    EXPECT_NE(p.output.find(s), std::string::npos) << s << "\n" << p.output;
  }
}

// The default set names real tricks, and the default study's plan and estimate.
TEST(NoiseStudy, TheDefaultSetIsRealTricks) {
  const std::string dir = FreshPath("default");
  const Proc p = Exec(g_study + " " + g_benches + " --dry_run --out_dir=" + dir);
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("noise study: 16 sessions (12 A/A, 4 planted) of 9 tricks under "
                          "run_all's default budget"),
            std::string::npos)
      << p.output;
  EXPECT_NE(p.output.find("plant-1.10-2: run_all --only="), std::string::npos) << p.output;
  EXPECT_FALSE(fs::exists(dir)) << "a dry run wrote something";
}

}  // namespace
}  // namespace trickbench

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    trickbench::test_files::ArgValue(a, "--noise_study", &trickbench::g_study);
    trickbench::test_files::ArgValue(a, "--noop", &trickbench::g_noop);
    trickbench::test_files::ArgValue(a, "--benches", &trickbench::g_benches);
  }
  // $(rootpaths) gives the rest of the trick binaries as further arguments.
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--", 0) != 0) trickbench::g_benches += " " + a;
  }
  return RUN_ALL_TESTS();
}
