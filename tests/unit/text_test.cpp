// Tests for text.hpp: joining and splitting multi-line error texts.
#include "budget/text.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace budget
