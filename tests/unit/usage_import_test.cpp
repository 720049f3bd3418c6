// Tests of the usage-import file: parsing, every error with its line, and applying it
// (usage_import.hpp).
#include "budget/usage_import.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace budget {
namespace {

// Small project created 15 March 2026: preparatory until 1 April, months
// April (1) .. September (6).
ProjectTerms SmallProject(std::string account) {
  Result<ProjectCalendar> calendar = ProjectCalendar::Small(CivilDate{2026, 3, 15}, std::nullopt);
  EXPECT_TRUE(calendar.ok());
  return ProjectTerms{std::move(account), GpuHours(6'000), calendar.value()};
}

std::vector<UsageImportRow> MustParse(std::string_view text) {
  Result<std::vector<UsageImportRow>> rows = ParseUsageImport(text, "usage.csv");
  EXPECT_TRUE(rows.ok()) << rows.error();
  return rows.ok() ? rows.value() : std::vector<UsageImportRow>{};
}

std::string ParseError(std::string_view text) {
  Result<std::vector<UsageImportRow>> rows = ParseUsageImport(text, "usage.csv");
  EXPECT_FALSE(rows.ok());
  return rows.ok() ? std::string() : rows.error();
}

TEST(ParseUsageImport, ReadsAValidFile) {
  const std::vector<UsageImportRow> rows = MustParse(
      "# usage of chem before the plugin was deployed\n"
      "account,user,month,partition,gpu_hours\n"
      "\n"
      "chem,alice,2026-04,budgeted,750\n"
      "chem,bob,2026-05,low,12.25   # a comment after a row\n"
      "  bio , carol , 2026-03 , budgeted , 0.5  \n"
      "bio,dave,2026-06,budgeted,0\n");
  ASSERT_EQ(rows.size(), 4U);
  EXPECT_EQ(rows[0].file, "usage.csv");
  EXPECT_EQ(rows[0].line, 4);
  EXPECT_EQ(rows[0].account, "chem");
  EXPECT_EQ(rows[0].user, "alice");
  EXPECT_EQ(rows[0].month, (CivilDate{2026, 4, 1}));
  EXPECT_EQ(rows[0].role, PartitionRole::kBudgeted);
  EXPECT_EQ(rows[0].amount, GpuHours(750));
  EXPECT_EQ(rows[1].line, 5);
  EXPECT_EQ(rows[1].role, PartitionRole::kLow);
  EXPECT_EQ(rows[1].amount, GpuHours(12) + 900);
  EXPECT_EQ(rows[2].account, "bio");
  EXPECT_EQ(rows[2].user, "carol");
  EXPECT_EQ(rows[2].month, (CivilDate{2026, 3, 1}));
  EXPECT_EQ(rows[2].amount, 1'800);
  EXPECT_EQ(rows[3].amount, 0);
}

TEST(ParseUsageImport, AcceptsCrLfByteOrderMarkAndHeaderCase) {
  const std::vector<UsageImportRow> rows = MustParse(
      "\xEF\xBB\xBF"
      "Account, User ,MONTH,partition,GPU_Hours\r\n"
      "chem,alice,2026-04,budgeted,1\r\n");
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].amount, GpuHours(1));
  EXPECT_EQ(rows[0].line, 2);
}

TEST(ParseUsageImport, HeaderOnlyIsEmpty) {
  EXPECT_TRUE(MustParse("account,user,month,partition,gpu_hours\n").empty());
  EXPECT_TRUE(MustParse("account,user,month,partition,gpu_hours").empty());
}

TEST(ParseUsageImport, RoundsToTheNearestGpuSecondHalvesUp) {
  const std::vector<UsageImportRow> rows = MustParse(
      "account,user,month,partition,gpu_hours\n"
      "chem,a,2026-04,budgeted,0.0001\n"
      "chem,b,2026-04,budgeted,0.000139\n"
      "chem,c,2026-04,budgeted,0.001\n"
      "chem,d,2026-04,budgeted,1.01\n"
      "chem,e,2026-04,budgeted,0.000625\n"
      "chem,f,2026-04,budgeted,0.0025\n"
      "chem,g,2026-04,budgeted,0.000125\n"
      "chem,h,2026-04,budgeted,0.000063\n"
      "chem,i,2026-04,budgeted,0.00125\n"
      "chem,j,2026-04,budgeted,0.00375\n");
  ASSERT_EQ(rows.size(), 10U);
  EXPECT_EQ(rows[0].amount, 0);      // 0.36
  EXPECT_EQ(rows[1].amount, 1);      // 0.5004
  EXPECT_EQ(rows[2].amount, 4);      // 3.6
  EXPECT_EQ(rows[3].amount, 3'636);  // exact
  EXPECT_EQ(rows[4].amount, 2);      // 2.25
  EXPECT_EQ(rows[5].amount, 9);      // exact
  EXPECT_EQ(rows[6].amount, 0);      // 0.45
  EXPECT_EQ(rows[7].amount, 0);      // 0.2268
  EXPECT_EQ(rows[8].amount, 5);      // 4.5, a half: up
  EXPECT_EQ(rows[9].amount, 14);     // 13.5, a half: up
}

TEST(ParseUsageImport, ReportsEveryErrorWithItsLine) {
  const std::string error = ParseError(
      "account,user,month,partition,gpu_hours\n"
      "chem,alice,2026-04,budgeted,750\n"
      "chem,alice,2026-13,budgeted,1\n"
      "chem,alice,2026-4,budgeted,1\n"
      "chem,alice,April,budgeted,1\n"
      "chem,alice,2026-05,normal,1\n"
      "chem,alice,2026-05,budgeted,-5\n"
      "chem,alice,2026-05,budgeted,1e3\n"
      "chem,alice,2026-05,budgeted,\n"
      "chem,alice,2026-05,budgeted,1.\n"
      "chem,alice,2026-05,budgeted,.5\n"
      "chem,alice,2026-05,budgeted,0.1234567\n"
      "chem,alice,2026-05,budgeted,99999999999999999999\n"
      ",alice,2026-05,budgeted,1\n"
      "chem,,2026-05,budgeted,1\n"
      "chem,al ice,2026-05,budgeted,1\n"
      "chem,alice,2026-05,budgeted\n"
      "chem,alice,2026-05,budgeted,1,extra\n"
      "chem,alice,2026-04,budgeted,5\n"
      "chem,alice,2026-04,low,5\n"
      "bad,,2026-00,cheap,x\n");
  const std::string not_a_number =
      "gpu_hours: must be a non-negative number of GPU hours such as 750 or 12.25, got ";
  const std::string five_fields =
      "expected 5 comma-separated fields (account,user,month,partition,gpu_hours), got ";
  const std::string twice = "it would count twice";
  const std::vector<std::string> expected = {
      "usage.csv:3: month: expected YYYY-MM, got \"2026-13\"",
      "usage.csv:4: month: expected YYYY-MM, got \"2026-4\"",
      "usage.csv:5: month: expected YYYY-MM, got \"April\"",
      "usage.csv:6: partition: expected \"budgeted\" or \"low\", got \"normal\"",
      "usage.csv:7: " + not_a_number + "\"-5\"",
      "usage.csv:8: " + not_a_number + "\"1e3\"",
      "usage.csv:9: " + not_a_number + "\"\"",
      "usage.csv:10: " + not_a_number + "\"1.\"",
      "usage.csv:11: " + not_a_number + "\".5\"",
      "usage.csv:12: gpu_hours: at most 6 decimals, got \"0.1234567\"",
      "usage.csv:13: gpu_hours: more than 1000000000000 GPU hours, got \"99999999999999999999\"",
      "usage.csv:14: account: must be a Slurm account name, got \"\"",
      "usage.csv:15: user: must be a user name, got \"\"",
      "usage.csv:16: user: must be a user name, got \"al ice\"",
      "usage.csv:17: " + five_fields + "4",
      "usage.csv:18: " + five_fields + "6",
      "usage.csv:19: duplicate of line 2 (same account, user, month and partition): " + twice,
      "usage.csv:21: user: must be a user name, got \"\"",
      "usage.csv:21: month: expected YYYY-MM, got \"2026-00\"",
      "usage.csv:21: partition: expected \"budgeted\" or \"low\", got \"cheap\"",
      "usage.csv:21: " + not_a_number + "\"x\"",
  };
  std::string joined;
  for (const std::string& line : expected) {
    joined += (joined.empty() ? "" : "\n") + line;
  }
  EXPECT_EQ(error, joined);
}

TEST(ParseUsageImport, RefusesAWrongOrMissingHeader) {
  EXPECT_EQ(ParseError("# only comments\n\naccount,user,month,gpu_hours\nchem,a,2026-04,1\n"),
            "usage.csv:3: header: expected \"account,user,month,partition,gpu_hours\", got "
            "\"account,user,month,gpu_hours\"");
  EXPECT_EQ(ParseError("chem,alice,2026-04,budgeted,750\n"),
            "usage.csv:1: header: expected \"account,user,month,partition,gpu_hours\", got "
            "\"chem,alice,2026-04,budgeted,750\"");
  EXPECT_EQ(ParseError(""),
            "usage.csv:1: header: no header line; the file must start with "
            "\"account,user,month,partition,gpu_hours\"");
  EXPECT_EQ(ParseError("# nothing\n\n"),
            "usage.csv:2: header: no header line; the file must start with "
            "\"account,user,month,partition,gpu_hours\"");
}

TEST(ApplyUsageImport, MapsCalendarMonthsToProjectMonths) {
  const std::vector<ProjectTerms> projects = {SmallProject("chem"), SmallProject("bio")};
  const std::vector<UsageImportRow> rows = MustParse(
      "account,user,month,partition,gpu_hours\n"
      "chem,alice,2026-02,budgeted,3\n"  // before the start: month 0
      "chem,alice,2026-03,budgeted,4\n"  // preparatory: month 0 too
      "chem,alice,2026-04,budgeted,750\n"
      "chem,bob,2026-05,budgeted,1250\n"
      "chem,bob,2026-05,low,10\n"
      "bio,carol,2026-09,budgeted,1\n");  // the last month
  Ledger ledger;
  const Status applied = ApplyUsageImport(ledger, projects, rows);
  ASSERT_TRUE(applied.ok()) << applied.error();
  const ProjectUsage& chem = *ledger.Find("chem");
  EXPECT_EQ(chem.total.Budgeted(0), GpuHours(7));
  EXPECT_EQ(chem.total.Budgeted(1), GpuHours(750));
  EXPECT_EQ(chem.total.Budgeted(2), GpuHours(1'250));
  EXPECT_EQ(chem.total.Low(2), GpuHours(10));
  EXPECT_EQ(chem.users.at("bob").Budgeted(2), GpuHours(1'250));
  EXPECT_EQ(chem.total.decayed, 0.0);
  EXPECT_EQ(ledger.Find("bio")->total.Budgeted(6), GpuHours(1));

  // The published schedule follows from the imported usage.
  ASSERT_EQ(
      ledger
          .CloseMonths(projects, TimeZone::Utc(), TimeZone::Utc().MidnightOf(CivilDate{2026, 6, 1}))
          .size(),
      4U);
  const Schedule schedule = ledger.ScheduleOf(projects[0]);
  EXPECT_EQ(schedule.closed()[0].graced, GpuHours(250));
  EXPECT_EQ(schedule.Open().expected, GpuHours(1'000));
}

TEST(ApplyUsageImport, RefusesUnknownAccountsAndMonthsAfterTheEndAndChangesNothing) {
  const std::vector<ProjectTerms> projects = {SmallProject("chem")};
  const std::vector<UsageImportRow> rows = MustParse(
      "account,user,month,partition,gpu_hours\n"
      "chem,alice,2026-04,budgeted,750\n"
      "physics,alice,2026-04,budgeted,1\n"
      "chem,alice,2026-10,budgeted,1\n"
      "chem,alice,2027-01,low,1\n");
  Ledger ledger;
  const Status applied = ApplyUsageImport(ledger, projects, rows);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.error(),
            "usage.csv:3: account: \"physics\" is not a budgeted project\n"
            "usage.csv:4: month: 2026-10 is after the end of chem (its last month is 2026-09)\n"
            "usage.csv:5: month: 2027-01 is after the end of chem (its last month is 2026-09)");
  EXPECT_EQ(ledger, Ledger());
}

TEST(ApplyUsageImport, RefusesToCountAMonthTwice) {
  const std::vector<ProjectTerms> projects = {SmallProject("chem")};
  const std::vector<UsageImportRow> rows = MustParse(
      "account,user,month,partition,gpu_hours\n"
      "chem,alice,2026-04,budgeted,750\n"
      "chem,alice,2026-04,low,5\n"
      "chem,bob,2026-04,budgeted,1\n");
  Ledger ledger;
  ASSERT_TRUE(ApplyUsageImport(ledger, projects, rows).ok());
  const Ledger once = ledger;
  const Status again = ApplyUsageImport(ledger, projects, rows);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error(),
            "usage.csv:2: month: the ledger already has budgeted usage of alice in chem month 1 "
            "(2026-04); importing would count it twice (was this file imported already?)\n"
            "usage.csv:3: month: the ledger already has low usage of alice in chem month 1 "
            "(2026-04); importing would count it twice (was this file imported already?)\n"
            "usage.csv:4: month: the ledger already has budgeted usage of bob in chem month 1 "
            "(2026-04); importing would count it twice (was this file imported already?)");
  EXPECT_EQ(ledger, once);
  // Another month, user or partition is fine.
  const std::vector<UsageImportRow> more = MustParse(
      "account,user,month,partition,gpu_hours\n"
      "chem,alice,2026-05,budgeted,1\n"
      "chem,bob,2026-04,low,1\n"
      "chem,carol,2026-04,budgeted,1\n");
  ASSERT_TRUE(ApplyUsageImport(ledger, projects, more).ok());
  EXPECT_EQ(ledger.Find("chem")->total.Budgeted(1), GpuHours(752));
}

TEST(AddImportedDecay, CountsEachMonthAsUsedEvenlyThenDecayed) {
  const std::vector<ProjectTerms> projects = {SmallProject("chem")};
  const std::vector<UsageImportRow> rows = MustParse(
      "account,user,month,partition,gpu_hours\n"
      "chem,alice,2026-04,budgeted,720\n");
  const TimeZone utc = TimeZone::Utc();
  const UnixTime may = utc.MidnightOf(CivilDate{2026, 5, 1});
  const std::int64_t half_life = 30 * 86'400;  // April's length: its usage decays by a half

  Ledger undecayed;
  ASSERT_TRUE(ApplyUsageImport(undecayed, projects, rows).ok());
  AddImportedDecay(undecayed, rows, utc, may, 0);
  EXPECT_DOUBLE_EQ(undecayed.Find("chem")->total.decayed, 720.0 * 3600);

  // Used evenly over April, seen on 1 May: the mean of 2^-x over x in [0, 1]
  // half-lives, (1 - 1/2) / ln 2, of the whole.
  Ledger ledger;
  ledger.DecayTo(may, half_life);
  ASSERT_TRUE(ApplyUsageImport(ledger, projects, rows).ok());
  AddImportedDecay(ledger, rows, utc, may, half_life);
  EXPECT_NEAR(ledger.Find("chem")->total.decayed, 720.0 * 3600 * 0.5 / std::log(2.0), 1e-6);
  EXPECT_NEAR(ledger.Find("chem")->users.at("alice").decayed, ledger.Find("chem")->total.decayed,
              1e-6);
}

}  // namespace
}  // namespace budget
