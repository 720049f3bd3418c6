// Where the plugins find budget.conf and the ledger, read from slurm.conf itself, for the
// commands that run while slurmctld is stopped (ledger import and show, check-config).
#pragma once

#include <string>
#include <string_view>

#include "budget/result.hpp"

namespace budget::cli {

struct PluginPaths {
  std::string slurm_conf;   // the file they were read from
  std::string budget_conf;  // PriorityParameters' budget_conf=, else budget.conf beside slurm.conf
  std::string ledger;       // StateSaveLocation/budget_ledger (Slurm's default: /var/spool)
};

// The budget.conf the plugins read, from slurm.conf's PriorityParameters (empty: none) and
// the path of slurm.conf (empty: /etc/slurm/slurm.conf), as src/slurm/budget_paths.c: its
// budget_conf=, else budget.conf beside slurm.conf.
std::string BudgetConfPath(std::string_view priority_parameters, std::string_view slurm_conf_path);

// The paths src/slurm/budget_paths.c derives from what slurmctld read, derived from the text
// of the slurm.conf at `slurm_conf_path`, its Includes already in it (ReadSlurmConf): its
// StateSaveLocation and PriorityParameters lines (SlurmConfValue). Only "/dev/null" as
// StateSaveLocation gives no ledger (an empty `ledger`), as for the plugin.
PluginPaths PluginPathsIn(std::string_view slurm_conf_text, const std::string& slurm_conf_path);

// The slurm.conf slurmctld reads, as Slurm's commands find it: $SLURM_CONF, else
// /etc/slurm/slurm.conf.
std::string SlurmConfPath();

// SlurmConfPath()'s file as ReadSlurmConf returns it, read once: sbudget runs one command a
// process, and a command that needs both the paths and the settings reads the file once.
const Result<std::string>& SlurmConfText();

// PluginPathsIn of SlurmConfPath()'s file and the files it includes, or an error naming the
// file (and the Include line) and why it could not be read.
Result<PluginPaths> ReadPluginPaths();

// What the user gave, or else the budget.conf the plugins read; Fail()s when slurm.conf cannot
// be read, saying to give the file.
std::string BudgetConfOr(const std::string& given, std::string_view how_to_give);

// What the user gave (--ledger), or else the ledger priority/budget keeps; Fail()s when
// slurm.conf cannot be read or keeps no ledger, saying to give --ledger.
std::string LedgerOr(const std::string& given);

// For --help: where the defaults come from.
inline constexpr std::string_view kBudgetConfDefaultHelp =
    "default: the one the plugins read, from slurm.conf ($SLURM_CONF or /etc/slurm/slurm.conf): "
    "PriorityParameters=budget_conf=, else budget.conf beside slurm.conf";
inline constexpr std::string_view kLedgerDefaultHelp =
    "default: StateSaveLocation/budget_ledger, from slurm.conf ($SLURM_CONF or "
    "/etc/slurm/slurm.conf)";

}  // namespace budget::cli
