// Tests of sacct job records: parsing with every error, and billing them as the plugin does
// (job_records.hpp).
#include "budget/job_records.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "budget/ledger.hpp"
#include "parse_ok.hpp"

namespace budget {
namespace {

// protfold: small, created 15 March 2026, preparatory until 1 April, months
// April (1) .. September (6). chem: small, created 10 January, months
// February .. July. Partitions: normal (4 GPUh per node-hour), x86 (0.25),
// low (Role=low, 4). Account "guest" has no Project= line; partition
// "cpu" is not declared.
constexpr std::string_view kConfig =
    "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
    "PartitionName=x86 Role=budgeted GpuhPerNodeHour=0.25\n"
    "PartitionName=low Role=low GpuhPerNodeHour=4\n"
    "Project=protfold Kind=small Credit=6000 Created=2026-03-15 PIs=anna.meier@unibe.ch\n"
    "Project=chem Kind=small Credit=6000 Created=2026-01-10 PIs=anna.meier@unibe.ch\n";

BudgetConfig Config() { return ParseOk(kConfig); }

// Instants in UTC, the zone of every test here.
UnixTime At(int year, int month, int day, UnixTime hour = 0) {
  return TimeZone::Utc().MidnightOf(CivilDate{year, month, day}) + hour * 3600;
}

std::vector<JobRecord> MustParse(std::string_view text) {
  Result<std::vector<JobRecord>> jobs = ParseJobRecords(text, "sacct");
  EXPECT_TRUE(jobs.ok()) << jobs.error();
  return jobs.ok() ? jobs.value() : std::vector<JobRecord>{};
}

std::string ParseError(std::string_view text) {
  Result<std::vector<JobRecord>> jobs = ParseJobRecords(text, "sacct");
  EXPECT_FALSE(jobs.ok());
  return jobs.ok() ? std::string() : jobs.error();
}

// Bills `text` over [since, until) with the test configuration.
std::vector<UsageImportRow> Bill(std::string_view text, UnixTime since, UnixTime until,
                                 JobRecordsSummary* summary = nullptr) {
  return BillJobRecords(MustParse(text), Config(), TimeZone::Utc(), since, until, summary);
}

// The whole of 2026: no clipping for jobs of that year.
std::vector<UsageImportRow> BillYear(std::string_view text, JobRecordsSummary* summary = nullptr) {
  return Bill(text, At(2026, 1, 1), At(2027, 1, 1), summary);
}

TEST(ParseJobRecords, ReadsEveryField) {
  const std::vector<JobRecord> jobs = MustParse(
      "101|protfold|alice|normal|4|2026-04-02T08:00:00|2026-04-02T11:00:00|COMPLETED\n"
      "\n"
      "102_3|chem|bob|low|1|2026-04-02T08:00:00|Unknown|RUNNING\r\n"
      "103|chem|bob|normal,low|2|Unknown|Unknown|PENDING\n"
      "104+1|chem|bob|normal|1|None|None|CANCELLED by 0");
  ASSERT_EQ(jobs.size(), 4U);
  EXPECT_EQ(jobs[0].source, "sacct");
  EXPECT_EQ(jobs[0].line, 1);
  EXPECT_EQ(jobs[0].job_id, "101");
  EXPECT_EQ(jobs[0].account, "protfold");
  EXPECT_EQ(jobs[0].user, "alice");
  EXPECT_EQ(jobs[0].partition, "normal");
  EXPECT_EQ(jobs[0].nodes, 4);
  EXPECT_EQ(jobs[0].start, At(2026, 4, 2, 8));
  EXPECT_EQ(jobs[0].end, At(2026, 4, 2, 11));
  EXPECT_EQ(jobs[0].state, "COMPLETED");
  EXPECT_EQ(jobs[1].line, 3);
  EXPECT_EQ(jobs[1].job_id, "102_3");
  EXPECT_EQ(jobs[1].start, At(2026, 4, 2, 8));
  EXPECT_FALSE(jobs[1].end.has_value());
  EXPECT_EQ(jobs[1].state, "RUNNING");
  // Never started: several partitions are fine, nothing else is read.
  EXPECT_EQ(jobs[2].partition, "normal,low");
  EXPECT_FALSE(jobs[2].start.has_value());
  EXPECT_EQ(jobs[2].nodes, 0);
  EXPECT_FALSE(jobs[3].start.has_value());
  EXPECT_EQ(jobs[3].state, "CANCELLED by 0");
}

TEST(ParseJobRecords, EmptyOutputHasNoJobs) {
  EXPECT_TRUE(MustParse("").empty());
  EXPECT_TRUE(MustParse("\n\n").empty());
}

TEST(ParseJobRecords, ReadsTimesAsUtcWhateverTheSecondsAndLeapDays) {
  const std::vector<JobRecord> jobs =
      MustParse("1|chem|bob|normal|1|2028-02-29T23:59:59|2028-03-01T00:00:00|COMPLETED\n");
  ASSERT_EQ(jobs.size(), 1U);
  EXPECT_EQ(jobs[0].start, At(2028, 3, 1) - 1);
  EXPECT_EQ(jobs[0].end, At(2028, 3, 1));
}

TEST(ParseJobRecords, NamesTheLineAndFieldOfEveryError) {
  const std::string error = ParseError(
      "1|chem|bob|normal|1|2026-04-02T08:00:00|2026-04-02T09:00:00|COMPLETED\n"
      "2|chem|bob|normal|1|2026-04-02T08:00:00|COMPLETED\n"
      "3|chem|bob|normal|1|2026-13-02T08:00:00|2026-04-02T09:00:00|COMPLETED\n"
      "4|chem|bob|normal|1|2026-04-02T08:00:00|yesterday|COMPLETED\n"
      "5|chem|bob|normal|1|2026-04-02T08:00:00|2026-04-02T07:00:00|COMPLETED\n"
      "6|chem|bob|normal,low|1|2026-04-02T08:00:00|2026-04-02T09:00:00|COMPLETED\n"
      "7|chem|bob|normal|2-4|2026-04-02T08:00:00|2026-04-02T09:00:00|COMPLETED\n"
      "8|chem||normal|1|2026-04-02T08:00:00|2026-04-02T09:00:00|COMPLETED\n"
      "|chem|bob|normal|1|2026-04-02T08:00:00|2026-04-02T09:00:00|\n"
      "10|chem|bob|normal|1|2026-04-02 08:00:00|2026-04-02T09:00:00|COMPLETED\n"
      "11|chem|bob|normal|-1|2026-04-02T08:00:00|2026-04-02T24:00:00|COMPLETED\n");
  EXPECT_EQ(error,
            "sacct:2: expected 8 |-separated fields "
            "(JobID,Account,User,Partition,NNodes,Start,End,State), got 7\n"
            "sacct:3: Start: expected YYYY-MM-DDTHH:MM:SS, Unknown or None, got "
            "\"2026-13-02T08:00:00\"\n"
            "sacct:4: End: expected YYYY-MM-DDTHH:MM:SS, Unknown or None, got \"yesterday\"\n"
            "sacct:5: End: \"2026-04-02T07:00:00\" is before Start \"2026-04-02T08:00:00\"\n"
            "sacct:6: Partition: a job that ran has one partition, got \"normal,low\"\n"
            "sacct:7: NNodes: expected a whole number of nodes up to 10000000, got \"2-4\"\n"
            "sacct:8: User: empty\n"
            "sacct:9: JobID: empty\n"
            "sacct:9: State: empty\n"
            "sacct:10: Start: expected YYYY-MM-DDTHH:MM:SS, Unknown or None, got "
            "\"2026-04-02 08:00:00\"\n"
            "sacct:11: NNodes: expected a whole number of nodes up to 10000000, got \"-1\"\n"
            "sacct:11: End: expected YYYY-MM-DDTHH:MM:SS, Unknown or None, got "
            "\"2026-04-02T24:00:00\"");
}

TEST(ParseJobRecords, RefusesTooManyNodesAndTrailingPipe) {
  EXPECT_EQ(ParseError("1|chem|bob|normal|10000001|2026-04-02T08:00:00|Unknown|RUNNING\n"),
            "sacct:1: NNodes: expected a whole number of nodes up to 10000000, got \"10000001\"");
  // `sacct -p` ends every line with a pipe; ParseJobRecords reads `-P`.
  EXPECT_EQ(ParseError("1|chem|bob|normal|1|2026-04-02T08:00:00|Unknown|RUNNING|\n"),
            "sacct:1: expected 8 |-separated fields "
            "(JobID,Account,User,Partition,NNodes,Start,End,State), got 9");
}

TEST(BillJobRecords, ThreeHoursOnFourNodesIsFortyEightGpuHours) {
  const std::vector<UsageImportRow> rows =
      BillYear("101|protfold|alice|normal|4|2026-04-02T08:00:00|2026-04-02T11:00:00|COMPLETED\n");
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].file, "sacct");
  EXPECT_EQ(rows[0].line, 1);
  EXPECT_EQ(rows[0].account, "protfold");
  EXPECT_EQ(rows[0].user, "alice");
  EXPECT_EQ(rows[0].month, (CivilDate{2026, 4, 1}));
  EXPECT_EQ(rows[0].role, PartitionRole::kBudgeted);
  EXPECT_EQ(rows[0].amount, GpuHours(48));
}

