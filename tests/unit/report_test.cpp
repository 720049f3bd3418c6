// Tests of the users' project report: open month, history, lost and rolled over, pace (report.hpp).
#include "budget/report.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace budget {
namespace {

constexpr std::int64_t kDay = 24 * 3600;

UnixTime At(int year, int month, int day, std::int64_t hour = 0) {
  return TimeZone::Utc().MidnightOf(CivilDate{year, month, day}) + hour * 3600;
}

// The published small project: 6,000 GPUh, created 15 March 2026, runs
// 1 April .. 30 September 2026 (grace 50%).
ProjectSpec Protfold() {
  Result<BudgetConfig> config = ParseBudgetConfig(
      "Project=protfold Kind=small Credit=6000 Created=2026-03-15 Title=\"Protein folding\" "
      "PIs=anna.meier@unibe.ch\n",
      "budget.conf");
  EXPECT_TRUE(config.ok()) << config.error();
  return config.value().projects.front();
}

// protfold's budgeted usage by project month, all by one user.
Ledger LedgerWith(const std::vector<std::int64_t>& gpu_hours_by_month) {
  Ledger ledger;
  for (std::size_t i = 0; i < gpu_hours_by_month.size(); ++i) {
    ledger.Record("protfold", "alice", static_cast<int>(i + 1), PartitionRole::kBudgeted,
                  GpuHours(gpu_hours_by_month[i]));
  }
  return ledger;
}

ProjectReport ReportAt(const Ledger& ledger, UnixTime now, Pace pace = {}) {
  return BuildReport(ledger, Protfold(), TimeZone::Utc(), now, pace);
}

GpuSeconds Accounted(const ProjectReport& r) {
  GpuSeconds accounted = r.used_this_month;
  for (const ReportMonth& m : r.history) {
    if (!m.open) {
      accounted += std::max(m.row.used, m.row.minimal);
    }
  }
  return accounted;
}

TEST(BuildReport, KeepsUpExampleShowsThirdMonth) {
  // policy.md §6: month 1 used 750, month 2 used 1,250; 200 so far in month 3.
  const ProjectReport r = ReportAt(LedgerWith({750, 1250, 200}), At(2026, 6, 10, 12));
  EXPECT_EQ(r.state, ProjectState::kActive);
  EXPECT_EQ(r.month, 3);
  EXPECT_EQ(r.months, 6);
  EXPECT_TRUE(r.open_month);
  EXPECT_EQ(r.month_last_day, (CivilDate{2026, 6, 30}));
  EXPECT_EQ(r.ideal, GpuHours(3000));
  EXPECT_EQ(r.expected, GpuHours(1000));
  EXPECT_EQ(r.minimal, GpuHours(500));
  EXPECT_EQ(r.used_this_month, GpuHours(200));
  EXPECT_EQ(r.still_expected, GpuHours(800));
  EXPECT_EQ(r.still_minimal, GpuHours(300));
  EXPECT_EQ(r.rolled_over, 0);  // month 2 used all of its expected
  EXPECT_EQ(r.lost, 0);
  EXPECT_EQ(r.used, GpuHours(2200));
  EXPECT_EQ(r.remaining, GpuHours(3800));
  EXPECT_EQ(r.band, FairShareBand::kBehind);

  ASSERT_EQ(r.history.size(), 3U);
  EXPECT_EQ(r.history[0].first_day, (CivilDate{2026, 4, 1}));
  EXPECT_EQ(r.history[0].row.expected, GpuHours(1000));
  EXPECT_EQ(r.history[0].row.used, GpuHours(750));
  EXPECT_EQ(r.history[0].row.graced, GpuHours(250));
  EXPECT_EQ(r.history[1].row.expected, GpuHours(1250));
  EXPECT_EQ(r.history[1].row.minimal, GpuHours(625));
  EXPECT_FALSE(r.history[1].open);
  EXPECT_TRUE(r.history[2].open);
  EXPECT_EQ(r.history[2].month, 3);
  EXPECT_EQ(r.history[2].row.used, GpuHours(200));
}

TEST(BuildReport, DipShowsLostAndRolledOver) {
  // Month 3 used 200 of expected 1,000 (minimal 500): 300 lost, 500 roll over.
  const ProjectReport r = ReportAt(LedgerWith({750, 1250, 200}), At(2026, 7, 2));
  EXPECT_EQ(r.month, 4);
  EXPECT_EQ(r.lost, GpuHours(300));
  EXPECT_EQ(r.rolled_over, GpuHours(500));
  EXPECT_EQ(r.expected, GpuHours(1500));
  EXPECT_EQ(r.minimal, GpuHours(750));
  EXPECT_EQ(r.used_this_month, 0);
  EXPECT_EQ(r.history[2].row.lost, GpuHours(300));
  EXPECT_EQ(r.remaining, GpuHours(6000 - 750 - 1250 - 500));
}

TEST(BuildReport, ConservesTheCredit) {
  for (const UnixTime now :
       {At(2026, 4, 3), At(2026, 5, 31, 23), At(2026, 7, 2), At(2026, 9, 30)}) {
    const ProjectReport r = ReportAt(LedgerWith({750, 1250, 200, 3000, 0, 10}), now);
    EXPECT_EQ(r.credit, Accounted(r) + r.remaining) << "at month " << r.month;
  }
}

TEST(BuildReport, AheadHasNoMinimalAndRanksAhead) {
  const ProjectReport r = ReportAt(LedgerWith({2500}), At(2026, 5, 3));
  EXPECT_EQ(r.expected, GpuHours(-500));
  EXPECT_EQ(r.minimal, 0);
  EXPECT_EQ(r.still_expected, 0);
  EXPECT_EQ(r.still_minimal, 0);
  EXPECT_EQ(r.band, FairShareBand::kAhead);
}

TEST(BuildReport, AheadReturnsInLineWhenTheLineCatchesUp) {
  // 2,500 used in April (month 1): ahead in May. ideal(3) = 3,000 > 2,500, so
  // June's expected is 500 > 0: back in the behind band on 1 June.
  const ProjectReport r = ReportAt(LedgerWith({2500}), At(2026, 5, 3));
  ASSERT_TRUE(r.back_in_line_on.has_value());
  EXPECT_EQ(*r.back_in_line_on, (CivilDate{2026, 6, 1}));
  // 5,500 used by May: only September's line (6,000) is above it.
  const ProjectReport far = ReportAt(LedgerWith({5000, 500}), At(2026, 5, 3));
  ASSERT_TRUE(far.back_in_line_on.has_value());
  EXPECT_EQ(*far.back_in_line_on, (CivilDate{2026, 9, 1}));
}

TEST(BuildReport, OnlyAheadHasAReturnDate) {
  // An active project is never ahead in its last month (expected(D) is all
  // that remains), so the date is always found; behind has none.
  EXPECT_FALSE(ReportAt(LedgerWith({750}), At(2026, 5, 3)).back_in_line_on.has_value());
  EXPECT_FALSE(ReportAt(LedgerWith({6000}), At(2026, 5, 3)).back_in_line_on.has_value());
}

TEST(BuildReport, PreparatoryHasNoMonthYet) {
  Ledger ledger;
  ledger.Record("protfold", "alice", 0, PartitionRole::kBudgeted, GpuHours(8));
  const ProjectReport r = ReportAt(ledger, At(2026, 3, 20));
  EXPECT_EQ(r.state, ProjectState::kPreparatory);
  EXPECT_EQ(r.month, 0);
  EXPECT_FALSE(r.open_month);
  EXPECT_TRUE(r.history.empty());
  EXPECT_EQ(r.remaining, r.credit);
  EXPECT_EQ(r.preparatory_used, GpuHours(8));
  EXPECT_EQ(r.used, 0);
  EXPECT_EQ(r.band, FairShareBand::kPreparatory);
  EXPECT_EQ(r.created, (CivilDate{2026, 3, 15}));
  EXPECT_EQ(r.start, (CivilDate{2026, 4, 1}));
}

TEST(BuildReport, EndedShowsEveryMonthClosed) {
  const ProjectReport r =
      ReportAt(LedgerWith({1000, 1000, 1000, 1000, 1000, 500}), At(2026, 10, 5));
  EXPECT_EQ(r.state, ProjectState::kEnded);
  EXPECT_FALSE(r.open_month);
  ASSERT_EQ(r.history.size(), 6U);
  EXPECT_FALSE(r.history.back().open);
  EXPECT_EQ(r.history.back().first_day, (CivilDate{2026, 9, 1}));
  EXPECT_EQ(r.band, FairShareBand::kNone);
  EXPECT_EQ(r.last_day, (CivilDate{2026, 9, 30}));
  EXPECT_FALSE(r.runway_seconds.has_value());
}

TEST(BuildReport, CreditInSwissFrancs) {
  // 6,000 GPUh = 1,500 GH200 node-hours at 2.69 CHF.
  const ProjectReport r = ReportAt(LedgerWith({}), At(2026, 4, 2));
  EXPECT_EQ(r.credit_chf, 403500);
  EXPECT_EQ(r.remaining_chf, 403500);
  EXPECT_EQ(r.price_per_node_hour, 269);
  EXPECT_EQ(r.title, "Protein folding");
  EXPECT_DOUBLE_EQ(r.grace.Percent(), 50.0);
}

TEST(BuildReport, RunwayIsRemainingOverThePace) {
  // 3,800 GPUh remaining; 1,400 GPUh in the last 14 days: 100 GPUh a day, 38 days.
  const UnixTime now = At(2026, 6, 10, 12);
  const ProjectReport r =
      ReportAt(LedgerWith({750, 1250, 200}), now, Pace{GpuHours(1400), 14 * kDay});
  ASSERT_TRUE(r.runway_seconds.has_value());
  EXPECT_EQ(*r.runway_seconds, 38 * kDay);
  ASSERT_TRUE(r.runs_out_on.has_value());
  EXPECT_EQ(*r.runs_out_on, (CivilDate{2026, 7, 18}));
  EXPECT_FALSE(r.outlasts_project);
}

TEST(BuildReport, SlowPaceOutlastsTheProject) {
  // 10 GPUh a day: 380 days, after 30 September.
  const ProjectReport r =
      ReportAt(LedgerWith({750, 1250, 200}), At(2026, 6, 10), Pace{GpuHours(140), 14 * kDay});
  ASSERT_TRUE(r.runway_seconds.has_value());
  EXPECT_EQ(*r.runway_seconds, 380 * kDay);
  EXPECT_TRUE(r.outlasts_project);
}

TEST(BuildReport, NoRecentUsageHasNoRunway) {
  EXPECT_FALSE(ReportAt(LedgerWith({750}), At(2026, 5, 10), Pace{0, 14 * kDay}).runway_seconds);
  EXPECT_FALSE(ReportAt(LedgerWith({750}), At(2026, 5, 10), Pace{GpuHours(5), 0}).runway_seconds);
}

TEST(BuildReport, HugeCreditRunwayDoesNotOverflow) {
  Result<BudgetConfig> config = ParseBudgetConfig(
      "Project=big Kind=large Credit=1000000000 Start=2026-01-01 PIs=a.b@unibe.ch "
      "StorageTB=1 StorageInodes=1\n",
      "budget.conf");
  ASSERT_TRUE(config.ok()) << config.error();
  const ProjectReport r = BuildReport(Ledger{}, config.value().projects.front(), TimeZone::Utc(),
                                      At(2026, 2, 1), Pace{1, 100 * 365 * kDay});
  ASSERT_TRUE(r.runway_seconds.has_value());
  EXPECT_GT(*r.runway_seconds, 0);
  EXPECT_FALSE(r.runs_out_on.has_value());
  EXPECT_TRUE(r.outlasts_project);
}

TEST(BuildReport, CreditUsedUpIsLowWithoutRunway) {
  Ledger ledger = LedgerWith({6000});
  ledger.Record("protfold", "alice", 2, PartitionRole::kLow, GpuHours(10));
  const ProjectReport r = ReportAt(ledger, At(2026, 5, 2), Pace{GpuHours(100), kDay});
  EXPECT_EQ(r.state, ProjectState::kLow);
  EXPECT_EQ(r.remaining, 0);
  EXPECT_EQ(r.remaining_chf, 0);
  EXPECT_EQ(r.low_used, GpuHours(10));
  EXPECT_EQ(r.low_allowance, GpuHours(1000));
  EXPECT_EQ(r.band, FairShareBand::kLow);
  EXPECT_FALSE(r.runway_seconds.has_value());
}

TEST(BuildReport, UsersAreListedWithTheirShares) {
  Ledger ledger = LedgerWith({750, 100});
  ledger.Record("protfold", "bob", 0, PartitionRole::kBudgeted, GpuHours(3));
  ledger.Record("protfold", "bob", 2, PartitionRole::kBudgeted, GpuHours(40));
  ledger.Record("protfold", "bob", 2, PartitionRole::kLow, GpuHours(7));
  const ProjectReport r = ReportAt(ledger, At(2026, 5, 20));
  ASSERT_EQ(r.users.size(), 2U);
  EXPECT_EQ(r.users[0].user, "alice");
  EXPECT_EQ(r.users[0].this_month, GpuHours(100));
  EXPECT_EQ(r.users[0].charged, GpuHours(850));
  EXPECT_EQ(r.users[1].user, "bob");
  EXPECT_EQ(r.users[1].this_month, GpuHours(40));
  EXPECT_EQ(r.users[1].charged, GpuHours(40));
  EXPECT_EQ(r.users[1].low, GpuHours(7));
  EXPECT_EQ(r.users[1].preparatory, GpuHours(3));
  EXPECT_EQ(r.used_this_month, GpuHours(140));
}

TEST(BuildReport, UnknownAccountHasNoUsage) {
  const ProjectReport r = ReportAt(Ledger{}, At(2026, 5, 20));
  EXPECT_EQ(r.used, 0);
  EXPECT_TRUE(r.users.empty());
  EXPECT_EQ(r.remaining, GpuHours(6000 - 500));  // month 1 closed at its minimal
  EXPECT_EQ(r.lost, GpuHours(500));
}

TEST(BuildReport, ClosedLedgerReadsAsUnclosed) {
  const Ledger open = LedgerWith({750, 1250, 200, 900});
  Ledger closed = open;
  const ProjectSpec spec = Protfold();
  closed.CloseMonths({{spec.account, spec.credit, spec.calendar}}, TimeZone::Utc(),
                     At(2026, 7, 15));
  const ProjectReport a = ReportAt(open, At(2026, 7, 15));
  const ProjectReport b = ReportAt(closed, At(2026, 7, 15));
  ASSERT_EQ(a.history.size(), b.history.size());
  for (std::size_t i = 0; i < a.history.size(); ++i) {
    EXPECT_EQ(a.history[i].row.remaining, b.history[i].row.remaining);
    EXPECT_EQ(a.history[i].row.lost, b.history[i].row.lost);
  }
  EXPECT_EQ(a.remaining, b.remaining);
}

}  // namespace
}  // namespace budget
