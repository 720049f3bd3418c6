// Who runs sbudget, what Slurm lets them see (PrivateData, coordinators), and Slurm's settings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace budget::cli {

// What `scontrol show config` says that sbudget needs.
struct SlurmSettings {
  // PrivateData's flags, lowercase ("jobs", "usage", ...); empty for none.
  std::vector<std::string> private_data;
  // budget.conf: PriorityParameters' budget_conf=PATH when set (as the plugin
  // reads it), else budget.conf next to SLURM_CONF, else /etc/slurm/budget.conf.
  std::string budget_conf;
  std::string priority_type;             // PriorityType, e.g. priority/budget
  std::int64_t max_age_seconds = 0;      // PriorityMaxAge
  std::int64_t calc_period_seconds = 0;  // PriorityCalcPeriod
  std::int64_t weight_age = 0;           // PriorityWeightAge
  std::int64_t weight_fairshare = 0;     // PriorityWeightFairShare

  // PrivateData hides other users' jobs, usage or accounts: then a project is
  // shown only to its members, its coordinators and operators.
  bool HidesProjects() const;
  // PrivateData=usage: other users' usage is shown only to coordinators and
  // operators (as sshare does).
  bool HidesUsage() const;
};

// Parses the text of `scontrol show config` ("Key = value" lines). Unknown or
// missing keys keep their defaults; durations are Slurm's [D-]HH:MM:SS.
SlurmSettings ParseSlurmSettings(std::string_view text);

// Runs `scontrol show config` and parses it. Fails when scontrol does.
SlurmSettings ReadSlurmSettings();

// The user running sbudget, as Slurm's accounting knows them.
struct Caller {
  std::string user;         // the name of the real uid
  bool root = false;        // uid 0
  std::string admin_level;  // sacctmgr's AdminLevel: None, Operator, Administrator ("" if unknown)
  std::vector<std::string> accounts;     // accounts the user has an association with
  std::vector<std::string> coordinated;  // accounts the user coordinates

  // uid 0, or AdminLevel Operator or Administrator: may see every project.
  bool IsOperator() const;
  bool IsMember(std::string_view account) const;
  bool Coordinates(std::string_view account) const;
  // May see every user's usage in `account`: operator or coordinator.
  bool SeesUsersOf(std::string_view account) const;
};

// The real uid's name, then `sacctmgr -n -P show assoc where user=NAME
// format=account` and `sacctmgr -n -P show user NAME withcoord
// format=adminlevel,coordinators`. Fails when the uid has no name or
// sacctmgr fails.
Caller IdentifyCaller();

// Prints `sbudget: error: project ACCOUNT: ...why...` and exits with status 1
// (throws ExitStatus) unless `caller` may see `account`: operators
// always; members and coordinators of the account; anyone when PrivateData
// hides nothing.
void CheckMayView(const Caller& caller, const SlurmSettings& settings, std::string_view account);

}  // namespace budget::cli
