// run_all --ab (two builds' processes interleaved in one session) and
// --iterations_from=RUN_DIR (another run's iteration counts), as a user meets them:
// stand-in and real test tricks, real processes and files.
#include <algorithm>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "results/result_file.h"
#include "results/run_index.h"
#include "results/status.h"
#include "run_all/cli_test_util.h"

namespace trickbench {
namespace run_all_test {
namespace {

namespace fs = std::filesystem;

// Fake trick binaries for an A/B session: each appends "<build> <id> <process>" to
// `order_file` and fails (no result), which is enough to see what ran when.
std::string FakeBuild(const std::string& name, const std::string& order_file,
                      const std::vector<std::string>& ids) {
  const std::string dir = Tmp(name);
  for (const auto& id : ids) {
    Script(dir, id,
           "for a in \"$@\"; do case \"$a\" in --process=*) k=${a#--process=};; esac; done\n"
           "echo \"" +
               name + " " + id + " $k\" >> " + order_file + "\nexit 1");
  }
  return dir;
}

TEST(RunAll, AbSessionInterleavesTheBuildsInTheSeedsAbbaOrderAndRecordsIt) {
  const std::string order_file = Tmp("ab_order") + "/order";
  // "c" only in the old build: not run.
  const std::string old_dir = FakeBuild("old", order_file, {"a", "b", "c"});
  const std::string new_dir = FakeBuild("new", order_file, {"a", "b"});
  auto session = [&](const std::string& dir, const std::string& seed_flag) {
    std::remove(order_file.c_str());
    // --exec: the fake builds are shell scripts, which serve no forks (run as a server
    // each would log a line, exit, and leave its processes to exec anyway).
    const Proc p = Exec(g_run_all + " --ab=" + old_dir + "," + new_dir + " --processes=3 --exec" +
                        seed_flag + " --out_dir=" + dir);
    EXPECT_EQ(p.exit_code, 1) << p.output;  // every fake trick fails
    return p;
  };
  const std::string dir = Tmp("ab_run");
  const Proc p = session(dir, "");
  const results::RunIndex old_index = results::ReadRunIndex(dir + "/old/index.json");
  const results::RunIndex new_index = results::ReadRunIndex(dir + "/new/index.json");
  ASSERT_TRUE(old_index.ab.has_value());
  ASSERT_TRUE(new_index.ab.has_value());
  EXPECT_EQ(old_index.ab->role, "old");
  EXPECT_EQ(new_index.ab->role, "new");
  EXPECT_EQ(old_index.ab->seed, new_index.ab->seed);
  EXPECT_EQ(old_index.ab->order, new_index.ab->order);
  EXPECT_EQ(old_index.ab->old_bin_dir, fs::absolute(old_dir).string());
  EXPECT_EQ(old_index.ab->new_bin_dir, fs::absolute(new_dir).string());
  EXPECT_NE(p.output.find("A/B order seed " + std::to_string(old_index.ab->seed)),
            std::string::npos)
      << p.output;
  // Each side: every trick in both builds, 3 processes, round-robin, its own files.
  for (const auto* index : {&old_index, &new_index}) {
    EXPECT_TRUE(index->complete);
    EXPECT_EQ(Processes(*index),
              (std::vector<std::string>{"a.p1", "b.p1", "a.p2", "b.p2", "a.p3", "b.p3"}));
    EXPECT_EQ(index->processes, 3);
  }
  EXPECT_TRUE(fs::exists(dir + "/old/a.p2.log"));
  EXPECT_TRUE(fs::exists(dir + "/new/b.p3.log"));
  // What ran, in order: pairs of one trick process, the builds as ab.order says, ABBA.
  const std::vector<std::string> ran = Lines(order_file);
  ASSERT_EQ(ran.size(), 12u);
  ASSERT_EQ(old_index.ab->order.size(), 12u);
  const std::vector<std::string> pairs = {"a 1", "b 1", "a 2", "b 2", "a 3", "b 3"};
  for (size_t i = 0; i < ran.size(); ++i) {
    EXPECT_EQ(ran[i], old_index.ab->order[i] + " " + pairs[i / 2]) << i;
    if (i % 4 < 2) {  // ABBA: the first pair of each two is mirrored by the second
      EXPECT_EQ(old_index.ab->order[i], old_index.ab->order[i + 3 - 2 * (i % 4)]) << i;
    }
  }
  // The recorded seed replays the order.
  const std::string again = Tmp("ab_again");
  session(again, " --ab_seed=" + std::to_string(old_index.ab->seed));
  EXPECT_EQ(Lines(order_file), ran);
  EXPECT_EQ(results::ReadRunIndex(again + "/new/index.json").ab->order, old_index.ab->order);
}

// A run timed with another run's iteration counts (its process 1's): every process,
// its own process 1 included, times them and records where they came from.
TEST(RunAll, IterationsFromAnotherRunAreTimedByEveryProcess) {
  const std::string first = Tmp("pin_first"), second = Tmp("pin_second");
  const std::string cmd = g_run_all + " " + g_tricks["noop"] + " --processes=2 --min_time=0.001";
  ASSERT_EQ(Exec(cmd + " --out_dir=" + first).exit_code, 0);
  const Proc p = Exec(cmd + " --out_dir=" + second + " --iterations_from=" + first);
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("run_all: 1 of 1 tricks timed with the iterations per sample of " +
                          first + " (its process 1s)"),
            std::string::npos)
      << p.output;
  const std::string pinned = fs::canonical(first).string() + "/noop.p1.json";
  const auto counts = results::ReadResultFile(pinned).trickbench.rounds.at(0).iterations;
  for (const char* stem : {"/noop.p1.json", "/noop.p2.json"}) {
    const results::ResultFile r = results::ReadResultFile(second + stem);
    EXPECT_EQ(r.trickbench.settings.iterations_from, pinned) << stem;
    EXPECT_EQ(r.trickbench.rounds.at(0).iterations, counts) << stem;
  }
  // A run whose process 1 file is of another trick: the trick refuses it, and the run
  // stops saying where to look.
  const std::string wrong = Tmp("pin_wrong");
  fs::copy_file(first + "/index.json", wrong + "/index.json");
  std::string text = Read(pinned);
  const std::string id = "\"id\": \"noop\"";
  ASSERT_NE(text.find(id), std::string::npos);
  text.replace(text.find(id), id.size(), "\"id\": \"other\"");
  std::ofstream(wrong + "/noop.p1.json") << text;
  const Proc refused =
      Exec(cmd + " --out_dir=" + Tmp("pin_refused") + " --iterations_from=" + wrong);
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find("run_all: noop rejected the forwarded flags or --iterations_from=" +
                                fs::canonical(wrong).string() + "/noop.p1.json; stopping"),
            std::string::npos)
      << refused.output;
  const Proc settle = Exec(g_run_all + " " + g_tricks["noop"] + " --settle=" + second +
                           " --iterations_from=" + first);
  EXPECT_EQ(settle.exit_code, 2) << settle.output;
  EXPECT_NE(settle.output.find("--settle adds to an existing run folder: not with "
                               "--iterations_from"),
            std::string::npos)
      << settle.output;
}

TEST(RunAll, AbSessionWithRealTricksWritesTwoCompleteRunFolders) {
  const std::string old_dir = Tmp("ab_real_old"), new_dir = Tmp("ab_real_new");
  for (const auto& d : {old_dir, new_dir})
    fs::create_symlink(fs::absolute(g_tricks["noop"]), d + "/noop");
  const std::string dir = Tmp("ab_real");
  const Proc p = Exec(g_run_all + " --ab=" + old_dir + "," + new_dir +
                      " --processes=2 --ab_seed=5 --min_time=0.001 --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 0) << p.output;
  for (const char* side : {"old", "new"}) {
    const std::string sub = dir + "/" + side;
    const results::RunIndex index = results::ReadRunIndex(sub + "/index.json");
    EXPECT_EQ(index.ab->seed, 5);
    EXPECT_EQ(index.out_dir, fs::canonical(sub).string());
    EXPECT_EQ(Processes(index), (std::vector<std::string>{"noop.p1", "noop.p2"}));
    for (const char* f : {"/noop.p1.json", "/noop.p2.json", "/report.json", "/report.md"}) {
      EXPECT_TRUE(fs::exists(sub + f)) << sub + f;
    }
    // Each build's later processes time the counts of its own process 1.
    EXPECT_EQ(results::ReadResultFile(sub + "/noop.p2.json").trickbench.settings.iterations_from,
              fs::canonical(sub).string() + "/noop.p1.json");
  }
  // The process 1 that ran second timed the other build's counts: like for like.
  const std::vector<std::string> order = results::ReadRunIndex(dir + "/old/index.json").ab->order;
  ASSERT_FALSE(order.empty());
  const std::string first = order.front(), second = first == "old" ? "new" : "old";
  const results::TrickResult p1_first =
      results::ReadResultFile(dir + "/" + first + "/noop.p1.json").trickbench;
  const results::TrickResult p1_second =
      results::ReadResultFile(dir + "/" + second + "/noop.p1.json").trickbench;
  EXPECT_EQ(p1_first.settings.iterations_from, "");
  EXPECT_EQ(p1_second.settings.iterations_from,
            fs::canonical(dir + "/" + first).string() + "/noop.p1.json");
  ASSERT_EQ(p1_first.rounds.size(), 1u);
  ASSERT_EQ(p1_second.rounds.size(), 1u);
  EXPECT_EQ(p1_second.rounds[0].iterations, p1_first.rounds[0].iterations);
  EXPECT_NE(p.output.find("compare them: bazel run //reports:compare -- "), std::string::npos)
      << p.output;
}

TEST(RunAll, AbSessionBuildWhoseVariantsDifferCalibratesItsOwn) {
  const std::string old_dir = Tmp("ab_renamed_old"), new_dir = Tmp("ab_renamed_new");
  fs::create_symlink(fs::absolute(g_tricks["noop"]), old_dir + "/noop");
  fs::create_symlink(fs::absolute(g_tricks["noop_renamed"]), new_dir + "/noop");
  const std::string dir = Tmp("ab_renamed");
  const Proc p = Exec(g_run_all + " --ab=" + old_dir + "," + new_dir +
                      " --processes=2 --ab_seed=5 --min_time=0.001 --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 0) << p.output;
  const std::vector<std::string> order = results::ReadRunIndex(dir + "/old/index.json").ab->order;
  ASSERT_FALSE(order.empty());
  const std::string first = order.front(), second = first == "old" ? "new" : "old";
  // The second process 1 refused the first's counts (the variants differ), said so with
  // the refusal's own reason, and calibrated its own; its later process times them.
  const size_t said =
      p.output.find("(refused the " + first + " build's iteration counts, calibrated its own: ");
  ASSERT_NE(said, std::string::npos) << p.output;
  EXPECT_NE(p.output.find("its variants differ from this binary's)", said), std::string::npos)
      << p.output;
  const std::string sub = dir + "/" + second;
  EXPECT_EQ(results::ReadResultFile(sub + "/noop.p1.json").trickbench.settings.iterations_from, "");
  EXPECT_EQ(results::ReadResultFile(sub + "/noop.p2.json").trickbench.settings.iterations_from,
            fs::canonical(sub).string() + "/noop.p1.json");
  for (const char* side : {"old", "new"}) {
    for (const auto& e : results::ReadRunIndex(dir + "/" + side + "/index.json").tricks) {
      EXPECT_EQ(e.outcome, results::RunOutcome::kOk)
          << side << " p" << e.process << ": " << e.reason;
    }
  }
}

// A binary that serves no forks (a script here; an older trick build would refuse
// --serve alike) gets exec'd processes, each with a note, and the index says so.
TEST(RunAll, ABinaryThatServesNoForksIsExecd) {
  const std::string order_file = Tmp("no_serve") + "/order";
  const std::string bin = FakeBuild("plain", order_file, {"a"});
  const std::string dir = Tmp("no_serve_run");
  const Proc p = Exec(g_run_all + " " + bin + "/a --processes=2 --out_dir=" + dir);
  EXPECT_EQ(p.exit_code, 1) << p.output;  // the fake trick fails
  EXPECT_NE(p.output.find("a exec'd, not forked: the fork server exited"), std::string::npos)
      << p.output;
  const results::RunIndex index = results::ReadRunIndex(dir + "/index.json");
  ASSERT_EQ(index.tricks.size(), 2u);
  for (const auto& t : index.tricks) EXPECT_FALSE(t.forked);
  // Both processes ran, exec'd, with their own --process.
  const std::vector<std::string> ran = Lines(order_file);
  EXPECT_NE(std::find(ran.begin(), ran.end(), "plain a 1"), ran.end());
  EXPECT_NE(std::find(ran.begin(), ran.end(), "plain a 2"), ran.end());
}

TEST(RunAll, AbSessionBadFoldersAreNamed) {
  const std::string empty = Tmp("ab_empty"), other = Tmp("ab_other");
  Proc p = Exec(g_run_all + " --ab=" + empty + "," + other);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.output.find("run_all: --ab: no trick binary is in both " + empty + " and " + other),
            std::string::npos)
      << p.output;
  p = Exec(g_run_all + " --ab=/nonexistent," + other);
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.output.find("run_all: --ab: /nonexistent is not a folder of trick binaries"),
            std::string::npos)
      << p.output;
}

}  // namespace
}  // namespace run_all_test
}  // namespace trickbench

int main(int argc, char** argv) { return trickbench::run_all_test::Main(argc, argv); }