TEST(BillJobRecords, SplitsAJobAtMidnightOfTheFirst) {
  // 22:00 on 30 April to 02:00 on 1 May, 1 node: 2 h in each month.
  const std::vector<UsageImportRow> rows =
      BillYear("7|protfold|alice|normal|1|2026-04-30T22:00:00|2026-05-01T02:00:00|COMPLETED\n");
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].month, (CivilDate{2026, 4, 1}));
  EXPECT_EQ(rows[0].amount, GpuHours(8));
  EXPECT_EQ(rows[1].month, (CivilDate{2026, 5, 1}));
  EXPECT_EQ(rows[1].amount, GpuHours(8));
}

TEST(BillJobRecords, BillsEachPartitionAtItsRate) {
  // x86 bills 0.25 GPUh per node-hour: 2 nodes x 10 h = 5 GPUh.
  const std::vector<UsageImportRow> rows = BillYear(
      "1|chem|bob|x86|2|2026-04-02T00:00:00|2026-04-02T10:00:00|COMPLETED\n"
      "2|chem|bob|normal|1|2026-04-03T00:00:00|2026-04-03T01:00:00|COMPLETED\n");
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].amount, GpuHours(5) + GpuHours(4));
  EXPECT_EQ(rows[0].line, 1);
}

TEST(BillJobRecords, RoundsDownOncePerRowNotPerJob) {
  // Four 1-second jobs at 0.25 GPUh per node-hour: 250 thousandths of a
  // GPU-second each, 1 GPU-second together (rounding each job would give 0).
  const std::vector<UsageImportRow> rows = BillYear(
      "1|chem|bob|x86|1|2026-04-02T00:00:00|2026-04-02T00:00:01|COMPLETED\n"
      "2|chem|bob|x86|1|2026-04-02T00:00:01|2026-04-02T00:00:02|COMPLETED\n"
      "3|chem|bob|x86|1|2026-04-02T00:00:02|2026-04-02T00:00:03|COMPLETED\n"
      "4|chem|bob|x86|1|2026-04-02T00:00:03|2026-04-02T00:00:04|COMPLETED\n"
      "5|chem|bob|x86|1|2026-05-02T00:00:00|2026-05-02T00:00:03|COMPLETED\n");
  // May's 750 thousandths are not a whole GPU-second: no row.
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].month, (CivilDate{2026, 4, 1}));
  EXPECT_EQ(rows[0].amount, 1);
}

