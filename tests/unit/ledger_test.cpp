// Tests of the usage ledger: accrual, import, decay, month closing and status (ledger.hpp).
#include "budget/ledger.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "budget/billing.hpp"

namespace budget {
namespace {

constexpr std::int64_t kHour = 3600;
constexpr std::int64_t kDay = 24 * kHour;

UnixTime At(int year, int month, int day, std::int64_t hour = 0, std::int64_t minute = 0,
            std::int64_t second = 0) {
  return TimeZone::Utc().MidnightOf(CivilDate{year, month, day}) + hour * kHour + minute * 60 +
         second;
}

// The published small project: created 15 March 2026, runs April..September.
ProjectTerms SmallProject(std::string account, std::int64_t credit_gpu_hours) {
  Result<ProjectCalendar> calendar = ProjectCalendar::Small(CivilDate{2026, 3, 15}, std::nullopt);
  EXPECT_TRUE(calendar.ok());
  return ProjectTerms{std::move(account), GpuHours(credit_gpu_hours), calendar.value()};
}

// A large project of 12 months from 1 January 2026.
ProjectTerms LargeProject(std::string account, std::int64_t credit_gpu_hours) {
  Result<ProjectCalendar> calendar = ProjectCalendar::Large(CivilDate{2026, 1, 1}, std::nullopt);
  EXPECT_TRUE(calendar.ok());
  return ProjectTerms{std::move(account), GpuHours(credit_gpu_hours), calendar.value()};
}

GpuSeconds SumOf(const std::vector<GpuSeconds>& v) {
  GpuSeconds sum = 0;
  for (const GpuSeconds x : v) {
    sum += x;
  }
  return sum;
}

// The GH200 partitions: budgeted and low, 4 GPUh per node-hour.
PartitionRate Gh200() { return {"normal", PartitionRole::kBudgeted, kGh200MilliRate}; }
PartitionRate LowGh200() { return {"low", PartitionRole::kLow, kGh200MilliRate}; }

// Checks the two invariants of every project: users sum to the project per
// month and role, and the schedule conserves the credit.
void ExpectInvariants(const Ledger& ledger, const std::vector<ProjectTerms>& terms) {
  for (const auto& [account, project] : ledger.projects()) {
    std::map<int, GpuSeconds> budgeted;
    std::map<int, GpuSeconds> low;
    double decayed = 0;
    for (const auto& [name, user] : project.users) {
      for (int m = 0; m < static_cast<int>(user.budgeted.size()); ++m) {
        budgeted[m] += user.Budgeted(m);
      }
      for (int m = 0; m < static_cast<int>(user.low.size()); ++m) {
        low[m] += user.Low(m);
      }
      decayed += user.decayed;
      EXPECT_GE(user.carry_milli[0], 0);
      EXPECT_LT(user.carry_milli[0], 1000);
      EXPECT_GE(user.carry_milli[1], 0);
      EXPECT_LT(user.carry_milli[1], 1000);
    }
    const int months =
        static_cast<int>(std::max(project.total.budgeted.size(), project.total.low.size()) + 2);
    for (int m = 0; m < months; ++m) {
      EXPECT_EQ(project.total.Budgeted(m), budgeted[m]) << account << " month " << m;
      EXPECT_EQ(project.total.Low(m), low[m]) << account << " month " << m;
    }
    EXPECT_NEAR(project.total.decayed, decayed, 1e-6 * (1 + decayed)) << account;
  }
  for (const ProjectTerms& t : terms) {
    const Schedule schedule = ledger.ScheduleOf(t);
    EXPECT_EQ(schedule.credit(), schedule.accounted() + schedule.remaining()) << t.account;
    EXPECT_EQ(schedule.credit(), t.credit);
  }
}

TEST(ProjectTerms, MonthlyBudgetIsCreditOverMonthsRoundedDown) {
  EXPECT_EQ(SmallProject("p", 6'000).MonthlyBudget(), GpuHours(1'000));
  ProjectTerms odd = SmallProject("p", 1);
  odd.credit = 6 * 100 + 5;
  EXPECT_EQ(odd.MonthlyBudget(), 100);
}

TEST(LedgerAccrue, BillsNodesTimesRate) {
  // policy.md §2: 3 hours on 4 nodes = 12 node-hours = 48 GPUh.
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 4, At(2026, 4, 10, 8), At(2026, 4, 10, 11));
  ASSERT_NE(ledger.Find("chem"), nullptr);
  EXPECT_EQ(ledger.Find("chem")->total.Budgeted(1), GpuHours(48));
  EXPECT_EQ(ledger.Find("chem")->users.at("alice").Budgeted(1), GpuHours(48));
  EXPECT_EQ(ledger.Find("chem")->total.Total(), GpuHours(48));
}

TEST(LedgerAccrue, SplitsAtMidnightOfTheFirst) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  // 22:00 on 30 April to 03:00 on 1 May: 2 hours in month 1, 3 in month 2.
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 1, At(2026, 4, 30, 22), At(2026, 5, 1, 3));
  // 23:00 on 31 March (preparatory) to 01:00 on 1 April (month 1).
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 1, At(2026, 3, 31, 23), At(2026, 4, 1, 1));
  // 20:00 on 30 September to 02:00 on 1 October: month 6 and after the end.
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 1, At(2026, 9, 30, 20), At(2026, 10, 1, 2));
  const Usage& total = ledger.Find("chem")->total;
  EXPECT_EQ(total.Budgeted(0), GpuHours(4));
  EXPECT_EQ(total.Budgeted(1), GpuHours(8 + 4));
  EXPECT_EQ(total.Budgeted(2), GpuHours(12));
  EXPECT_EQ(total.Budgeted(6), GpuHours(16));
  EXPECT_EQ(total.Budgeted(7), GpuHours(8));
  EXPECT_EQ(total.Total(), GpuHours(4 + 12 + 12 + 16 + 8));
  EXPECT_EQ(total.Preparatory(), GpuHours(4));
}

