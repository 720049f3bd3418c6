// Tests of where sbudget finds the plugins' files in slurm.conf (src/cli/plugin_paths.hpp).
#include "plugin_paths.hpp"

#include <gtest/gtest.h>

namespace budget::cli {
namespace {

TEST(BudgetConfPath, TakesBudgetConfFromPriorityParameters) {
  EXPECT_EQ(BudgetConfPath("budget_conf=/srv/b.conf", "/etc/slurm/slurm.conf"), "/srv/b.conf");
  EXPECT_EQ(BudgetConfPath("x=1,budget_conf=/srv/b.conf,y=2", "/etc/slurm/slurm.conf"),
            "/srv/b.conf");
}

TEST(BudgetConfPath, ElseTakesTheOneBesideSlurmConf) {
  EXPECT_EQ(BudgetConfPath("", "/opt/slurm/etc/slurm.conf"), "/opt/slurm/etc/budget.conf");
  EXPECT_EQ(BudgetConfPath("other=1", "/opt/slurm/etc/slurm.conf"), "/opt/slurm/etc/budget.conf");
  EXPECT_EQ(BudgetConfPath("", ""), "/etc/slurm/budget.conf");  // Slurm's default slurm.conf
  EXPECT_EQ(BudgetConfPath("", "slurm.conf"), "budget.conf");
}

TEST(PluginPathsIn, ReadsTheLastLineOfEachKeyInAnyCase) {
  const PluginPaths paths = PluginPathsIn(
      "# StateSaveLocation=/commented\n"
      "statesavelocation = /var/lib/old   # the earlier line\n"
      "StateSaveLocation=/var/lib/slurm/slurmctld\n"
      "PRIORITYPARAMETERS=budget_conf=/etc/slurm/budgets/b.conf\n"
      "NodeName=gh[1-4] CPUs=288\n",
      "/etc/slurm/slurm.conf");
  EXPECT_EQ(paths.slurm_conf, "/etc/slurm/slurm.conf");
  EXPECT_EQ(paths.ledger, "/var/lib/slurm/slurmctld/budget_ledger");
  EXPECT_EQ(paths.budget_conf, "/etc/slurm/budgets/b.conf");
}

TEST(PluginPathsIn, ReadsQuotedValuesAndStopsAtABlank) {
  EXPECT_EQ(PluginPathsIn("StateSaveLocation=\"/srv/state dir\"\n", "/e/slurm.conf").ledger,
            "/srv/state dir/budget_ledger");
  EXPECT_EQ(PluginPathsIn("StateSaveLocation=/srv/state Other=1\r\n", "/e/slurm.conf").ledger,
            "/srv/state/budget_ledger");
}

TEST(PluginPathsIn, FollowsSlurmsDefaults) {
  const PluginPaths paths = PluginPathsIn("ClusterName=c\n", "/etc/slurm/slurm.conf");
  EXPECT_EQ(paths.ledger, "/var/spool/budget_ledger");  // Slurm's StateSaveLocation default
  EXPECT_EQ(paths.budget_conf, "/etc/slurm/budget.conf");
}

TEST(PluginPathsIn, KeepsNoLedgerForDevNull) {
  EXPECT_EQ(PluginPathsIn("StateSaveLocation=/dev/null\n", "/e/slurm.conf").ledger, "");
}

}  // namespace
}  // namespace budget::cli