TEST(BillJobRecords, LowPartitionGoesToTheLowUsage) {
  const std::vector<UsageImportRow> rows = BillYear(
      "1|chem|bob|low|1|2026-04-02T00:00:00|2026-04-02T01:00:00|PREEMPTED\n"
      "2|chem|bob|normal|1|2026-04-02T00:00:00|2026-04-02T02:00:00|COMPLETED\n");
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].role, PartitionRole::kBudgeted);
  EXPECT_EQ(rows[0].amount, GpuHours(8));
  EXPECT_EQ(rows[1].role, PartitionRole::kLow);
  EXPECT_EQ(rows[1].amount, GpuHours(4));
}

TEST(BillJobRecords, SkipsUnbudgetedAccountsAndPartitionsAndJobsThatNeverRan) {
  JobRecordsSummary summary;
  const std::vector<UsageImportRow> rows = BillYear(
      "1|guest|eve|normal|1|2026-04-02T00:00:00|2026-04-02T01:00:00|COMPLETED\n"
      "2|chem|bob|cpu|1|2026-04-02T00:00:00|2026-04-02T01:00:00|COMPLETED\n"
      "3|chem|bob|normal,low|1|Unknown|Unknown|PENDING\n"
      "4||bob|normal|1|2026-04-02T00:00:00|2026-04-02T01:00:00|COMPLETED\n"
      "5|chem|bob|normal|1|2026-04-02T00:00:00|2026-04-02T01:00:00|COMPLETED\n",
      &summary);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].line, 5);
  EXPECT_EQ(rows[0].amount, GpuHours(4));
  EXPECT_EQ(summary.jobs, 5);
  EXPECT_EQ(summary.not_started, 1);
  EXPECT_EQ(summary.unbudgeted_account, 2);
  EXPECT_EQ(summary.unbilled_partition, 1);
  EXPECT_EQ(summary.billed, 1);
  EXPECT_EQ(summary.outside_window, 0);
  EXPECT_EQ(summary.past_end, 0);
}

