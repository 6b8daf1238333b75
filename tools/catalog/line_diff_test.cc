#include "tools/catalog/line_diff.h"

#include <gtest/gtest.h>

namespace trickbench {
namespace {

TEST(SplitLines, KeepsTheEmptyLineAfterAFinalNewline) {
  EXPECT_EQ(SplitLines(""), std::vector<std::string>({""}));
  EXPECT_EQ(SplitLines("a"), std::vector<std::string>({"a"}));
  EXPECT_EQ(SplitLines("a\n"), std::vector<std::string>({"a", ""}));
  EXPECT_EQ(SplitLines("a\n\nb"), std::vector<std::string>({"a", "", "b"}));
}

TEST(FirstDifferingLine, EqualTextsHaveNone) {
  EXPECT_FALSE(FirstDifferingLine("a\nb\n", "a\nb\n"));
  EXPECT_FALSE(FirstDifferingLine("", ""));
}

TEST(FirstDifferingLine, NamesTheFirstChangedLineAndBothVersions) {
  const auto d = FirstDifferingLine("a\nb\nc\n", "a\nB\nC\n");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->line, 2);
  EXPECT_EQ(d->expected, "b");
  EXPECT_EQ(d->actual, "B");
}

TEST(FirstDifferingLine, AMissingOrExtraLineIsTheEndOfTheShorterText) {
  auto d = FirstDifferingLine(std::vector<std::string>{"a"}, std::vector<std::string>{"a", "b"});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->line, 2);
  EXPECT_EQ(d->expected, "(end of text)");
  EXPECT_EQ(d->actual, "b");

  d = FirstDifferingLine("a\nb\n", "a\n");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->line, 2);
  EXPECT_EQ(d->expected, "b");
  EXPECT_EQ(d->actual, "");
}

TEST(FirstDifferingLine, AMissingFinalNewlineIsADifference) {
  const auto d = FirstDifferingLine("a\n", "a");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->line, 2);
  EXPECT_EQ(d->expected, "");
  EXPECT_EQ(d->actual, "(end of text)");
}

TEST(LineDifference, DescribeAlignsTheTwoVersions) {
  const LineDifference d{12, "old text", "new text"};
  EXPECT_EQ(d.Describe("checked in", "generated"),
            "line 12 differs:\n"
            "  checked in: old text\n"
            "  generated:  new text\n");
}

}  // namespace
}  // namespace trickbench
