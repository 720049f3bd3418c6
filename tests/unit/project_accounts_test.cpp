// Tests of budget.conf's projects against the accounts Slurm has (project_accounts.hpp).
#include "budget/project_accounts.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "parse_ok.hpp"
#include "scoped_tz.hpp"

namespace budget {
namespace {

using Names = std::vector<std::string>;

// chem: small, preparatory until 1 April 2026, its last day 30 September; phys: large, from
// 1 January 2026 to 31 December; bio: small, created 15 September 2025, from 1 October to its
// last day, 31 March 2026.
constexpr std::string_view kConf =
    "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
    "PartitionName=low Role=low GpuhPerNodeHour=4\n"
    "Project=chem Kind=small Credit=6000 Created=2026-03-15 PIs=ana.muster@unibe.ch\n"
    "Project=phys Kind=large Credit=120000 Start=2026-01-01 PIs=a@uni.ch StorageTB=1 "
    "StorageInodes=1000\n"
    "Project=bio Kind=small Credit=6000 Created=2025-09-15 Price=2.69 PIs=b@uni.ch\n";

BudgetConfig Config() { return ParseOk(kConf); }

UnixTime Midnight(const TimeZone& zone, int year, int month, int day) {
  return zone.MidnightOf(CivilDate{year, month, day});
}

TEST(ProjectsWithoutAccount, AreThoseSlurmLacksInBudgetConfsOrder) {
  const BudgetConfig config = Config();
  const TimeZone utc = TimeZone::Utc();
  const UnixTime march = Midnight(utc, 2026, 3, 20);
  const std::vector<std::string_view> slurm = {"root", "phys", "ops"};
  EXPECT_EQ(ProjectsWithoutAccount(config, slurm, utc, march), (Names{"chem", "bio"}));
  EXPECT_EQ(ProjectsWithoutAccount(config, {}, utc, march), (Names{"chem", "phys", "bio"}));
  const std::vector<std::string_view> all = {"bio", "chem", "phys"};
  EXPECT_TRUE(ProjectsWithoutAccount(config, all, utc, march).empty());
}

TEST(ProjectsWithoutAccount, LeaveOutAProjectFromMidnightAfterItsLastDayInTheSitesZone) {
  const ScopedTz zurich("Europe/Zurich");
  const BudgetConfig config = Config();
  const TimeZone local = TimeZone::Local();
  // bio's last day is 31 March: until midnight in Zurich, 22:00 UTC, it still counts.
  const UnixTime end = Midnight(local, 2026, 4, 1);
  EXPECT_EQ(end, Midnight(TimeZone::Utc(), 2026, 3, 31) + 22 * 3600);
  EXPECT_EQ(ProjectsWithoutAccount(config, {}, local, end - 1), (Names{"chem", "phys", "bio"}));
  EXPECT_EQ(ProjectsWithoutAccount(config, {}, local, end), (Names{"chem", "phys"}));
}

}  // namespace
}  // namespace budget
