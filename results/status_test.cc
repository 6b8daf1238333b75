#include "results/status.h"

#include <gtest/gtest.h>

#include <set>

namespace trickbench {
namespace results {
namespace {

TEST(ResultStatus, NamesAreTheJsonValuesAndParseBack) {
  std::set<std::string> names;
  for (ResultStatus s : AllResultStatuses()) {
    EXPECT_EQ(ParseResultStatus(Name(s)), s) << Name(s);
    names.insert(Name(s));
  }
  EXPECT_EQ(names, (std::set<std::string>{"ok", "skipped", "checked", "invalid", "error"}));
}

TEST(ResultStatus, UnknownNamesAreRefused) {
  EXPECT_FALSE(ParseResultStatus("OK").has_value());
  EXPECT_FALSE(ParseResultStatus("").has_value());
  EXPECT_FALSE(ParseResultStatus("crashed").has_value());  // an outcome, not a status
}

TEST(RunOutcome, NamesAreTheJsonValuesAndParseBack) {
  std::set<std::string> names;
  for (RunOutcome o : AllRunOutcomes()) {
    EXPECT_EQ(ParseRunOutcome(Name(o)), o) << Name(o);
    names.insert(Name(o));
  }
  EXPECT_EQ(names, (std::set<std::string>{"ok", "skipped", "invalid", "error", "crashed", "timeout",
                                          "failed", "interrupted"}));
  EXPECT_FALSE(ParseRunOutcome("exploded").has_value());
  EXPECT_FALSE(ParseRunOutcome("checked").has_value());  // a status, never an outcome
}

TEST(RunOutcome, OfAStatusCountsCheckedAsOk) {
  EXPECT_EQ(OutcomeOf(ResultStatus::kOk), RunOutcome::kOk);
  EXPECT_EQ(OutcomeOf(ResultStatus::kChecked), RunOutcome::kOk);
  EXPECT_EQ(OutcomeOf(ResultStatus::kSkipped), RunOutcome::kSkipped);
  EXPECT_EQ(OutcomeOf(ResultStatus::kInvalid), RunOutcome::kInvalid);
  EXPECT_EQ(OutcomeOf(ResultStatus::kError), RunOutcome::kError);
}

TEST(ExitStatus, AreDistinct) {
  EXPECT_EQ((std::set<int>{kExitOk, kExitError, kExitUsage, kExitInvalid}).size(), 4u);
  EXPECT_EQ(kExitUsage, 2);    // README: 2 bad command line
  EXPECT_EQ(kExitInvalid, 3);  // README: 3 invalid
}

}  // namespace
}  // namespace results
}  // namespace trickbench
