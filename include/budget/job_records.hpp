// slurmdbd's job records (sacct output) billed into usage-import rows, as the plugin bills.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budget/civil_date.hpp"
#include "budget/config.hpp"
#include "budget/result.hpp"
#include "budget/units.hpp"
#include "budget/usage_import.hpp"

namespace budget {

// The sacct fields ParseJobRecords reads, in order (the value of `-o`).
inline constexpr std::string_view kSacctJobFields =
    "JobID,Account,User,Partition,NNodes,Start,End,State";

// One job allocation, as sacct reports it.
struct JobRecord {
  std::string source;   // the name given to the parser, for messages
  int line = 0;         // 1-based line of the record
  std::string job_id;   // as printed: 1234, 1234_7 (array), 1234+1 (heterogeneous)
  std::string account;  // may be empty (then no project bills it)
  std::string user;
  // A job that ran: its one partition. A job that never started: the field
  // as printed, possibly a comma-separated list of partitions.
  std::string partition;
  std::int64_t nodes = 0;  // a job that ran: 0..kMaxJobNodes; never started: 0
  // nullopt: the job never started (Start `Unknown` or `None`).
  std::optional<UnixTime> start;
  // nullopt: the job has not ended (End `Unknown` or `None`): it is running.
  // When both are set, start <= end.
  std::optional<UnixTime> end;
  std::string state;  // as printed (RUNNING, COMPLETED, "CANCELLED by 0", ...)
};

// More nodes than any cluster has: a larger NNodes is a malformed line.
inline constexpr std::int64_t kMaxJobNodes = 10'000'000;

// Parses what
//   sacct -a -D -X -n -P --noconvert -o JobID,Account,User,Partition,NNodes,Start,End,State
// prints: one job allocation per line, 8 fields separated by `|`, no header.
// Blank lines are ignored; CR LF line ends are accepted.
//
// Start and End are `YYYY-MM-DDTHH:MM:SS` in UTC: run sacct with TZ=UTC (and
// SLURM_TIME_FORMAT=standard), so that the times of the days the clocks
// change are not ambiguous. `Unknown` or `None` means not started / not ended.
//
// Fields are checked as far as the job is billed:
//   - every line: 8 fields; JobID and State non-empty; Start a time, Unknown
//     or None;
//   - a job that started, in addition: User non-empty; Partition one name (a
//     job that ran has one partition; only jobs that never ran list several);
//     NNodes an integer in 0..kMaxJobNodes; End a time, Unknown or None, and
//     not before Start.
// On failure the error holds every error found, one per line in line order,
// each `SOURCE:LINE: Field: message`, e.g.
//   sacct:7: NNodes: expected a whole number of nodes, got "2-4"
Result<std::vector<JobRecord>> ParseJobRecords(std::string_view text, std::string_view source_name);

// What BillJobRecords did with the jobs, for the admin's report.
struct JobRecordsSummary {
  int jobs = 0;                // records read
  int not_started = 0;         // never started: nothing to bill
  int outside_window = 0;      // started, but no time in [since, until)
  int unbudgeted_account = 0;  // in the window, account without a Project= line
  int unbilled_partition = 0;  // in the window, budgeted account, partition not in budget.conf
  int billed = 0;              // the rest: billed, at least in part
  // Billed jobs that ran on from their project's end: that part is not
  // imported (the plugin records it past the schedule, charged to no month;
  // the import file cannot name such a month).
  int past_end = 0;
};

// Bills `jobs` exactly as the plugin's ledger does (Ledger::Accrue), as rows
// ApplyUsageImport can record:
//   - Each job is clipped to [since, until); a job still running (no End)
//     runs until `until`. Jobs that never started are skipped.
//   - A job bills nodes x seconds x the rate of its partition in `config`
//     (PartitionRate::rate, thousandths of a GPUh per node-hour), to the low
//     usage in a partition of Role=low, to the budgeted usage otherwise.
//     Jobs of an account without a Project= line, or in a partition budget.conf
//     does not declare, bill nothing (the plugin does not bill them either).
//   - The time is split at the project's month boundaries, midnight in `zone`
//     of the 1st (SplitByProjectMonth): time before the start is the
//     preparatory period (month 0), further split by calendar month; time from
//     the project's end on is dropped (counted in summary->past_end).
//   - Rows are per (account, user, calendar month, role): the node-seconds x
//     rate thousandths of all the jobs of a row are summed, then rounded down
//     to whole GPU-seconds once. With whole rates (4 GPUh per node-hour) this
//     is exact; with fractional rates a row may be up to 1 GPU-second below
//     what the plugin's per-user carry would have charged in that month.
//     Rows of 0 GPU-seconds are left out.
// Rows come sorted by account, user, month, role; each row's `file` is the
// records' source and its `line` the first record billed to it. `summary`,
// when given, is overwritten. since >= until bills nothing.
std::vector<UsageImportRow> BillJobRecords(const std::vector<JobRecord>& jobs,
                                           const BudgetConfig& config, const TimeZone& zone,
                                           UnixTime since, UnixTime until,
                                           JobRecordsSummary* summary = nullptr);

}  // namespace budget
