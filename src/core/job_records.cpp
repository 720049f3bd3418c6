// slurmdbd's job records: parsing sacct's output and billing it like the plugin's ledger.
#include "budget/job_records.hpp"

#include <algorithm>
#include <cassert>
#include <limits>
#include <map>
#include <tuple>
#include <utility>

#include "budget/billing.hpp"
#include "budget/text.hpp"
#include "budget/units.hpp"

namespace budget {
namespace {

constexpr std::size_t kFieldCount = 8;
constexpr std::int64_t kMilli = 1000;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::vector<std::string_view> SplitPipes(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t pipe = line.find('|', start);
    fields.push_back(line.substr(start, pipe - start));
    if (pipe == std::string_view::npos) {
      return fields;
    }
    start = pipe + 1;
  }
}

// The value of `n` digits at s[pos..pos+n), or -1 if one is not a digit.
int Digits(std::string_view s, std::size_t pos, std::size_t n) {
  int value = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!IsDigit(s[i])) {
      return -1;
    }
    value = value * 10 + (s[i] - '0');
  }
  return value;
}

// "YYYY-MM-DDTHH:MM:SS" in UTC. Not through TimeZone: sacct ran with TZ=UTC,
// whatever the cluster's zone.
std::optional<UnixTime> ParseUtcTime(std::string_view s) {
  if (s.size() != 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
      s[16] != ':') {
    return std::nullopt;
  }
  const CivilDate date{Digits(s, 0, 4), Digits(s, 5, 2), Digits(s, 8, 2)};
  const int hour = Digits(s, 11, 2);
  const int minute = Digits(s, 14, 2);
  const int second = Digits(s, 17, 2);
  if (date.year < 0 || !IsValidCivilDate(date) || hour < 0 || hour > 23 || minute < 0 ||
      minute > 59 || second < 0 || second > 59) {
    return std::nullopt;
  }
  return static_cast<UnixTime>(DaysFromCivil(date)) * kSecondsPerDay +
         static_cast<UnixTime>(hour) * 3600 + static_cast<UnixTime>(minute) * 60 + second;
}

bool IsUnset(std::string_view s) { return s == "Unknown" || s == "None"; }

std::optional<std::int64_t> ParseNodes(std::string_view s) {
  if (s.empty()) {
    return std::nullopt;
  }
  std::int64_t nodes = 0;
  for (const char c : s) {
    if (!IsDigit(c)) {
      return std::nullopt;
    }
    nodes = nodes * 10 + (c - '0');
    if (nodes > kMaxJobNodes) {
      return std::nullopt;
    }
  }
  return nodes;
}

int RoleIndex(PartitionRole role) { return role == PartitionRole::kLow ? 1 : 0; }

// One row being summed: thousandths of a GPU-second, and the first line billed.
struct Cell {
  __int128 milli = 0;
  int line = 0;
};

// (account, user, calendar month, role index): the order of the rows.
using CellKey = std::tuple<std::string, std::string, CivilDate, int>;

}  // namespace

Result<std::vector<JobRecord>> ParseJobRecords(std::string_view text,
                                               std::string_view source_name) {
  const std::string source(source_name);
  std::vector<JobRecord> jobs;
  std::vector<std::string> errors;
  LineCursor lines(text);
  while (lines.Next()) {
    std::string_view line = lines.line();
    const int line_number = lines.number();
    if (line.find_first_not_of(" \t") == std::string_view::npos) {
      continue;
    }
    const std::string where = source + ":" + std::to_string(line_number) + ": ";
    const std::vector<std::string_view> f = SplitPipes(line);
    if (f.size() != kFieldCount) {
      errors.push_back(where + "expected " + std::to_string(kFieldCount) + " |-separated fields (" +
                       std::string(kSacctJobFields) + "), got " + std::to_string(f.size()));
      continue;
    }
    const std::size_t errors_before = errors.size();
    JobRecord job;
    job.source = source;
    job.line = line_number;
    job.job_id = std::string(f[0]);
    job.account = std::string(f[1]);
    job.user = std::string(f[2]);
    job.partition = std::string(f[3]);
    job.state = std::string(f[7]);
    if (job.job_id.empty()) {
      errors.push_back(where + "JobID: empty");
    }
    if (job.state.empty()) {
      errors.push_back(where + "State: empty");
    }
    if (!IsUnset(f[5])) {
      job.start = ParseUtcTime(f[5]);
      if (!job.start) {
        errors.push_back(where + "Start: expected YYYY-MM-DDTHH:MM:SS, Unknown or None, got " +
                         Quoted(f[5]));
      }
    }
    // A job that never ran is skipped whole: its other fields (several
    // partitions, a node range) are requests, not usage.
    if (job.start) {
      if (job.user.empty()) {
        errors.push_back(where + "User: empty");
      }
      if (job.partition.empty() || job.partition.find(',') != std::string::npos) {
        errors.push_back(where + "Partition: a job that ran has one partition, got " +
                         Quoted(f[3]));
      }
      if (const std::optional<std::int64_t> nodes = ParseNodes(f[4])) {
        job.nodes = *nodes;
      } else {
        errors.push_back(where + "NNodes: expected a whole number of nodes up to " +
                         std::to_string(kMaxJobNodes) + ", got " + Quoted(f[4]));
      }
      if (!IsUnset(f[6])) {
        job.end = ParseUtcTime(f[6]);
        if (!job.end) {
          errors.push_back(where + "End: expected YYYY-MM-DDTHH:MM:SS, Unknown or None, got " +
                           Quoted(f[6]));
        } else if (*job.end < *job.start) {
          errors.push_back(where + "End: " + Quoted(f[6]) + " is before Start " + Quoted(f[5]));
        }
      }
    }
    if (errors.size() == errors_before) {
      jobs.push_back(std::move(job));
    }
  }
  if (!errors.empty()) {
    return Error{JoinLines(errors)};
  }
  return jobs;
}

