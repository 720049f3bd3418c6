// Tests for text.hpp: the line cursor, trimming and quoting, multi-line error texts.
#include "budget/text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace budget {
namespace {

TEST(Text, JoinLinesPutsOneNewlineBetweenLines) {
  EXPECT_EQ(JoinLines({}), "");
  EXPECT_EQ(JoinLines({"a"}), "a");
  EXPECT_EQ(JoinLines({"f:1: x", "f:2: y"}), "f:1: x\nf:2: y");
}

TEST(Text, SplitLinesDropsEmptyLines) {
  EXPECT_TRUE(SplitLines("").empty());
  EXPECT_EQ(SplitLines("a\n\nb\n"), (std::vector<std::string>{"a", "b"}));
}

TEST(Text, SplitUndoesJoin) {
  const std::vector<std::string> lines = {"budget.conf:3: Credit: bad", "budget.conf:9: Kind: bad"};
  EXPECT_EQ(SplitLines(JoinLines(lines)), lines);
}

std::vector<std::string> Walk(std::string_view text) {
  std::vector<std::string> seen;
  LineCursor lines(text);
  while (lines.Next()) {
    seen.push_back(std::to_string(lines.number()) + ":" + std::string(lines.line()));
  }
  return seen;
}

TEST(LineCursor, NumbersEveryLineFromOneAndDropsCarriageReturns) {
  EXPECT_EQ(Walk("a\r\n\nb\n"), (std::vector<std::string>{"1:a", "2:", "3:b"}));
}

TEST(LineCursor, ReadsALastLineWithoutItsEnd) {
  EXPECT_EQ(Walk("a\nb"), (std::vector<std::string>{"1:a", "2:b"}));
}

TEST(LineCursor, AnEmptyTextHasNoLine) {
  EXPECT_TRUE(Walk("").empty());
  EXPECT_EQ(Walk("\n"), (std::vector<std::string>{"1:"}));
}

TEST(Text, TrimDropsSpacesAndTabsAtBothEndsOnly) {
  EXPECT_EQ(Trim(" \ta b\t "), "a b");
  EXPECT_EQ(Trim(" \t "), "");
  EXPECT_EQ(Trim(""), "");
}

TEST(Text, LowerLowersAsciiLettersOnly) {
  EXPECT_EQ(Lower("StateSaveLocation=/Var"), "statesavelocation=/var");
  EXPECT_EQ(Lower("\xc3\x89t\xc3\xa9"), "\xc3\x89t\xc3\xa9");  // bytes past ASCII unchanged
  EXPECT_EQ(Lower(""), "");
}

TEST(Text, EqualsIgnoreCaseComparesAsciiCaseBlind) {
  EXPECT_TRUE(EqualsIgnoreCase("PartitionName", "partitionname"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("Project", "Projects"));
  EXPECT_FALSE(EqualsIgnoreCase("[", "{"));  // '[' + 32 is '{': not a letter
}

TEST(Text, QuotedWrapsInDoubleQuotes) {
  EXPECT_EQ(Quoted("-5"), "\"-5\"");
  EXPECT_EQ(Quoted(""), "\"\"");
}

}  // namespace
}  // namespace budget