TEST(LedgerAccrue, ReturnsTheMonthsItSplitInto) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  const auto range = [&](UnixTime from, UnixTime to) {
    const MonthRange r = ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 1, from, to);
    return std::pair(r.first, r.last);
  };
  EXPECT_EQ(range(At(2026, 4, 10), At(2026, 4, 11)), std::pair(1, 1));
  EXPECT_EQ(range(At(2026, 3, 31, 23), At(2026, 5, 1, 1)), std::pair(0, 2));
  EXPECT_EQ(range(At(2026, 9, 30, 20), At(2026, 10, 1, 2)), std::pair(6, 7));
  EXPECT_EQ(range(At(2026, 3, 20), At(2026, 3, 21)), std::pair(0, 0));
  // Nothing charged, no month.
  const MonthRange none =
      ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 0, At(2026, 4, 10), At(2026, 4, 11));
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(none.Overlaps(0, 100));
  EXPECT_FALSE((MonthRange{.first = 3, .last = 3}).empty());
}

TEST(LedgerAccrue, IntoTheFoundRecordIsAccrueByName) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger by_name;
  Ledger into_found;
  const auto both = [&](const std::string& user, const PartitionRate& partition, std::int64_t nodes,
                        UnixTime from, UnixTime to) {
    const MonthRange a = by_name.Accrue(p, TimeZone::Utc(), user, partition, nodes, from, to);
    const MonthRange b = into_found.Accrue(into_found.Find("chem"), p, TimeZone::Utc(), user,
                                           partition, nodes, from, to);
    EXPECT_EQ(std::pair(a.first, a.last), std::pair(b.first, b.last));
  };
  both("alice", Gh200(), 3, At(2026, 3, 30), At(2026, 4, 2));
  both("bob", LowGh200(), 1, At(2026, 4, 30, 23), At(2026, 5, 1, 2, 30));
  both("alice", Gh200(), 0, At(2026, 5, 3), At(2026, 5, 4));  // bills nothing
  both("carol", Gh200(), 2, At(2026, 5, 3, 0, 0, 1), At(2026, 5, 3, 0, 0, 2));
  EXPECT_EQ(into_found, by_name);
  EXPECT_EQ(into_found.Find("chem")->users.size(), 3U);
}

TEST(MonthRange, OverlapsOnlyAnIntervalItSharesAMonthWith) {
  const MonthRange two_to_four{.first = 2, .last = 4};
  EXPECT_TRUE(two_to_four.Overlaps(1, 2));
  EXPECT_TRUE(two_to_four.Overlaps(4, 9));
  EXPECT_TRUE(two_to_four.Overlaps(3, 3));
  EXPECT_TRUE(two_to_four.Overlaps(0, 10));
  EXPECT_FALSE(two_to_four.Overlaps(1, 1));
  EXPECT_FALSE(two_to_four.Overlaps(5, 6));
  EXPECT_FALSE(two_to_four.Overlaps(1, 0));  // an empty interval
}

TEST(LedgerAccrue, LowPartitionGoesToLowUsage) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Accrue(p, TimeZone::Utc(), "alice", LowGh200(), 2, At(2026, 5, 3), At(2026, 5, 3, 1));
  ledger.Accrue(p, TimeZone::Utc(), "alice", LowGh200(), 1, At(2026, 3, 20), At(2026, 3, 20, 1));
  const Usage& total = ledger.Find("chem")->total;
  EXPECT_EQ(total.Low(2), GpuHours(8));
  EXPECT_EQ(total.Low(0), GpuHours(4));
  EXPECT_EQ(total.Budgeted(2), 0);
  EXPECT_EQ(total.LowCharged(), GpuHours(8));  // preparatory low use is not charged
  EXPECT_EQ(total.Preparatory(), GpuHours(4));
}

TEST(LedgerAccrue, NothingForNoNodesOrEmptyInterval) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 0, At(2026, 5, 3), At(2026, 5, 4));
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), -3, At(2026, 5, 3), At(2026, 5, 4));
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 4, At(2026, 5, 4), At(2026, 5, 4));
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 4, At(2026, 5, 4), At(2026, 5, 3));
  EXPECT_EQ(ledger, Ledger());
}

TEST(LedgerAccrue, LosesNoFractionAcrossManyTicks) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  const UnixTime t0 = At(2026, 5, 3);
  // 3600 ticks of 1 second on 1 node at 4 GPUh per node-hour: exactly 4 GPUh.
  {
    Ledger ledger;
    for (int i = 0; i < 3600; ++i) {
      ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 1, t0 + i, t0 + i + 1);
    }
    EXPECT_EQ(ledger.Find("chem")->total.Budgeted(2), GpuHours(4));
  }
  // Fractional rates: each tick is worth less than a GPU-second, yet the sum
  // is what one long accrual bills.
  for (const MilliRate rate : {MilliRate{250}, MilliRate{1500}, MilliRate{333}, MilliRate{1}}) {
    const PartitionRate x86{"x86", PartitionRole::kBudgeted, rate};
    Ledger ticks;
    Ledger once;
    for (int i = 0; i < 3600; ++i) {
      ticks.Accrue(p, TimeZone::Utc(), "alice", x86, 1, t0 + i, t0 + i + 1);
    }
    once.Accrue(p, TimeZone::Utc(), "alice", x86, 1, t0, t0 + 3600);
    EXPECT_EQ(ticks.Find("chem")->total.Budgeted(2), Bill(3600, rate)) << rate;
    EXPECT_EQ(once.Find("chem")->total.Budgeted(2), Bill(3600, rate)) << rate;
    EXPECT_EQ(ticks.Find("chem")->users.at("alice").carry_milli[0], 3600 * rate % 1000) << rate;
  }
  EXPECT_EQ(Bill(3600, 250), GpuHours(1) / 4);
}