TEST(BillJobRecords, ClipsToTheWindowAndRunsARunningJobUntilItsEnd) {
  JobRecordsSummary summary;
  // Window: 10 April 00:00 to 20 April 12:00.
  const std::vector<UsageImportRow> rows = Bill(
      "1|chem|bob|normal|1|2026-04-09T22:00:00|2026-04-10T03:00:00|COMPLETED\n"
      "2|chem|ann|normal|2|2026-04-20T10:00:00|Unknown|RUNNING\n"
      "3|chem|bob|normal|1|2026-04-08T00:00:00|2026-04-09T00:00:00|COMPLETED\n"
      "4|chem|bob|normal|1|2026-04-20T12:00:00|Unknown|RUNNING\n",
      At(2026, 4, 10), At(2026, 4, 20, 12), &summary);
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].user, "ann");
  EXPECT_EQ(rows[0].amount, GpuHours(16));  // 2 nodes x 2 h x 4, up to --until
  EXPECT_EQ(rows[1].user, "bob");
  EXPECT_EQ(rows[1].amount, GpuHours(12));  // 3 of its 5 hours are after --since
  EXPECT_EQ(summary.outside_window, 2);
  EXPECT_EQ(summary.billed, 2);
}

TEST(BillJobRecords, PreparatoryTimeKeepsItsCalendarMonthsAndImportsAsMonthZero) {
  // protfold starts 1 April: February and March are its preparatory period.
  const std::vector<UsageImportRow> rows = BillYear(
      "1|protfold|alice|normal|1|2026-02-28T12:00:00|2026-03-01T06:00:00|COMPLETED\n"
      "2|protfold|alice|normal|1|2026-03-31T23:00:00|2026-04-01T01:00:00|COMPLETED\n");
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_EQ(rows[0].month, (CivilDate{2026, 2, 1}));
  EXPECT_EQ(rows[0].amount, GpuHours(48));  // 12 h
  EXPECT_EQ(rows[1].month, (CivilDate{2026, 3, 1}));
  EXPECT_EQ(rows[1].amount, GpuHours(28));  // 6 h + 1 h
  EXPECT_EQ(rows[1].line, 1);
  EXPECT_EQ(rows[2].month, (CivilDate{2026, 4, 1}));
  EXPECT_EQ(rows[2].amount, GpuHours(4));

  Ledger ledger;
  const BudgetConfig config = Config();
  const ProjectSpec& p = config.projects[0];
  ASSERT_TRUE(ApplyUsageImport(ledger, {{p.account, p.credit, p.calendar}}, rows).ok());
  const ProjectUsage* usage = ledger.Find("protfold");
  ASSERT_NE(usage, nullptr);
  EXPECT_EQ(usage->total.Budgeted(0), GpuHours(48 + 28));
  EXPECT_EQ(usage->total.Budgeted(1), GpuHours(4));
}

TEST(BillJobRecords, DropsTimeFromTheProjectsEndOn) {
  JobRecordsSummary summary;
  // chem runs February to July: its end is 1 August.
  const std::vector<UsageImportRow> rows =
      BillYear("1|chem|bob|normal|1|2026-07-31T20:00:00|2026-08-01T04:00:00|TIMEOUT\n", &summary);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].month, (CivilDate{2026, 7, 1}));
  EXPECT_EQ(rows[0].amount, GpuHours(16));  // 4 h before 1 August
  EXPECT_EQ(summary.billed, 1);
  EXPECT_EQ(summary.past_end, 1);
}

