// sbudget check-config: validates a budget.conf (content, owner and mode) and summarises it.
#include <fmt/core.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budget/billing.hpp"
#include "budget/civil_date.hpp"
#include "budget/config.hpp"
#include "budget/file_trust.hpp"
#include "budget/project_accounts.hpp"
#include "budget/result.hpp"
#include "budget/schedule.hpp"
#include "budget/text.hpp"
#include "budget/units.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "instant.hpp"
#include "plugin_paths.hpp"
#include "run_command.hpp"
#include "slurm_conf_text.hpp"

namespace budget::cli {

namespace {

// "4", "0.125", "2.5": thousandths without trailing zeros.
std::string FormatRate(MilliRate rate) {
  std::string out = std::to_string(rate / 1000);
  MilliRate fraction = rate % 1000;
  if (fraction != 0) {
    std::string digits = fmt::format("{:03d}", fraction);
    while (digits.back() == '0') {
      digits.pop_back();
    }
    out += '.' + digits;
  }
  return out;
}

std::string FormatPrices(const std::map<int, Centimes>& prices) {
  std::string out;
  for (const auto& [year, price] : prices) {
    out += fmt::format("{}{}:{}", out.empty() ? "" : ",", year, FormatChf(price));
  }
  return out;
}

// Rows of cells printed with each column as wide as its widest cell; the
// columns listed in `right` are right-aligned (numbers).
std::string Table(const std::vector<std::vector<std::string>>& rows,
                  const std::vector<bool>& right) {
  std::vector<std::size_t> widths(right.size(), 0);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += right[i] ? fmt::format("  {:>{}}", row[i], widths[i])
                       : fmt::format("  {:<{}}", row[i], widths[i]);
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line + '\n';
  }
  return out;
}

std::string Summary(const BudgetConfig& config) {
  std::string out = fmt::format("{}: OK, {} partition{}, {} project{}\n", config.path,
                                config.partitions.size(), config.partitions.size() == 1 ? "" : "s",
                                config.projects.size(), config.projects.size() == 1 ? "" : "s");
  out += fmt::format(
      "CreditUsedUp={} UnbudgetedAccounts={} LowPartition={} NodeHourPrice={}\n",
      config.credit_used_up == BudgetConfig::CreditUsedUpAction::kRedirect ? "redirect" : "reject",
      config.unbudgeted_accounts == BudgetConfig::UnbudgetedAction::kAllow ? "allow" : "reject",
      config.low_partition, FormatPrices(config.node_hour_prices));

  if (!config.partitions.empty()) {
    std::vector<std::vector<std::string>> rows = {{"partition", "role", "GPUh/node-hour"}};
    for (const PartitionRate& p : config.partitions) {
      rows.push_back(
          {p.name, p.role == PartitionRole::kLow ? "low" : "budgeted", FormatRate(p.rate)});
    }
    out += "\n" + Table(rows, {false, false, true});
  }

  if (!config.projects.empty()) {
    std::vector<std::vector<std::string>> rows = {{"project", "kind", "credit GPUh",
                                                   "start..last day", "months", "grace", "CHF",
                                                   "CHF/node-hour"}};
    for (const ProjectSpec& p : config.projects) {
      // The credit's worth in CHF is counted in GH200 node-hours (policy.md §2).
      rows.push_back(
          {p.account, p.kind == ProjectKind::kSmall ? "small" : "large", FormatGpuHours(p.credit),
           FormatCivilDate(p.calendar.start()) + ".." + FormatCivilDate(p.calendar.last_day()),
           std::to_string(p.calendar.months()),
           fmt::format("{:.1f}%", GraceFor(p.credit).Percent()),
           FormatChf(ChfOf(p.credit, p.price_per_node_hour, kGh200MilliRate)),
           FormatChf(p.price_per_node_hour)});
    }
    out += "\n" + Table(rows, {false, false, true, false, true, true, true, true});
  }
  return out;
}

// What slurm.conf must say for the budgets to rank jobs: Slurm's defaults are priority/basic
// and a fair-share weight of 0. Warnings, since budget.conf may be readied before the switch.
void CheckPrioritySettings(std::string_view slurm_conf_text, const std::string& slurm_conf) {
  const std::optional<std::string> type = SlurmConfValue(slurm_conf_text, "PriorityType");
  if (type != "priority/budget") {
    fmt::print(stderr,
               "sbudget: warning: {} has {}: the budgets rank no job until it is "
               "PriorityType=priority/budget\n",
               slurm_conf,
               type ? "PriorityType=" + *type : "no PriorityType (priority/basic by default)");
  }
  const std::optional<std::string> weight =
      SlurmConfValue(slurm_conf_text, "PriorityWeightFairshare");
  if (!weight || weight->find_first_not_of('0') == std::string::npos) {
    fmt::print(stderr,
               "sbudget: warning: {} has {}: the budget factor adds nothing to a job's "
               "priority\n",
               slurm_conf,
               weight ? "PriorityWeightFairshare=" + *weight
                      : "no PriorityWeightFairshare (0 by default)");
  }
}

// budget.conf's partitions against those of the slurm.conf: a partition Slurm does not have
// is most likely a typo, and a job is never billed by it: a warning on stderr. Slurm's
// partitions that budget.conf leaves out are listed after the summary: their jobs are not
// billed and get FAIRSHARE 0, which a site may mean (a CPU partition).
void ComparePartitions(const BudgetConfig& config, std::string_view slurm_conf_text,
                       const std::string& slurm_conf) {
  const std::vector<std::string> in_slurm = SlurmConfPartitions(slurm_conf_text);
  for (const PartitionRate& p : config.partitions) {
    if (std::find(in_slurm.begin(), in_slurm.end(), p.name) == in_slurm.end()) {
      fmt::print(stderr,
                 "sbudget: warning: {} declares partition {}, which {} does not have (names are "
                 "case-sensitive): no job is billed by its line\n",
                 config.path, p.name, slurm_conf);
    }
  }
  std::string left_out;
  for (const std::string& name : in_slurm) {
    if (config.FindPartition(name) == nullptr) {
      left_out += (left_out.empty() ? "" : ", ") + name;
    }
  }
  if (!left_out.empty()) {
    fmt::print("\n  not in budget.conf, so not billed and FAIRSHARE 0: {} (partitions of {})\n",
               left_out, slurm_conf);
  }
}

// budget.conf against the slurm.conf slurmctld reads, when one can be read here (a configless
// login node has none: budget.conf alone is checked).
void CheckAgainstSlurmConf(const BudgetConfig& config) {
  const std::string slurm_conf = SlurmConfPath();
  const Result<std::string>& text = SlurmConfText();
  if (!text) {
    return;
  }
  CheckPrioritySettings(text.value(), slurm_conf);
  ComparePartitions(config, text.value(), slurm_conf);
}

// budget.conf's projects against the accounts slurmdbd has, as sacctmgr lists them: a project
// not ended without an account is a credit no job can use (Slurm refuses the jobs of an account
// it does not know), a typo most likely. Warnings, like the plugin's log line at its first pass
// after a load. Fails if sacctmgr does (slurmdbd not reached): nothing was compared.
void CompareAccounts(const BudgetConfig& config, UnixTime now) {
  const CommandOutput sacctmgr =
      RunCommand({"sacctmgr", "-n", "-P", "show", "account", "format=account"});
  if (sacctmgr.exit_status != 0) {
    Fail(fmt::format(
        "sacctmgr failed with exit status {}: the projects were not compared with slurmdbd's "
        "accounts",
        sacctmgr.exit_status));
  }
  const std::vector<std::string> listed = SplitLines(sacctmgr.out);
  std::vector<std::string_view> accounts;
  accounts.reserve(listed.size());
  for (const std::string& line : listed) {
    accounts.push_back(Trim(line));
  }
  const std::vector<std::string> missing =
      ProjectsWithoutAccount(config, accounts, TimeZone::Local(), now);
  for (const std::string& project : missing) {
    fmt::print(stderr,
               "sbudget: warning: {} declares project {}, which slurmdbd has no account for: no "
               "job can use its credit (sacctmgr add account {}, or correct its Project= line)\n",
               config.path, project, project);
  }
  fmt::print("\n  accounts (sacctmgr): {}\n",
             missing.empty() ? "every project not ended has one"
                             : fmt::format("{} project{} not ended without one", missing.size(),
                                           missing.size() == 1 ? "" : "s"));
}

// LoadBudgetConfig's read failure is one line, `cannot read PATH: reason` (config.hpp); its
// other errors are about the content.
bool IsReadFailure(const std::string& error, const std::string& path) {
  return error.starts_with("cannot read " + path + ": ") && error.find('\n') == std::string::npos;
}

// Whether the file's mode is one the plugin trusts, so that CheckTrustedFile refused only its
// owner.
bool OnlyTheOwnerIsForeign(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// The file belongs to a user other than root and the one running check-config.
std::string OwnerWarning(const std::string& path) {
  struct stat st {};
  (void)::stat(path.c_str(), &st);
  return fmt::format(
      "budget.conf {} is owned by uid {}, not root: slurmctld loads it only if uid {} is its "
      "SlurmUser (owned by root, any SlurmUser loads it)",
      path, st.st_uid, st.st_uid);
}

}  // namespace

void AddCheckConfigCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "check-config",
      "Validate a budget.conf, and its owner and mode as slurmctld checks them: print every "
      "error (FILE:LINE: Field: message) and exit 1, or print a summary of its partitions and "
      "projects and exit 0");
  auto path = std::make_shared<std::string>();
  cmd->add_option("file", *path,
                  fmt::format("The budget.conf to check ({})", kBudgetConfDefaultHelp));
  // The other verbs take budget.conf as --config; here the hidden option only says how to give
  // it, instead of CLI11's "argument was not expected: --config".
  auto config_value = std::make_shared<std::string>();
  CLI::Option* config_option = cmd->add_option("--config", *config_value)->group("");
  auto accounts = std::make_shared<bool>(false);
  CLI::Option* accounts_flag =
      cmd->add_flag("--accounts", *accounts,
                    "Also ask slurmdbd (sacctmgr) for its accounts and warn of each project, not "
                    "ended, that has none");
  auto at = std::make_shared<std::string>();
  cmd->add_option("--at", *at,
                  "With --accounts, the time that decides which projects have ended (default: "
                  "now)")
      ->needs(accounts_flag);
  cmd->callback([path, config_value, config_option, accounts, at] {
    if (config_option->count() > 0) {
      throw UsageError(kCheckConfigTakesTheFile);
    }
    *path = BudgetConfOr(*path, "the file to check");
    const Result<BudgetConfig> config = LoadBudgetConfig(*path);
    if (!config.ok() && IsReadFailure(config.error(), *path)) {
      Fail(config.error());
    }
    // The plugin refuses a file that users other than root and itself could write before it
    // reads it: the same check, so that a file check-config passes is one slurmctld loads.
    // "Itself" is SlurmUser in slurmctld but the user running check-config here, so an owner
    // that is neither root nor that user is only a warning: slurmctld takes the file if the
    // owner is its SlurmUser, which check-config cannot know with slurmctld stopped.
    Status trusted = CheckTrustedFile(*path, "budget.conf");
    if (!trusted.ok() && OnlyTheOwnerIsForeign(*path)) {
      fmt::print(stderr, "sbudget: warning: {}\n", OwnerWarning(*path));
      trusted = Ok();
    }
    if (!trusted.ok()) {
      fmt::print(stderr, "sbudget: error: {}\n", trusted.error());
    }
    // Content errors are FILE:LINE: lines, bare like a compiler's, so that editors can jump
    // to them.
    if (!config.ok()) {
      fmt::print(stderr, "{}\n", config.error());
    }
    if (!config.ok() || !trusted.ok()) {
      throw ExitStatus(kExitFailure);
    }
    fmt::print("{}", Summary(config.value()));
    CheckAgainstSlurmConf(config.value());
    if (*accounts) {
      CompareAccounts(config.value(), ParseInstant(*at, TimeZone::Local()));
    }
  });
}

}  // namespace budget::cli