TEST(LedgerAccrue, DoesNotOverflowForHugeProducts) {
  // 10,000 nodes for 90 days at 1,000,000 GPUh per node-hour: the product in
  // thousandths (7.8e19) is past int64, the GPU-seconds (7.8e16) are not.
  const ProjectTerms p = SmallProject("chem", 6'000);
  const PartitionRate huge{"huge", PartitionRole::kBudgeted, 1'000'000'000};
  Ledger ledger;
  ledger.Accrue(p, TimeZone::Utc(), "alice", huge, 10'000, At(2026, 4, 1),
                At(2026, 4, 1) + 90 * kDay);
  EXPECT_EQ(ledger.Find("chem")->total.Total(), kDay * 90 * 10'000 * 1'000'000);
  EXPECT_EQ(ledger.Find("chem")->total.Budgeted(1), kDay * 30 * 10'000 * 1'000'000);
}

TEST(LedgerAccrue, ZeroRateBillsNothing) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Accrue(p, TimeZone::Utc(), "alice", PartitionRate{"free", PartitionRole::kBudgeted, 0}, 4,
                At(2026, 4, 1), At(2026, 4, 2));
  EXPECT_EQ(ledger, Ledger());
}

TEST(LedgerAccrue, CarriesFractionsAcrossTheMonthBoundary) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  const PartitionRate x86{"x86", PartitionRole::kBudgeted,
                          500};  // half a GPU-second per node-second
  Ledger ledger;
  // 1 second before midnight of 1 May and 1 second after: 0.5 + 0.5.
  ledger.Accrue(p, TimeZone::Utc(), "alice", x86, 1, At(2026, 5, 1) - 1, At(2026, 5, 1) + 1);
  const UserUsage& alice = ledger.Find("chem")->users.at("alice");
  EXPECT_EQ(alice.Budgeted(1), 0);
  EXPECT_EQ(alice.Budgeted(2), 1);  // the second that completes is charged where it completes
  EXPECT_EQ(alice.carry_milli[0], 0);
}

TEST(LedgerAccrue, KeepsCarriesPerUserAndRole) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  const PartitionRate x86{"x86", PartitionRole::kBudgeted, 250};
  const PartitionRate x86_low{"x86low", PartitionRole::kLow, 250};
  const UnixTime t0 = At(2026, 5, 3);
  Ledger ledger;
  for (int i = 0; i < 1800; ++i) {
    ledger.Accrue(p, TimeZone::Utc(), "alice", x86, 1, t0 + i, t0 + i + 1);
    ledger.Accrue(p, TimeZone::Utc(), "bob", x86, 1, t0 + i, t0 + i + 1);
    ledger.Accrue(p, TimeZone::Utc(), "bob", x86_low, 1, t0 + i, t0 + i + 1);
  }
  const ProjectUsage& chem = *ledger.Find("chem");
  EXPECT_EQ(chem.users.at("alice").Budgeted(2), 450);
  EXPECT_EQ(chem.users.at("bob").Budgeted(2), 450);
  EXPECT_EQ(chem.users.at("bob").Low(2), 450);
  EXPECT_EQ(chem.total.Budgeted(2), 900);
  EXPECT_EQ(chem.total.Low(2), 450);
}

TEST(LedgerAccrue, SumsUsersIntoTheProject) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 2, At(2026, 4, 2), At(2026, 4, 2, 5));
  ledger.Accrue(p, TimeZone::Utc(), "bob", Gh200(), 1, At(2026, 4, 30, 23), At(2026, 5, 1, 1));
  ledger.Accrue(p, TimeZone::Utc(), "bob", LowGh200(), 1, At(2026, 5, 2), At(2026, 5, 2, 1));
  const ProjectUsage& chem = *ledger.Find("chem");
  ASSERT_EQ(chem.users.size(), 2U);
  EXPECT_EQ(chem.users.at("alice").Budgeted(1), GpuHours(40));
  EXPECT_EQ(chem.users.at("bob").Budgeted(1), GpuHours(4));
  EXPECT_EQ(chem.users.at("bob").Budgeted(2), GpuHours(4));
  EXPECT_EQ(chem.users.at("bob").Low(2), GpuHours(4));
  EXPECT_EQ(chem.total.Budgeted(1), GpuHours(44));
  EXPECT_DOUBLE_EQ(chem.total.decayed, static_cast<double>(GpuHours(52)));
  EXPECT_DOUBLE_EQ(chem.users.at("bob").decayed, static_cast<double>(GpuHours(12)));
  ExpectInvariants(ledger, {p});
}

TEST(LedgerRecord, AddsToMonthAndRoleWithoutFairShareUsage) {
  Ledger ledger;
  ledger.Record("chem", "alice", 0, PartitionRole::kBudgeted, 100);
  ledger.Record("chem", "alice", 3, PartitionRole::kLow, 50);
  ledger.Record("chem", "bob", 3, PartitionRole::kLow, 25);
  ledger.Record("chem", "carol", 2, PartitionRole::kBudgeted, 0);
  const ProjectUsage& chem = *ledger.Find("chem");
  EXPECT_EQ(chem.total.Budgeted(0), 100);
  EXPECT_EQ(chem.total.Low(3), 75);
  EXPECT_EQ(chem.total.LowCharged(), 75);
  EXPECT_EQ(chem.total.decayed, 0.0);
  EXPECT_EQ(chem.users.count("carol"), 1U);
  EXPECT_TRUE(chem.users.at("carol").budgeted.empty());
  EXPECT_EQ(ledger.Find("other"), nullptr);
}

TEST(LedgerDecayTo, HalvesAfterOneHalfLife) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  constexpr std::int64_t kWeek = 7 * kDay;
  Ledger ledger;
  const UnixTime t0 = At(2026, 5, 3);
  ledger.DecayTo(t0, kWeek);  // first call: only remembers the time
  EXPECT_EQ(ledger.decayed_at(), t0);
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 1, t0, t0 + kHour);
  ledger.Accrue(p, TimeZone::Utc(), "bob", Gh200(), 3, t0, t0 + kHour);
  ledger.DecayTo(t0 + kWeek, kWeek);
  EXPECT_DOUBLE_EQ(ledger.Find("chem")->total.decayed, static_cast<double>(GpuHours(16)) / 2);
  EXPECT_DOUBLE_EQ(ledger.Find("chem")->users.at("alice").decayed,
                   static_cast<double>(GpuHours(4)) / 2);
  ledger.DecayTo(t0 + 3 * kWeek, kWeek);
  EXPECT_DOUBLE_EQ(ledger.Find("chem")->total.decayed, static_cast<double>(GpuHours(16)) / 8);
  // Decay touches fair-share usage only, never the charged usage.
  EXPECT_EQ(ledger.Find("chem")->total.Budgeted(2), GpuHours(16));
}

TEST(LedgerDecayTo, FirstCallDoesNotDecay) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 1, At(2026, 5, 3), At(2026, 5, 3, 1));
  EXPECT_EQ(ledger.decayed_at(), std::nullopt);
  ledger.DecayTo(At(2026, 6, 3), kHour);
  EXPECT_DOUBLE_EQ(ledger.Find("chem")->total.decayed, static_cast<double>(GpuHours(4)));
}

