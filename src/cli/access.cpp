// Who runs sbudget and what they may see: scontrol's settings, sacctmgr's associations and roles.
#include "access.hpp"

#include <fmt/core.h>
#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "budget/config.hpp"
#include "budget/text.hpp"
#include "cli_error.hpp"
#include "duration.hpp"
#include "plugin_paths.hpp"
#include "run_command.hpp"

namespace budget::cli {
namespace {

// The items of `text` between separators, without the blanks around them; empty ones are left
// out (scontrol's and sacctmgr's lists end with a separator, or have blank lines).
std::vector<std::string> NonEmptyItems(std::string_view text, char separator) {
  std::vector<std::string> items;
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t to = std::min(text.find(separator, from), text.size());
    const std::string_view item = Trim(text.substr(from, to - from));
    if (!item.empty()) {
      items.emplace_back(item);
    }
    from = to + 1;
  }
  return items;
}

// Slurm's time spans as scontrol prints them ([D-]HH:MM:SS, MM:SS; a bare number is
// minutes, as Slurm's); 0 for anything else ("UNLIMITED", "(null)").
std::int64_t SlurmSpan(std::string_view text) { return ParseDuration(text, 60).value_or(0); }

bool Contains(const std::vector<std::string>& list, std::string_view item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

}  // namespace

bool SlurmSettings::HidesProjects() const {
  return Contains(private_data, "jobs") || Contains(private_data, "usage") ||
         Contains(private_data, "accounts") || Contains(private_data, "all");
}

bool SlurmSettings::HidesUsage() const {
  return Contains(private_data, "usage") || Contains(private_data, "all");
}

SlurmSettings ParseSlurmSettings(std::string_view text) {
  SlurmSettings settings;
  std::string slurm_conf;
  std::string priority_parameters;
  for (const std::string& line : NonEmptyItems(text, '\n')) {
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) {
      continue;
    }
    const std::string_view whole = line;
    const std::string_view key = Trim(whole.substr(0, eq));
    const std::string_view value = Trim(whole.substr(eq + 1));
    if (key == "PrivateData") {
      if (value != "none" && value != "(null)") {
        settings.private_data = NonEmptyItems(Lower(value), ',');
      }
    } else if (key == "PriorityParameters") {
      priority_parameters = value;
    } else if (key == "SLURM_CONF") {
      slurm_conf = value;
    } else if (key == "PriorityType") {
      settings.priority_type = value;
    } else if (key == "PriorityMaxAge") {
      settings.max_age_seconds = SlurmSpan(value);
    } else if (key == "PriorityCalcPeriod") {
      settings.calc_period_seconds = SlurmSpan(value);
    } else if (key == "PriorityWeightAge") {
      settings.weight_age = std::atoll(std::string(value).c_str());
    } else if (key == "PriorityWeightFairShare") {
      settings.weight_fairshare = std::atoll(std::string(value).c_str());
    }
  }
  settings.budget_conf = BudgetConfPath(priority_parameters, slurm_conf);
  return settings;
}

SlurmSettings ReadSlurmSettings() {
  return ParseSlurmSettings(RunCapturing({"scontrol", "show", "config"}));
}

bool Caller::IsOperator() const {
  return root || admin_level == "Operator" || admin_level == "Administrator";
}

bool Caller::IsMember(std::string_view account) const { return Contains(accounts, account); }

bool Caller::Coordinates(std::string_view account) const { return Contains(coordinated, account); }

bool Caller::SeesUsersOf(std::string_view account) const {
  return IsOperator() || Coordinates(account);
}

Caller IdentifyCaller() {
  Caller caller;
  const uid_t uid = getuid();
  caller.root = uid == 0;
  const passwd* entry = getpwuid(uid);
  if (entry == nullptr || entry->pw_name == nullptr) {
    fmt::print(stderr, "sbudget: error: uid {} has no user name\n", uid);
    throw ExitStatus(kExitFailure);
  }
  caller.user = entry->pw_name;
  for (const std::string& line :
       NonEmptyItems(RunCapturing({"sacctmgr", "-n", "-P", "show", "assoc", "where",
                                   "user=" + caller.user, "format=account"}),
                     '\n')) {
    if (!Contains(caller.accounts, line)) {
      caller.accounts.push_back(line);
    }
  }
  // One line "AdminLevel|coord1,coord2"; none when slurmdbd does not know the user.
  const std::string roles = RunCapturing({"sacctmgr", "-n", "-P", "show", "user", caller.user,
                                          "withcoord", "format=adminlevel,coordinators"});
  const std::vector<std::string> lines = NonEmptyItems(roles, '\n');
  if (!lines.empty()) {
    const std::string_view line = lines.front();
    const std::size_t bar = line.find('|');
    caller.admin_level = Trim(line.substr(0, bar));
    if (bar != std::string_view::npos) {
      caller.coordinated = NonEmptyItems(line.substr(bar + 1), ',');
    }
  }
  return caller;
}

void CheckMayView(const Caller& caller, const SlurmSettings& settings, std::string_view account) {
  if (caller.IsOperator() || caller.IsMember(account) || caller.Coordinates(account) ||
      !settings.HidesProjects()) {
    return;
  }
  fmt::print(stderr,
             "sbudget: error: project {}: {} is not one of its users or coordinators, and "
             "PrivateData={} shows a project only to those and to operators\n",
             account, caller.user, fmt::join(settings.private_data, ","));
  throw ExitStatus(kExitFailure);
}

}  // namespace budget::cli