TEST(BillJobRecords, SortsRowsByAccountUserMonthAndRole) {
  const std::vector<UsageImportRow> rows = BillYear(
      "1|protfold|bob|normal|1|2026-05-02T00:00:00|2026-05-02T01:00:00|COMPLETED\n"
      "2|protfold|alice|low|1|2026-05-02T00:00:00|2026-05-02T01:00:00|COMPLETED\n"
      "3|protfold|alice|normal|1|2026-05-02T00:00:00|2026-05-02T01:00:00|COMPLETED\n"
      "4|protfold|alice|normal|1|2026-04-02T00:00:00|2026-04-02T01:00:00|COMPLETED\n"
      "5|chem|zoe|normal|1|2026-05-02T00:00:00|2026-05-02T01:00:00|COMPLETED\n");
  std::vector<int> lines;
  lines.reserve(rows.size());
  for (const UsageImportRow& row : rows) {
    lines.push_back(row.line);
  }
  EXPECT_EQ(lines, (std::vector<int>{5, 4, 3, 2, 1}));
}

TEST(BillJobRecords, EmptyWindowBillsNothing) {
  JobRecordsSummary summary;
  const std::vector<UsageImportRow> rows =
      Bill("1|chem|bob|normal|1|2026-04-02T00:00:00|Unknown|RUNNING\n", At(2026, 5, 1),
           At(2026, 5, 1), &summary);
  EXPECT_TRUE(rows.empty());
  EXPECT_EQ(summary.outside_window, 1);
}

// The promise of the header: importing the rows gives the ledger the plugin
// would have built by accruing the same jobs (Ledger::Accrue).
TEST(BillJobRecords, ImportedUsageEqualsWhatThePluginWouldHaveAccrued) {
  const std::string text =
      "1|protfold|alice|normal|4|2026-03-30T08:00:00|2026-04-02T11:00:00|COMPLETED\n"
      "2|protfold|alice|low|2|2026-04-30T20:00:00|2026-05-01T03:30:00|PREEMPTED\n"
      "3|protfold|bob|normal|1|2026-05-31T23:59:59|2026-06-01T00:00:01|COMPLETED\n"
      "4|chem|carol|normal|3|2026-01-20T00:00:00|2026-02-03T00:00:00|COMPLETED\n"
      "5|chem|carol|normal|1|2026-06-30T00:00:00|Unknown|RUNNING\n"
      "6|chem|carol|x86|8|2026-03-01T00:00:00|2026-03-01T09:00:00|COMPLETED\n";
  const UnixTime since = At(2026, 1, 25);
  const UnixTime until = At(2026, 7, 2, 6);
  const BudgetConfig config = Config();
  const TimeZone zone = TimeZone::Utc();
  std::vector<ProjectTerms> terms;
  terms.reserve(config.projects.size());
  for (const ProjectSpec& p : config.projects) {
    terms.push_back({p.account, p.credit, p.calendar});
  }

  Ledger imported;
  ASSERT_TRUE(ApplyUsageImport(imported, terms, Bill(text, since, until)).ok());

  Ledger accrued;
  for (const JobRecord& job : MustParse(text)) {
    const ProjectSpec* project = config.FindProject(job.account);
    const ProjectTerms project_terms{project->account, project->credit, project->calendar};
    accrued.Accrue(project_terms, zone, job.user, *config.FindPartition(job.partition), job.nodes,
                   std::max(*job.start, since), std::min(job.end.value_or(until), until));
  }
  for (const auto& [account, usage] : accrued.projects()) {
    const ProjectUsage* other = imported.Find(account);
    ASSERT_NE(other, nullptr) << account;
    EXPECT_EQ(other->total.budgeted, usage.total.budgeted) << account;
    EXPECT_EQ(other->total.low, usage.total.low) << account;
    for (const auto& [name, user] : usage.users) {
      ASSERT_TRUE(other->users.contains(name)) << name;
      EXPECT_EQ(other->users.at(name).budgeted, user.budgeted) << name;
      EXPECT_EQ(other->users.at(name).low, user.low) << name;
    }
  }
  EXPECT_EQ(imported.projects().size(), accrued.projects().size());
}

}  // namespace
}  // namespace budget