TEST(LedgerDecayTo, ClockGoingBackDoesNotDecay) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  const UnixTime t0 = At(2026, 5, 3);
  ledger.DecayTo(t0, kHour);
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 1, t0, t0 + kHour);
  const Ledger before = ledger;
  ledger.DecayTo(t0 - 5 * kHour, kHour);
  EXPECT_EQ(ledger, before);
  EXPECT_EQ(ledger.decayed_at(), t0);
  ledger.DecayTo(t0, kHour);
  EXPECT_EQ(ledger, before);
  // Once the clock is past the last decay again, only the new interval decays.
  ledger.DecayTo(t0 + kHour, kHour);
  EXPECT_DOUBLE_EQ(ledger.Find("chem")->total.decayed, static_cast<double>(GpuHours(4)) / 2);
}

TEST(LedgerDecayTo, ZeroHalfLifeMeansNoDecay) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  const UnixTime t0 = At(2026, 5, 3);
  ledger.DecayTo(t0, 0);
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 1, t0, t0 + kHour);
  ledger.DecayTo(t0 + 30 * kDay, 0);
  EXPECT_DOUBLE_EQ(ledger.Find("chem")->total.decayed, static_cast<double>(GpuHours(4)));
  EXPECT_EQ(ledger.decayed_at(), t0 + 30 * kDay);
  // Switching decay on later does not decay the time that had none.
  ledger.DecayTo(t0 + 30 * kDay + kHour, kHour);
  EXPECT_DOUBLE_EQ(ledger.Find("chem")->total.decayed, static_cast<double>(GpuHours(2)));
}

TEST(LedgerCloseMonths, ClosesNothingBeforeTheEndOfTheFirstMonth) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  EXPECT_TRUE(ledger.CloseMonths({p}, TimeZone::Utc(), At(2026, 4, 30, 23, 59, 59)).empty());
  EXPECT_EQ(ledger.Find("chem"), nullptr);
}

