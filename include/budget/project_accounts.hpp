// budget.conf's projects against the accounts Slurm has: a project without one is a credit no
// job can use.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "budget/civil_date.hpp"
#include "budget/config.hpp"
#include "budget/units.hpp"

namespace budget {

// The projects of `config`, not ended at `now` (months begin in `zone`), whose account is not
// among `accounts` (the accounts Slurm has), in budget.conf's order: a Project= line no job can
// be charged to, its name mistyped or its account not yet added. An ended project's account may
// go. The plugin asks it of the accounts assoc_mgr holds, `sbudget check-config --accounts` of
// those sacctmgr lists.
std::vector<std::string> ProjectsWithoutAccount(const BudgetConfig& config,
                                                std::span<const std::string_view> accounts,
                                                const TimeZone& zone, UnixTime now);

}  // namespace budget
