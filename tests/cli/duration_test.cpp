// Tests of the command line's durations (src/cli/duration.hpp).
#include "duration.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>

#include "cli_error.hpp"

namespace budget::cli {
namespace {

constexpr std::int64_t kDay = 86400;

TEST(ParseDuration, ReadsSlurmsTimeForms) {
  EXPECT_EQ(ParseDuration("7-0", 1), 7 * kDay);
  EXPECT_EQ(ParseDuration("7-00:00:00", 1), 7 * kDay);  // scontrol show config
  EXPECT_EQ(ParseDuration("1-2", 1), kDay + 2 * 3600);
  EXPECT_EQ(ParseDuration("1-2:3", 1), kDay + 2 * 3600 + 3 * 60);  // after a day: H:M
  EXPECT_EQ(ParseDuration("1-2:3:4", 1), kDay + 2 * 3600 + 3 * 60 + 4);
  EXPECT_EQ(ParseDuration("2:3:4", 1), 2 * 3600 + 3 * 60 + 4);
  EXPECT_EQ(ParseDuration("5:00", 1), 5 * 60);  // without a day: M:S, as Slurm reads it
  EXPECT_EQ(ParseDuration("0-0", kDay), 0);
}

TEST(ParseDuration, ReadsAUnit) {
  EXPECT_EQ(ParseDuration("90s", kDay), 90);
  EXPECT_EQ(ParseDuration("30m", kDay), 30 * 60);
  EXPECT_EQ(ParseDuration("12h", kDay), 12 * 3600);
  EXPECT_EQ(ParseDuration("14d", 1), 14 * kDay);
  EXPECT_EQ(ParseDuration("0d", 1), 0);
}

TEST(ParseDuration, ReadsABareNumberInTheOptionsUnit) {
  EXPECT_EQ(ParseDuration("604800", 1), 7 * kDay);
  EXPECT_EQ(ParseDuration("7", kDay), 7 * kDay);
  EXPECT_EQ(ParseDuration("0", kDay), 0);
}

TEST(ParseDuration, RefusesAnythingElse) {
  for (const char* text : {"",
                           "-7",
                           "+7",
                           " 7",
                           "7 ",
                           "7.5",
                           "7x",
                           "7dd",
                           "d",
                           "7-",
                           "-0",
                           "7-0-0",
                           "1-2:3:4:5",
                           "1:2:3:4",
                           "5:",
                           ":5",
                           "1::2",
                           "7-1h",
                           "0x10",
                           "99999999999999999999",
                           "106751991167301d"}) {
    EXPECT_EQ(ParseDuration(text, kDay), std::nullopt) << '"' << text << '"';
  }
}

TEST(ParseDuration, RefusesWhatOverflowsInSeconds) {
  EXPECT_EQ(ParseDuration("106751991167300d", 1), std::int64_t{106751991167300} * kDay);
  EXPECT_EQ(ParseDuration("106751991167301", kDay), std::nullopt);
  EXPECT_EQ(ParseDuration("106751991167301-0", 1), std::nullopt);
}

TEST(ParseDurationOption, NamesTheOptionItsFormsAndTheText) {
  EXPECT_EQ(ParseDurationOption("7-0", 1, "--half-life", "seconds"), 7 * kDay);
  try {
    ParseDurationOption("7x", kDay, "--half-life", "days");
    FAIL() << "no error";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(),
                 "--half-life: expected a duration (7-0, 14d, 12h, 90s, or a whole number of "
                 "days), got \"7x\"");
  }
}

}  // namespace
}  // namespace budget::cli
