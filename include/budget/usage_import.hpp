// The usage-import file: past usage an admin loads into the ledger when deploying mid-project.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "budget/civil_date.hpp"
#include "budget/ledger.hpp"
#include "budget/partition.hpp"
#include "budget/result.hpp"
#include "budget/units.hpp"

namespace budget {

// One row of the file.
struct UsageImportRow {
  std::string file;  // the file name given to the parser, for messages
  int line = 0;      // 1-based line of the row
  std::string account;
  std::string user;
  CivilDate month;  // the calendar month, day 1
  PartitionRole role = PartitionRole::kBudgeted;
  GpuSeconds amount = 0;  // >= 0
};

// Parses the CSV an admin writes (sacct totals per user and month):
//
//   # usage of chem before the plugin was deployed
//   account,user,month,partition,gpu_hours
//   chem,alice,2026-04,budgeted,750
//   chem,bob,2026-05,low,12.25
//
// - The first line that is not blank or a comment is the header, exactly
//   `account,user,month,partition,gpu_hours` (spaces around names and case
//   ignored); a wrong header is the only error reported (rows are not read).
// - `#` starts a comment to the end of the line; blank lines are ignored;
//   CR LF line ends and a leading UTF-8 byte-order mark are accepted. Spaces
//   around fields are trimmed.
// - account, user: non-empty, no spaces.
// - month: the calendar month `YYYY-MM`.
// - partition: `budgeted` (charged to the credit) or `low` (the low allowance).
// - gpu_hours: a non-negative decimal number, at most 6 decimals, no sign or
//   exponent; converted to GPU-seconds (x 3600) rounded to the nearest
//   GPU-second, halves up (0.0001 GPUh = 0.36 s -> 0 s; 2 decimals are exact).
// - Two rows with the same account, user, month and partition are an error
//   (it would count the usage twice).
// On failure the error holds every error found, one per line in line order,
// each `FILE:LINE: field: message`, e.g.
//   usage.csv:7: month: expected YYYY-MM, got "2026-13"
Result<std::vector<UsageImportRow>> ParseUsageImport(std::string_view text,
                                                     std::string_view file_name);

// Records the rows in `ledger` (Ledger::Record) under the project months of
// `projects`: a calendar month before the project's start is month 0 (the
// preparatory period, recorded, not charged), the months of the project are
// 1..D. Errors, each naming the row as `FILE:LINE: field: message`:
//   - an account not in `projects`;
//   - a month from the project's end on;
//   - a row whose project month, user and partition already have usage in
//     the ledger (the file was imported already, or the plugin already
//     accrued that month: importing would count it twice).
// All or nothing: on any error the ledger is left unchanged and the error
// holds every error found, one per line. Meant for a fresh ledger
// (LoadedLedger::fresh), before the first accrual. Imported usage does not
// add to fair-share (decayed) usage (see Ledger::Record).
Status ApplyUsageImport(Ledger& ledger, const std::vector<ProjectTerms>& projects,
                        const std::vector<UsageImportRow>& rows);

// Counts imported rows for fair share as the plugin would have: each row's
// amount as if used evenly over its calendar month (in `zone`) up to `now`,
// decayed to `now` with `half_life_seconds` (the integral of
// 2^-(now - t)/half_life over the span; the amount itself when the half-life
// is 0 or the span empty), added with Ledger::AddDecayed. The ledger's
// decayed usage must already be at `now` (Ledger::DecayTo). Rows must have
// passed ApplyUsageImport.
void AddImportedDecay(Ledger& ledger, const std::vector<UsageImportRow>& rows, const TimeZone& zone,
                      UnixTime now, std::int64_t half_life_seconds);

}  // namespace budget