TEST(LedgerCloseMonths, CatchesUpInOrderAfterDowntime) {
  // policy.md §6: 6,000 GPUh over 6 months; month 1 uses 750, month 2 1,250,
  // month 3 200 of expected 1,000 (minimal 500): 300 lost, 500 graced.
  const ProjectTerms p = SmallProject("chem", 6'000);
  const ProjectTerms q = SmallProject("bio", 6'000);
  Ledger ledger;
  ledger.Record("chem", "alice", 1, PartitionRole::kBudgeted, GpuHours(750));
  ledger.Record("chem", "alice", 2, PartitionRole::kBudgeted, GpuHours(1'000));
  ledger.Record("chem", "bob", 2, PartitionRole::kBudgeted, GpuHours(250));
  ledger.Record("chem", "bob", 3, PartitionRole::kBudgeted, GpuHours(200));
  // Down from 20 April to 2 July: months 1..3 close at once, in order.
  const std::vector<ClosedMonth> closed =
      ledger.CloseMonths({p, q}, TimeZone::Utc(), At(2026, 7, 2));
  ASSERT_EQ(closed.size(), 6U);
  const std::vector<std::tuple<std::string, int>> order = {{"chem", 1}, {"chem", 2}, {"chem", 3},
                                                           {"bio", 1},  {"bio", 2},  {"bio", 3}};
  for (std::size_t i = 0; i < order.size(); ++i) {
    EXPECT_EQ(closed[i].account, std::get<0>(order[i])) << i;
    EXPECT_EQ(closed[i].month, std::get<1>(order[i])) << i;
    EXPECT_EQ(closed[i].row.month, std::get<1>(order[i])) << i;
    EXPECT_TRUE(closed[i].row.closed) << i;
  }
  EXPECT_EQ(closed[0].row.expected, GpuHours(1'000));
  EXPECT_EQ(closed[0].row.graced, GpuHours(250));
  EXPECT_EQ(closed[1].row.expected, GpuHours(1'250));
  EXPECT_EQ(closed[1].row.used, GpuHours(1'250));
  EXPECT_EQ(closed[2].row.expected, GpuHours(1'000));
  EXPECT_EQ(closed[2].row.used, GpuHours(200));
  EXPECT_EQ(closed[2].row.lost, GpuHours(300));
  EXPECT_EQ(closed[2].row.graced, GpuHours(500));
  // bio never ran: each month forfeits its minimal.
  EXPECT_EQ(closed[3].row.lost, GpuHours(500));
  EXPECT_EQ(ledger.Find("chem")->closed_months, 3);
  EXPECT_EQ(ledger.Find("bio")->closed_months, 3);

  const Schedule schedule = ledger.ScheduleOf(p);
  EXPECT_EQ(schedule.closed_months(), 3);
  EXPECT_EQ(schedule.Open().expected, GpuHours(1'500));
  EXPECT_EQ(schedule.Open().minimal, GpuHours(750));
  ExpectInvariants(ledger, {p, q});
}

TEST(LedgerCloseMonths, ClosesAMonthExactlyAtMidnightOfTheFirst) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  EXPECT_TRUE(ledger.CloseMonths({p}, TimeZone::Utc(), At(2026, 5, 1) - 1).empty());
  const std::vector<ClosedMonth> closed = ledger.CloseMonths({p}, TimeZone::Utc(), At(2026, 5, 1));
  ASSERT_EQ(closed.size(), 1U);
  EXPECT_EQ(closed[0].month, 1);
}

TEST(LedgerCloseMonths, IsIdempotent) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Record("chem", "alice", 1, PartitionRole::kBudgeted, GpuHours(600));
  ASSERT_EQ(ledger.CloseMonths({p}, TimeZone::Utc(), At(2026, 6, 15)).size(), 2U);
  const Ledger after_first = ledger;
  EXPECT_TRUE(ledger.CloseMonths({p}, TimeZone::Utc(), At(2026, 6, 15)).empty());
  EXPECT_TRUE(ledger.CloseMonths({p}, TimeZone::Utc(), At(2026, 6, 20)).empty());
  EXPECT_TRUE(ledger.CloseMonths({p}, TimeZone::Utc(), At(2026, 5, 2)).empty());  // clock back
  EXPECT_EQ(ledger, after_first);
}

TEST(LedgerCloseMonths, StopsAtTheLastMonth) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  const std::vector<ClosedMonth> closed = ledger.CloseMonths({p}, TimeZone::Utc(), At(2030, 1, 1));
  ASSERT_EQ(closed.size(), 6U);
  EXPECT_EQ(closed.back().month, 6);
  EXPECT_EQ(ledger.Find("chem")->closed_months, 6);
  EXPECT_TRUE(ledger.ScheduleOf(p).over());
  EXPECT_TRUE(ledger.CloseMonths({p}, TimeZone::Utc(), At(2031, 1, 1)).empty());
  ExpectInvariants(ledger, {p});
}

TEST(LedgerCloseMonths, PreparatoryUsageIsNotCharged) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Record("chem", "alice", 0, PartitionRole::kBudgeted, GpuHours(5'000));
  const std::vector<ClosedMonth> closed = ledger.CloseMonths({p}, TimeZone::Utc(), At(2026, 5, 1));
  ASSERT_EQ(closed.size(), 1U);
  EXPECT_EQ(closed[0].row.used, 0);
  EXPECT_EQ(closed[0].row.lost, GpuHours(500));
}

TEST(LedgerScheduleOf, ReplaysLateUsageOfAClosedMonth) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Record("chem", "alice", 1, PartitionRole::kBudgeted, GpuHours(400));
  const std::vector<ClosedMonth> closed = ledger.CloseMonths({p}, TimeZone::Utc(), At(2026, 5, 1));
  ASSERT_EQ(closed.size(), 1U);
  EXPECT_EQ(closed[0].row.lost, GpuHours(100));
  // A tick of April accrued after the close: kept in April, re-evaluated.
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 50, At(2026, 4, 30, 23), At(2026, 5, 1));
  const Schedule schedule = ledger.ScheduleOf(p);
  ASSERT_EQ(schedule.closed_months(), 1);
  EXPECT_EQ(schedule.closed()[0].used, GpuHours(600));
  EXPECT_EQ(schedule.closed()[0].lost, 0);
  EXPECT_EQ(schedule.accounted(), GpuHours(600));
  ExpectInvariants(ledger, {p});
}

TEST(LedgerScheduleOf, UnknownProjectHasNoClosedMonth) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  const Ledger ledger;
  const Schedule schedule = ledger.ScheduleOf(p);
  EXPECT_EQ(schedule.closed_months(), 0);
  EXPECT_EQ(schedule.remaining(), GpuHours(6'000));
  EXPECT_EQ(schedule.Open().expected, GpuHours(1'000));
}

TEST(StatusOf, IsPreparatoryBeforeTheStart) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 1, At(2026, 3, 20), At(2026, 3, 20, 10));
  ledger.Accrue(p, TimeZone::Utc(), "alice", LowGh200(), 1, At(2026, 3, 21), At(2026, 3, 21, 1));
  const ProjectStatus s = StatusOf(ledger, p, TimeZone::Utc(), At(2026, 3, 31, 23, 59, 59));
  EXPECT_EQ(s.state, ProjectState::kPreparatory);
  EXPECT_EQ(s.month, 0);
  EXPECT_EQ(s.preparatory_used, GpuHours(44));
  EXPECT_EQ(s.remaining, GpuHours(6'000));
  EXPECT_EQ(s.used_this_month, 0);
  EXPECT_EQ(s.low_used, 0);
  EXPECT_EQ(s.low_allowance, GpuHours(1'000));
  EXPECT_DOUBLE_EQ(s.decayed_usage, static_cast<double>(GpuHours(44)));
}

TEST(StatusOf, IsActiveWithThePublishedSchedule) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Record("chem", "alice", 1, PartitionRole::kBudgeted, GpuHours(750));
  ledger.Record("chem", "alice", 2, PartitionRole::kBudgeted, GpuHours(300));
  ASSERT_EQ(ledger.CloseMonths({p}, TimeZone::Utc(), At(2026, 5, 10)).size(), 1U);
  const ProjectStatus s = StatusOf(ledger, p, TimeZone::Utc(), At(2026, 5, 10));
  EXPECT_EQ(s.state, ProjectState::kActive);
  EXPECT_EQ(s.month, 2);
  EXPECT_EQ(s.open.month, 2);
  EXPECT_EQ(s.open.accounted_before, GpuHours(750));
  EXPECT_EQ(s.open.ideal, GpuHours(2'000));
  EXPECT_EQ(s.open.expected, GpuHours(1'250));
  EXPECT_EQ(s.open.minimal, GpuHours(625));
  EXPECT_EQ(s.used_this_month, GpuHours(300));
  EXPECT_EQ(s.outstanding, GpuHours(950));
  EXPECT_EQ(s.remaining, GpuHours(6'000 - 750 - 300));
}

TEST(StatusOf, IsLowWhenTheCreditIsUsedUp) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Record("chem", "alice", 1, PartitionRole::kBudgeted, GpuHours(6'000));
  ledger.Record("chem", "alice", 2, PartitionRole::kLow, GpuHours(999));
  ASSERT_EQ(ledger.CloseMonths({p}, TimeZone::Utc(), At(2026, 5, 10)).size(), 1U);
  const ProjectStatus s = StatusOf(ledger, p, TimeZone::Utc(), At(2026, 5, 10));
  EXPECT_EQ(s.state, ProjectState::kLow);
  EXPECT_EQ(s.remaining, 0);
  EXPECT_EQ(s.low_used, GpuHours(999));
  EXPECT_EQ(s.open.expected, -GpuHours(4'000));
}

TEST(StatusOf, IsLowWhenThisMonthUsesUpTheCredit) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Record("chem", "alice", 1, PartitionRole::kBudgeted, GpuHours(6'001));
  const ProjectStatus s = StatusOf(ledger, p, TimeZone::Utc(), At(2026, 4, 30));
  EXPECT_EQ(s.state, ProjectState::kLow);
  EXPECT_EQ(s.remaining, -GpuHours(1));
  EXPECT_EQ(s.outstanding, GpuHours(1'000 - 6'001));
}

TEST(StatusOf, IsBlockedOnceTheLowAllowanceIsUsedToo) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Record("chem", "alice", 1, PartitionRole::kBudgeted, GpuHours(6'000));
  ledger.Record("chem", "alice", 1, PartitionRole::kLow, GpuHours(400));
  ledger.Record("chem", "bob", 2, PartitionRole::kLow, GpuHours(600) - 1);
  EXPECT_EQ(StatusOf(ledger, p, TimeZone::Utc(), At(2026, 5, 10)).state, ProjectState::kLow);
  ledger.Record("chem", "bob", 2, PartitionRole::kLow, 1);  // exactly one month of budget
  const ProjectStatus s = StatusOf(ledger, p, TimeZone::Utc(), At(2026, 5, 10));
  EXPECT_EQ(s.state, ProjectState::kBlocked);
  EXPECT_EQ(s.low_used, s.low_allowance);
}

TEST(StatusOf, LowUseWithCreditLeftStaysActive) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Record("chem", "alice", 1, PartitionRole::kLow, GpuHours(2'000));
  const ProjectStatus s = StatusOf(ledger, p, TimeZone::Utc(), At(2026, 4, 10));
  EXPECT_EQ(s.state, ProjectState::kActive);
  EXPECT_EQ(s.low_used, GpuHours(2'000));
  EXPECT_EQ(s.remaining, GpuHours(6'000));
}

TEST(StatusOf, PreparatoryLowUseDoesNotCountAgainstTheAllowance) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.Record("chem", "alice", 0, PartitionRole::kLow, GpuHours(5'000));
  ledger.Record("chem", "alice", 1, PartitionRole::kBudgeted, GpuHours(6'000));
  const ProjectStatus s = StatusOf(ledger, p, TimeZone::Utc(), At(2026, 4, 10));
  EXPECT_EQ(s.state, ProjectState::kLow);
  EXPECT_EQ(s.low_used, 0);
  EXPECT_EQ(s.preparatory_used, GpuHours(5'000));
}

TEST(StatusOf, IsEndedFromTheEndOn) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  // Months 1..5 unused forfeit their minimals: 4,031.25 GPUh accounted before month 6.
  ledger.Record("chem", "alice", 6, PartitionRole::kBudgeted, GpuHours(1'000));
  ledger.CloseMonths({p}, TimeZone::Utc(), At(2026, 10, 1));
  const ProjectStatus s = StatusOf(ledger, p, TimeZone::Utc(), At(2026, 10, 1));
  EXPECT_EQ(s.state, ProjectState::kEnded);
  EXPECT_EQ(s.month, 7);
  EXPECT_EQ(s.used_this_month, 0);
  EXPECT_EQ(s.remaining, ledger.ScheduleOf(p).remaining());
  EXPECT_EQ(s.remaining, GpuHours(6'000 - 1'000 - 4'031) - kGpuSecondsPerGpuHour / 4);
  EXPECT_EQ(StatusOf(ledger, p, TimeZone::Utc(), At(2026, 9, 30, 23, 59, 59)).state,
            ProjectState::kActive);
}

TEST(StatusOf, DoesNotDependOnWhetherMonthsWereClosed) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger open_ledger;
  open_ledger.Record("chem", "alice", 1, PartitionRole::kBudgeted, GpuHours(700));
  open_ledger.Record("chem", "alice", 3, PartitionRole::kBudgeted, GpuHours(100));
  Ledger closed_ledger = open_ledger;
  closed_ledger.CloseMonths({p}, TimeZone::Utc(), At(2026, 6, 5));
  for (const UnixTime now : {At(2026, 6, 5), At(2026, 5, 5), At(2026, 4, 5)}) {
    const ProjectStatus a = StatusOf(open_ledger, p, TimeZone::Utc(), now);
    const ProjectStatus b = StatusOf(closed_ledger, p, TimeZone::Utc(), now);
    EXPECT_EQ(a.open.month, b.open.month) << now;
    EXPECT_EQ(a.open.accounted_before, b.open.accounted_before) << now;
    EXPECT_EQ(a.open.expected, b.open.expected) << now;
    EXPECT_EQ(a.open.minimal, b.open.minimal) << now;
    EXPECT_EQ(a.remaining, b.remaining) << now;
    EXPECT_EQ(a.state, b.state) << now;
  }
}

TEST(StatusOf, UnknownProjectHasNoUsage) {
  const ProjectTerms p = LargeProject("astro", 120'000);
  const ProjectStatus s = StatusOf(Ledger(), p, TimeZone::Utc(), At(2026, 1, 15));
  EXPECT_EQ(s.state, ProjectState::kActive);
  EXPECT_EQ(s.month, 1);
  EXPECT_EQ(s.open.expected, GpuHours(10'000));
  EXPECT_EQ(s.outstanding, GpuHours(10'000));
  EXPECT_EQ(s.remaining, GpuHours(120'000));
}

std::tuple<int, GpuSeconds, GpuSeconds, GpuSeconds, GpuSeconds> Fields(const UsageSummary& s) {
  return {s.month, s.accounted, s.used_this_month, s.low_used, s.preparatory_used};
}

// Engine keeps each project's summary through a charge with SummaryAfterCharge
// (engine.hpp, summaries_): it must be the summary read afresh, or none when
// the charge reached a month the summary replayed.
TEST(SummaryAfterCharge, IsTheSummaryReadAfreshUnlessAReplayedMonthWasCharged) {
  const ProjectTerms p = SmallProject("chem", 6'000);  // April..September, months 1..6
  Ledger before;
  before.Accrue(p, TimeZone::Utc(), "alice", Gh200(), 40, At(2026, 4, 2), At(2026, 4, 6));
  before.Accrue(p, TimeZone::Utc(), "bob", LowGh200(), 2, At(2026, 5, 2), At(2026, 5, 3));
  before.Accrue(p, TimeZone::Utc(), "bob", Gh200(), 3, At(2026, 3, 20), At(2026, 3, 21));
  struct Charge {
    PartitionRate partition;
    UnixTime from;
    UnixTime to;
  };
  const std::vector<Charge> charges = {
      {Gh200(), At(2026, 3, 25), At(2026, 3, 26)},        // preparatory
      {Gh200(), At(2026, 3, 31, 22), At(2026, 4, 1, 2)},  // preparatory into month 1
      {Gh200(), At(2026, 4, 20), At(2026, 4, 21)},        // month 1
      {Gh200(), At(2026, 5, 31, 20), At(2026, 6, 1, 4)},  // months 2 and 3
      {LowGh200(), At(2026, 6, 10), At(2026, 6, 12)},     // low, month 3
      {Gh200(), At(2026, 8, 3), At(2026, 8, 4)},          // month 5
      {Gh200(), At(2026, 9, 30, 12), At(2026, 10, 2)},    // month 6 and after the end
      {LowGh200(), At(2026, 10, 5), At(2026, 10, 6)},     // low, after the end
  };
  int kept = 0;
  int changed = 0;
  int dropped = 0;
  for (int month = 0; month <= 8; ++month) {
    const UsageSummary summary = SummaryOf(before.Find("chem"), p, month);
    for (const Charge& c : charges) {
      Ledger after = before;
      const MonthRange charged =
          after.Accrue(p, TimeZone::Utc(), "carol", c.partition, 5, c.from, c.to);
      const std::optional<UsageSummary> got =
          SummaryAfterCharge(summary, *after.Find("chem"), p, charged);
      const UsageSummary want = SummaryOf(after.Find("chem"), p, month);
      // Replayed months: 1 to month - 1, to the last (6) at most.
      bool replayed = false;
      for (int m = charged.first; m <= charged.last; ++m) {
        replayed = replayed || (m >= 1 && m < month && m <= 6);
      }
      if (replayed) {
        EXPECT_FALSE(got.has_value()) << "month " << month << ", charge " << charged.first;
        ++dropped;
        continue;
      }
      ASSERT_TRUE(got.has_value()) << "month " << month << ", charge " << charged.first;
      EXPECT_EQ(Fields(*got), Fields(want)) << "month " << month << ", charge " << charged.first;
      ++kept;
      changed += Fields(want) != Fields(summary) ? 1 : 0;
    }
  }
  EXPECT_GT(dropped, 0);
  EXPECT_GT(changed, 0);
  EXPECT_GT(kept, changed);  // some charges leave the summary as it was (a later month)
}

TEST(LedgerRestore, RebuildsAnEqualLedger) {
  const ProjectTerms p = SmallProject("chem", 6'000);
  Ledger ledger;
  ledger.DecayTo(At(2026, 4, 1), kDay);
  ledger.Accrue(p, TimeZone::Utc(), "alice", PartitionRate{"x", PartitionRole::kLow, 333}, 3,
                At(2026, 4, 2), At(2026, 4, 2, 0, 0, 7));
  ledger.CloseMonths({p}, TimeZone::Utc(), At(2026, 5, 2));
  Result<Ledger> restored = Ledger::Restore(ledger.projects(), ledger.decayed_at());
  ASSERT_TRUE(restored.ok()) << restored.error();
  EXPECT_EQ(restored.value(), ledger);
}

TEST(LedgerRestore, RefusesBrokenInvariants) {
  const auto make = [] {
    std::map<std::string, ProjectUsage, std::less<>> projects;
    ProjectUsage& chem = projects["chem"];
    chem.total.budgeted = {0, 10, 20};
    chem.users["alice"].budgeted = {0, 10, 5};
    chem.users["bob"].budgeted = {0, 0, 15};
    return projects;
  };
  ASSERT_TRUE(Ledger::Restore(make(), std::nullopt).ok());

  auto sums = make();
  sums["chem"].users["bob"].budgeted[2] = 14;
  Result<Ledger> r = Ledger::Restore(sums, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(
      r.error(),
      "project \"chem\": budgeted usage of month 2 is 20 GPU-seconds but its users sum to 19");

  auto low = make();
  low["chem"].users["bob"].low = {0, 0, 0, 5};
  r = Ledger::Restore(low, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("low usage of month 3 is 0"), std::string::npos) << r.error();

  auto negative = make();
  negative["chem"].total.budgeted[1] = -10;
  negative["chem"].users["alice"].budgeted[1] = -10;
  r = Ledger::Restore(negative, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("negative usage"), std::string::npos) << r.error();

  auto carry = make();
  carry["chem"].users["alice"].carry_milli[1] = 1000;
  r = Ledger::Restore(carry, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("carry 1000"), std::string::npos) << r.error();

  auto decayed = make();
  decayed["chem"].users["bob"].decayed = std::nan("");
  r = Ledger::Restore(decayed, std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("user \"bob\": decayed usage"), std::string::npos) << r.error();

  auto closed = make();
  closed["chem"].closed_months = -1;
  EXPECT_FALSE(Ledger::Restore(closed, std::nullopt).ok());
}

// Random sequences of every operation: after each one the users sum to the
// project, the schedule conserves the credit, and every thousandth of a
// GPU-second billed is either charged or in a carry (nothing lost or doubled).
TEST(LedgerProperty, ConservesUsageAndCreditUnderRandomOperations) {
  const std::vector<ProjectTerms> terms = {SmallProject("chem", 6'000), SmallProject("bio", 30'000),
                                           LargeProject("astro", 250'000)};
  const std::vector<std::string> users = {"alice", "bob", "carol"};
  const std::vector<PartitionRate> partitions = {Gh200(),
                                                 LowGh200(),
                                                 {"x86", PartitionRole::kBudgeted, 333},
                                                 {"x86low", PartitionRole::kLow, 7}};
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    const auto uniform = [&rng](std::int64_t lo, std::int64_t hi) {
      return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    Ledger ledger;
    // Expected thousandths per (account, user, role) and recorded whole seconds.
    std::map<std::tuple<std::string, std::string, int>, std::int64_t> billed_milli;
    std::map<std::tuple<std::string, std::string, int>, GpuSeconds> recorded;
    UnixTime now = At(2025, 12, 1);
    for (int step = 0; step < 300; ++step) {
      const ProjectTerms& t = terms[static_cast<std::size_t>(uniform(0, 2))];
      const std::string& user = users[static_cast<std::size_t>(uniform(0, 2))];
      switch (uniform(0, 4)) {
        case 0:
        case 1: {
          const PartitionRate& part = partitions[static_cast<std::size_t>(uniform(0, 3))];
          const std::int64_t nodes = uniform(1, 16);
          const UnixTime from = now - uniform(0, 3 * kDay);
          const UnixTime to = from + uniform(1, 40 * kDay);
          ledger.Accrue(t, TimeZone::Utc(), user, part, nodes, from, to);
          billed_milli[{t.account, user, static_cast<int>(part.role)}] +=
              nodes * (to - from) * part.rate;
          break;
        }
        case 2: {
          const auto role = uniform(0, 1) == 0 ? PartitionRole::kBudgeted : PartitionRole::kLow;
          const GpuSeconds amount = uniform(0, GpuHours(500));
          ledger.Record(t.account, user, static_cast<int>(uniform(0, 13)), role, amount);
          recorded[{t.account, user, static_cast<int>(role)}] += amount;
          break;
        }
        case 3:
          now += uniform(-kDay, 20 * kDay);  // the clock may go back
          ledger.DecayTo(now, 7 * kDay);
          break;
        default: {
          const Ledger before = ledger;
          const std::vector<ClosedMonth> closed = ledger.CloseMonths(terms, TimeZone::Utc(), now);
          // In order per project, and a second call changes nothing.
          std::map<std::string, int> last;
          for (const ClosedMonth& c : closed) {
            const int previous = before.Find(c.account) ? before.Find(c.account)->closed_months : 0;
            EXPECT_EQ(c.month, (last.count(c.account) ? last[c.account] : previous) + 1);
            last[c.account] = c.month;
          }
          const Ledger after = ledger;
          EXPECT_TRUE(ledger.CloseMonths(terms, TimeZone::Utc(), now).empty());
          EXPECT_EQ(ledger, after);
          break;
        }
      }
      ExpectInvariants(ledger, terms);
      for (const ProjectTerms& pt : terms) {
        const ProjectStatus s = StatusOf(ledger, pt, TimeZone::Utc(), now);
        if (s.month >= 1 && s.month <= pt.calendar.months()) {
          EXPECT_EQ(s.remaining + s.open.accounted_before + s.used_this_month, pt.credit);
        }
      }
    }
    // Nothing lost, nothing counted twice.
    for (const auto& [account, project] : ledger.projects()) {
      for (const auto& [name, user] : project.users) {
        for (int role = 0; role < 2; ++role) {
          const auto key = std::make_tuple(account, name, role);
          const std::int64_t milli = billed_milli.count(key) ? billed_milli[key] : 0;
          const GpuSeconds charged = SumOf(role == 0 ? user.budgeted : user.low);
          const GpuSeconds imported = recorded.count(key) ? recorded[key] : 0;
          EXPECT_EQ(charged - imported, milli / 1000) << seed << " " << account << " " << name;
          EXPECT_EQ(user.carry_milli[static_cast<std::size_t>(role)], milli % 1000);
        }
      }
    }
    ASSERT_TRUE(Ledger::Restore(ledger.projects(), ledger.decayed_at()).ok());
  }
}

TEST(LedgerAddDecayed, RaisesFairShareUsageOnlyOfProjectAndUser) {
  Ledger ledger;
  ledger.Record("proj", "alice", 1, PartitionRole::kBudgeted, 3600);
  ledger.AddDecayed("proj", "alice", 1800.5);
  const ProjectUsage* project = ledger.Find("proj");
  ASSERT_NE(project, nullptr);
  EXPECT_DOUBLE_EQ(project->total.decayed, 1800.5);
  EXPECT_DOUBLE_EQ(project->users.at("alice").decayed, 1800.5);
  EXPECT_EQ(project->total.Budgeted(1), 3600);  // charged usage untouched
}

// --- The clock: going back, jumping ahead ------------------------------------------------

TEST(LedgerClock, AnEmptyOrBackwardSpanChargesNothing) {
  const ProjectTerms chem = SmallProject("chem", 6'000);
  const PartitionRate gh200{"normal", PartitionRole::kBudgeted, kGh200MilliRate};
  Ledger ledger;
  ledger.Accrue(chem, TimeZone::Utc(), "alice", gh200, 4, At(2026, 5, 2), At(2026, 5, 1));
  ledger.Accrue(chem, TimeZone::Utc(), "alice", gh200, 4, At(2026, 5, 2), At(2026, 5, 2));
  EXPECT_EQ(ledger.Find("chem"), nullptr);
  ledger.Accrue(chem, TimeZone::Utc(), "alice", gh200, 1, At(2026, 5, 2), At(2026, 5, 2) + 1);
  ASSERT_NE(ledger.Find("chem"), nullptr);
  EXPECT_EQ(ledger.Find("chem")->total.Total(), 4);
}

TEST(LedgerClock, DecayIgnoresAClockGoingBack) {
  const ProjectTerms chem = SmallProject("chem", 6'000);
  const PartitionRate gh200{"normal", PartitionRole::kBudgeted, kGh200MilliRate};
  Ledger ledger;
  ledger.DecayTo(At(2026, 5, 1), 7 * kDay);
  ledger.Accrue(chem, TimeZone::Utc(), "alice", gh200, 1, At(2026, 5, 1), At(2026, 5, 1, 1));
  ledger.DecayTo(At(2026, 5, 8), 7 * kDay);  // one half-life
  const double decayed = ledger.Find("chem")->total.decayed;
  EXPECT_DOUBLE_EQ(decayed, 4 * kHour / 2.0);
  ledger.DecayTo(At(2026, 4, 1), 7 * kDay);  // back a month: nothing, and no growth
  EXPECT_EQ(ledger.Find("chem")->total.decayed, decayed);
  EXPECT_EQ(ledger.decayed_at(), At(2026, 5, 8));
  ledger.DecayTo(At(2026, 5, 15), 7 * kDay);  // the next half-life counts from 8 May
  EXPECT_DOUBLE_EQ(ledger.Find("chem")->total.decayed, decayed / 2.0);
}

TEST(LedgerClock, AJumpClosesEveryMonthOnceAndGoingBackReopensNone) {
  const ProjectTerms chem = SmallProject("chem", 6'000);
  const PartitionRate gh200{"normal", PartitionRole::kBudgeted, kGh200MilliRate};
  Ledger ledger;
  ledger.Accrue(chem, TimeZone::Utc(), "alice", gh200, 1, At(2026, 4, 3), At(2026, 4, 4));
  EXPECT_EQ(ledger.CloseMonths({chem}, TimeZone::Utc(), At(2026, 4, 20)).size(), 0U);
  // The clock jumps from April to the end of the project and beyond.
  const std::vector<ClosedMonth> closed =
      ledger.CloseMonths({chem}, TimeZone::Utc(), At(2027, 2, 1));
  ASSERT_EQ(closed.size(), 6U);
  for (int m = 1; m <= 6; ++m) {
    EXPECT_EQ(closed[static_cast<std::size_t>(m - 1)].month, m);
  }
  EXPECT_EQ(closed[0].row.used, GpuHours(96));
  const Ledger after_jump = ledger;
  // Back to June, then forward again: nothing closes twice, nothing changes.
  EXPECT_TRUE(ledger.CloseMonths({chem}, TimeZone::Utc(), At(2026, 6, 15)).empty());
  EXPECT_TRUE(ledger.CloseMonths({chem}, TimeZone::Utc(), At(2027, 3, 1)).empty());
  EXPECT_EQ(ledger, after_jump);
  // Usage that arrives late for a closed month stays >= 0 and in that month.
  ledger.Accrue(chem, TimeZone::Utc(), "alice", gh200, 1, At(2026, 5, 1), At(2026, 5, 1, 1));
  EXPECT_EQ(ledger.Find("chem")->total.Budgeted(2), GpuHours(4));
  EXPECT_EQ(ledger.Find("chem")->closed_months, 6);
}

}  // namespace
}  // namespace budget
