#include "run_all/plan.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>

namespace trickbench {
namespace run_all {
namespace {

std::string Spell(const std::vector<Job>& jobs) {
  std::string out;
  for (const Job& j : jobs) {
    out += (out.empty() ? "" : " ") + std::string(1, static_cast<char>('a' + j.trick)) +
           std::to_string(j.process) + (j.build == Build::kOnly ? "" : RoleName(j.build));
  }
  return out;
}

TEST(RoundRobin, EveryTricksProcessKBeforeAnyProcessKPlusOne) {
  EXPECT_EQ(Spell(RoundRobin(3, 2)), "a1 b1 c1 a2 b2 c2");
  EXPECT_EQ(Spell(RoundRobin(1, 3)), "a1 a2 a3");
  EXPECT_EQ(Spell(RoundRobin(2, 1)), "a1 b1");
  EXPECT_TRUE(RoundRobin(0, 5).empty());
}

TEST(AbbaOrder, EveryProcessOnceForEachBuildPairedBackToBack) {
  const std::vector<Job> jobs = AbbaOrder(3, 5, 7);
  ASSERT_EQ(jobs.size(), 30u);
  const std::vector<Job> pairs = RoundRobin(3, 5);
  std::set<std::tuple<size_t, int, Build>> seen;
  for (size_t i = 0; i < jobs.size(); i += 2) {
    // The pair is RoundRobin's job i/2, once per build.
    EXPECT_EQ(jobs[i].trick, pairs[i / 2].trick);
    EXPECT_EQ(jobs[i].process, pairs[i / 2].process);
    EXPECT_EQ(jobs[i + 1].trick, jobs[i].trick);
    EXPECT_EQ(jobs[i + 1].process, jobs[i].process);
    EXPECT_NE(jobs[i].build, jobs[i + 1].build);
    EXPECT_NE(jobs[i].build, Build::kOnly);
    EXPECT_TRUE(seen.insert({jobs[i].trick, jobs[i].process, jobs[i].build}).second);
  }
}

TEST(AbbaOrder, EachTwoPairsMirrorEachOther) {
  for (uint64_t seed = 0; seed < 50; ++seed) {
    const std::vector<Job> jobs = AbbaOrder(4, 3, seed);
    for (size_t pair = 0; pair + 1 < jobs.size() / 2; pair += 2) {
      EXPECT_EQ(jobs[2 * pair].build, jobs[2 * pair + 3].build) << "seed " << seed;
      EXPECT_EQ(jobs[2 * pair + 1].build, jobs[2 * pair + 2].build) << "seed " << seed;
    }
  }
}

TEST(AbbaOrder, TheSeedFixesTheOrderAndDifferentSeedsDiffer) {
  EXPECT_EQ(Spell(AbbaOrder(5, 4, 123)), Spell(AbbaOrder(5, 4, 123)));
  // Which build leads each block of two pairs is drawn: over seeds, both happen, and
  // the order is not one fixed pattern.
  std::set<std::string> orders;
  std::map<Build, int> leads;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    const std::vector<Job> jobs = AbbaOrder(5, 4, seed);
    orders.insert(Spell(jobs));
    ++leads[jobs[0].build];
  }
  EXPECT_GT(orders.size(), 30u);
  EXPECT_GT(leads[Build::kOld], 5);
  EXPECT_GT(leads[Build::kNew], 5);
  // Fixed by the standard's mt19937_64: the same on every platform and build.
  EXPECT_EQ(Spell(AbbaOrder(2, 2, 1)), Spell(AbbaOrder(2, 2, 1)));
}

TEST(AbbaOrder, AnOddLastPairStillHasBothBuilds) {
  const std::vector<Job> jobs = AbbaOrder(3, 1, 9);
  ASSERT_EQ(jobs.size(), 6u);
  EXPECT_NE(jobs[4].build, jobs[5].build);
  EXPECT_EQ(jobs[4].trick, 2u);
}

TEST(LastOfEach, MarksEachBinarysLastJob) {
  // Round-robin over two tricks' binaries, a b a b.
  EXPECT_EQ(LastOfEach({"a", "b", "a", "b"}), (std::vector<bool>{false, false, true, true}));
  // Uneven waves, as a budget plans them: a gets one more process than b.
  EXPECT_EQ(LastOfEach({"a", "b", "a"}), (std::vector<bool>{false, true, true}));
  // An A/B session of two builds: each build's binary is its own server...
  EXPECT_EQ(LastOfEach({"old/a", "new/a", "new/a", "old/a"}),
            (std::vector<bool>{false, false, true, true}));
  // ... and an A/A session naming one folder twice shares one server to the last job.
  EXPECT_EQ(LastOfEach({"d/a", "d/a", "d/a", "d/a"}),
            (std::vector<bool>{false, false, false, true}));
  EXPECT_TRUE(LastOfEach({}).empty());
}

TEST(RoleName, NamesTheIndexRoles) {
  EXPECT_EQ(RoleName(Build::kOld), "old");
  EXPECT_EQ(RoleName(Build::kNew), "new");
  EXPECT_EQ(RoleName(Build::kOnly), "");
}

}  // namespace
}  // namespace run_all
}  // namespace trickbench
