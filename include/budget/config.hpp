// budget.conf: the projects, partitions and options the admins declare, parsed and validated.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budget/calendar.hpp"
#include "budget/partition.hpp"
#include "budget/result.hpp"
#include "budget/units.hpp"

namespace budget {

// Where slurmctld's plugin and `sbudget check-config` look by default.
inline constexpr std::string_view kDefaultBudgetConfPath = "/etc/slurm/budget.conf";

// Defaults of budget.conf (docs/budget.conf.5 lists every key with its range).
inline constexpr int kDefaultNodeHourPriceYear = 2026;
inline constexpr Centimes kDefaultNodeHourPrice = 269;  // 2.69 CHF per node-hour
inline constexpr std::string_view kDefaultLowPartition = "low";
inline constexpr double kDefaultSmallStorageTb = 1.0;
inline constexpr std::int64_t kDefaultSmallStorageInodes = 1'000'000;
// Upper bounds that keep every product of the core (credit x price, usage x
// rate) far from int64 overflow; no real project comes near them.
inline constexpr std::int64_t kMaxCreditGpuHours = 1'000'000'000;
inline constexpr MilliRate kMaxMilliRate = 1'000'000'000;   // 1,000,000 GPUh per node-hour
inline constexpr Centimes kMaxNodeHourPrice = 100'000'000;  // 1,000,000 CHF per node-hour

// One `Project=` line, validated. Built only from a line that had no error.
struct ProjectSpec {
  std::string account;  // the Slurm account: [a-z0-9][a-z0-9_-]*
  ProjectKind kind;
  GpuSeconds credit;                  // > 0, a whole number of GPU hours (multiple of 3600)
  ProjectCalendar calendar;           // start, months (6 or 12), end; kind() == kind
  std::vector<std::string> pis;       // >= 1 institutional e-mail address, as written
  std::vector<std::string> deputies;  // >= 0 institutional e-mail addresses
  std::string title;                  // may be empty
  double storage_tb;                  // > 0; small default 1 TB
  std::int64_t storage_inodes;        // > 0; small default 1,000,000
  std::vector<std::string> fields;    // scientific fields, trimmed, empty items dropped
  // CHF per node-hour fixed at the start for the project's whole life: Price=
  // if given, else NodeHourPrice for the start year. > 0.
  Centimes price_per_node_hour;
  int line;  // 1-based line of the Project= record

  // One month of credit, C / D (rounded down to a GPU-second): the `low`
  // allowance of policy.md §4.
  GpuSeconds MonthlyBudget() const { return credit / calendar.months(); }

  friend bool operator==(const ProjectSpec&, const ProjectSpec&) = default;
};

struct BudgetConfig {
  enum class CreditUsedUpAction {
    kRedirect,  // a project with no credit left runs in the low partition (policy.md §4)
    kReject,    // its jobs are refused instead
  };
  enum class UnbudgetedAction {
    kAllow,   // accounts without a Project= line run unbilled
    kReject,  // their jobs are refused
  };

  std::string path;                       // the file name given to the parser, for messages
  std::vector<PartitionRate> partitions;  // in file order, names unique
  std::vector<ProjectSpec> projects;      // in file order, accounts unique
  // CHF per node-hour (centimes) by the year a project starts. NodeHourPrice=
  // replaces the default {2026: 269} entirely.
  std::map<int, Centimes> node_hour_prices{{kDefaultNodeHourPriceYear, kDefaultNodeHourPrice}};
  CreditUsedUpAction credit_used_up = CreditUsedUpAction::kRedirect;
  UnbudgetedAction unbudgeted_accounts = UnbudgetedAction::kAllow;
  // The partition jobs go to once the credit is used up. When the file declares
  // any partition, this one is declared with Role=low.
  std::string low_partition{kDefaultLowPartition};

  // nullptr when not declared. Account and partition names match exactly.
  const ProjectSpec* FindProject(std::string_view account) const;
  const PartitionRate* FindPartition(std::string_view name) const;

  // Field by field, the line numbers included.
  friend bool operator==(const BudgetConfig&, const BudgetConfig&) = default;
};

// The price per node-hour for projects starting in `year`: NodeHourPrice's
// entry for exactly that year, nullopt if it has none (no carrying over: a
// new year needs a new price, or Price= on each project starting in it).
std::optional<Centimes> NodeHourPriceFor(const BudgetConfig& config, int year);

// Parses and validates the text of a budget.conf. `file_name` only labels the
// messages and fills BudgetConfig::path.
//
// Format (Slurm style): one record per line, `Key=Value` pairs separated by
// spaces or tabs; keys are case-insensitive, values (account and partition
// names, dates, addresses) are not, except the enumerations (Kind, Role,
// CreditUsedUp, UnbudgetedAccounts) which are. A value may be double-quoted,
// in whole or in part, to hold spaces or `#` (no escapes: a value cannot hold
// `"`). `#` outside quotes starts a comment; blank lines are ignored; CR LF
// line ends are accepted. A line whose first key is PartitionName declares a
// partition, one whose first key is Project declares a project, any other line
// sets global options. docs/budget.conf.5 lists the keys.
//
// On failure the error holds every error found, one per line, ordered by
// line, each `FILE:LINE: Field: message`, e.g.
//   budget.conf:12: Credit: must be a whole positive number of GPU hours, got "-5"
// A line that cannot be split into pairs (unterminated quote, a word without
// `=`) yields one error and is otherwise skipped.
Result<BudgetConfig> ParseBudgetConfig(std::string_view text, std::string_view file_name);

// Reads `path` and parses it. A read failure is a one-line error naming the
// file and the reason: `cannot read /etc/slurm/budget.conf: No such file or directory`.
Result<BudgetConfig> LoadBudgetConfig(const std::string& path);

// The checks behind the errors, exposed for the CLI and tests.
// Slurm account name: non-empty, lowercase ASCII letters, digits, '_' and '-',
// starting with a letter or a digit.
bool IsSlurmAccountName(std::string_view name);
// A plain address: local@domain; local part of letters, digits and
// !#$%&'*+/=?^_`{|}~.- without leading, trailing or doubled dots; domain of at
// least two dot-separated labels of letters, digits and inner hyphens, the last
// one letters only (>= 2). No quoted local parts, no IP literals.
bool IsEmailAddress(std::string_view address);
// A generic webmail domain (case-insensitive): gmail.com, yahoo.* and the like.
// A `name.*` entry matches name followed by one or two short suffix labels
// (yahoo.fr, yahoo.co.uk), not an institution's subdomain (live.unibe.ch).
bool IsWebmailDomain(std::string_view domain);

}  // namespace budget