std::vector<UsageImportRow> BillJobRecords(const std::vector<JobRecord>& jobs,
                                           const BudgetConfig& config, const TimeZone& zone,
                                           UnixTime since, UnixTime until,
                                           JobRecordsSummary* summary) {
  JobRecordsSummary counts;
  std::map<CellKey, Cell> cells;
  std::string source;
  for (const JobRecord& job : jobs) {
    ++counts.jobs;
    if (source.empty()) {
      source = job.source;
    }
    if (!job.start) {
      ++counts.not_started;
      continue;
    }
    const UnixTime from = std::max(*job.start, since);
    const UnixTime to = std::min(job.end.value_or(until), until);
    if (to <= from) {
      ++counts.outside_window;
      continue;
    }
    const ProjectSpec* project = config.FindProject(job.account);
    if (project == nullptr) {
      ++counts.unbudgeted_account;
      continue;
    }
    const PartitionRate* partition = config.FindPartition(job.partition);
    if (partition == nullptr) {
      ++counts.unbilled_partition;
      continue;
    }
    ++counts.billed;
    const ProjectCalendar& calendar = project->calendar;
    bool past_end = false;
    for (const MonthSlice& slice : SplitByProjectMonth(calendar, zone, from, to)) {
      if (slice.month > calendar.months()) {
        past_end = true;
        continue;
      }
      // Months 1..D are calendar months already; the preparatory slice may
      // span several, and the import file names calendar months.
      UnixTime cursor = slice.from;
      while (cursor < slice.to) {
        const CivilDate date = zone.DateAt(cursor);
        const CivilDate month{date.year, date.month, 1};
        const UnixTime piece_end = std::min(slice.to, zone.MidnightOf(FirstOfMonthAfter(month, 1)));
        assert(piece_end > cursor && "job_records: a calendar month ends before it starts");
        // In 128 bits, as Ledger::Accrue: nodes x seconds x rate can pass int64.
        Cell& cell = cells[CellKey{job.account, job.user, month, RoleIndex(partition->role)}];
        cell.milli += static_cast<__int128>(job.nodes) * (piece_end - cursor) * partition->rate;
        if (cell.line == 0) {
          cell.line = job.line;
        }
        cursor = piece_end;
      }
    }
    if (past_end) {
      ++counts.past_end;
    }
  }

  std::vector<UsageImportRow> rows;
  for (const auto& [key, cell] : cells) {
    const __int128 whole = cell.milli / kMilli;
    assert(whole <= std::numeric_limits<GpuSeconds>::max() && "job_records: a row overflows int64");
    const GpuSeconds amount = whole > std::numeric_limits<GpuSeconds>::max()
                                  ? std::numeric_limits<GpuSeconds>::max()
                                  : static_cast<GpuSeconds>(whole);
    if (amount == 0) {
      continue;
    }
    const auto& [account, user, month, role] = key;
    rows.push_back(UsageImportRow{source, cell.line, account, user, month,
                                  role == 1 ? PartitionRole::kLow : PartitionRole::kBudgeted,
                                  amount});
  }
  if (summary != nullptr) {
    *summary = counts;
  }
  return rows;
}

}  // namespace budget
