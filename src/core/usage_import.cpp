// The usage-import file: parsing the admin's CSV and recording it in the ledger.
#include "budget/usage_import.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "budget/text.hpp"

namespace budget {
namespace {

constexpr std::string_view kHeader = "account,user,month,partition,gpu_hours";
constexpr int kMaxDecimals = 6;
// Keeps whole_hours x 3600 far from int64 overflow.
constexpr std::int64_t kMaxWholeGpuHours = 1'000'000'000'000;

std::vector<std::string_view> SplitCommas(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.push_back(Trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) {
      return fields;
    }
    start = comma + 1;
  }
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool HasSpace(std::string_view s) { return s.find_first_of(" \t") != std::string_view::npos; }

// "YYYY-MM" -> the 1st of that month.
std::optional<CivilDate> ParseMonth(std::string_view s) {
  if (s.size() != 7 || s[4] != '-') {
    return std::nullopt;
  }
  for (const std::size_t i : {0U, 1U, 2U, 3U, 5U, 6U}) {
    if (!IsDigit(s[i])) {
      return std::nullopt;
    }
  }
  const int year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
  const int month = (s[5] - '0') * 10 + (s[6] - '0');
  if (month < 1 || month > 12) {
    return std::nullopt;
  }
  return CivilDate{year, month, 1};
}

// "12.25" GPU hours -> 44100 GPU-seconds; the error is "gpu_hours: why, got ...".
Result<GpuSeconds> ParseGpuHours(std::string_view s) {
  const std::size_t dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  const std::string_view decimals =
      dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  const auto all_digits = [](std::string_view t) {
    for (const char c : t) {
      if (!IsDigit(c)) {
        return false;
      }
    }
    return true;
  };
  const std::string got = ", got " + Quoted(s);
  if (s.empty() || whole.empty() || !all_digits(whole) || !all_digits(decimals) ||
      (dot != std::string_view::npos && decimals.empty())) {
    return Error{"gpu_hours: must be a non-negative number of GPU hours such as 750 or 12.25" +
                 got};
  }
  if (static_cast<int>(decimals.size()) > kMaxDecimals) {
    return Error{"gpu_hours: at most " + std::to_string(kMaxDecimals) + " decimals" + got};
  }
  std::int64_t hours = 0;
  for (const char c : whole) {
    hours = hours * 10 + (c - '0');
    if (hours > kMaxWholeGpuHours) {
      return Error{"gpu_hours: more than " + std::to_string(kMaxWholeGpuHours) + " GPU hours" +
                   got};
    }
  }
  std::int64_t fraction = 0;
  std::int64_t scale = 1;
  for (const char c : decimals) {
    fraction = fraction * 10 + (c - '0');
    scale *= 10;
  }
  // fraction / scale hours = fraction * 3600 / scale seconds, rounded half up.
  const std::int64_t seconds = (fraction * kGpuSecondsPerGpuHour * 2 + scale) / (2 * scale);
  return hours * kGpuSecondsPerGpuHour + seconds;
}

std::string MonthText(const CivilDate& d) { return FormatCivilDate(d).substr(0, 7); }

const char* RoleName(PartitionRole role) {
  return role == PartitionRole::kLow ? "low" : "budgeted";
}

}  // namespace

Result<std::vector<UsageImportRow>> ParseUsageImport(std::string_view text,
                                                     std::string_view file_name) {
  const std::string file(file_name);
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    text.remove_prefix(3);
  }
  std::vector<UsageImportRow> rows;
  std::vector<std::string> errors;
  std::map<std::tuple<std::string, std::string, CivilDate, PartitionRole>, int> seen;
  bool header_seen = false;
  LineCursor lines(text);
  while (lines.Next()) {
    std::string_view line = lines.line();
    const int line_number = lines.number();
    line = Trim(line.substr(0, line.find('#')));
    if (line.empty()) {
      continue;
    }
    const std::string where = file + ":" + std::to_string(line_number) + ": ";

    if (!header_seen) {
      std::string normalised;
      for (const std::string_view field : SplitCommas(line)) {
        if (!normalised.empty()) {
          normalised.push_back(',');
        }
        normalised += Lower(field);
      }
      if (normalised != kHeader) {
        return Error{where + "header: expected " + Quoted(kHeader) + ", got " + Quoted(line)};
      }
      header_seen = true;
      continue;
    }

    const std::vector<std::string_view> fields = SplitCommas(line);
    if (fields.size() != 5) {
      errors.push_back(where + "expected 5 comma-separated fields (" + std::string(kHeader) +
                       "), got " + std::to_string(fields.size()));
      continue;
    }
    UsageImportRow row;
    row.file = file;
    row.line = line_number;
    const std::size_t errors_before = errors.size();
    if (fields[0].empty() || HasSpace(fields[0])) {
      errors.push_back(where + "account: must be a Slurm account name, got " + Quoted(fields[0]));
    }
    row.account = std::string(fields[0]);
    if (fields[1].empty() || HasSpace(fields[1])) {
      errors.push_back(where + "user: must be a user name, got " + Quoted(fields[1]));
    }
    row.user = std::string(fields[1]);
    if (const std::optional<CivilDate> month = ParseMonth(fields[2])) {
      row.month = *month;
    } else {
      errors.push_back(where + "month: expected YYYY-MM, got " + Quoted(fields[2]));
    }
    if (fields[3] == "budgeted") {
      row.role = PartitionRole::kBudgeted;
    } else if (fields[3] == "low") {
      row.role = PartitionRole::kLow;
    } else {
      errors.push_back(where + "partition: expected \"budgeted\" or \"low\", got " +
                       Quoted(fields[3]));
    }
    if (const Result<GpuSeconds> amount = ParseGpuHours(fields[4]); amount.ok()) {
      row.amount = amount.value();
    } else {
      errors.push_back(where + amount.error());
    }
    if (errors.size() != errors_before) {
      continue;
    }

    const auto [it, inserted] =
        seen.emplace(std::make_tuple(row.account, row.user, row.month, row.role), line_number);
    if (!inserted) {
      errors.push_back(where + "duplicate of line " + std::to_string(it->second) +
                       " (same account, user, month and partition): it would count twice");
      continue;
    }
    rows.push_back(std::move(row));
  }
  if (!header_seen) {
    return Error{file + ":" + std::to_string(std::max(lines.number(), 1)) +
                 ": header: no header line; the file must start with " + Quoted(kHeader)};
  }
  if (!errors.empty()) {
    return Error{JoinLines(errors)};
  }
  return rows;
}

Status ApplyUsageImport(Ledger& ledger, const std::vector<ProjectTerms>& projects,
                        const std::vector<UsageImportRow>& rows) {
  std::map<std::string_view, const ProjectTerms*> by_account;
  for (const ProjectTerms& terms : projects) {
    by_account.emplace(terms.account, &terms);
  }
  std::vector<std::string> errors;
  std::vector<int> months(rows.size(), 0);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const UsageImportRow& row = rows[i];
    const std::string where = row.file + ":" + std::to_string(row.line) + ": ";
    const auto found = by_account.find(row.account);
    if (found == by_account.end()) {
      errors.push_back(where + "account: " + Quoted(row.account) + " is not a budgeted project");
      continue;
    }
    const ProjectCalendar& calendar = found->second->calendar;
    const int month = calendar.MonthAt(row.month);
    if (month > calendar.months()) {
      errors.push_back(where + "month: " + MonthText(row.month) + " is after the end of " +
                       row.account + " (its last month is " +
                       MonthText(calendar.MonthStart(calendar.months())) + ")");
      continue;
    }
    months[i] = month;
    // Checked against the ledger as it was before this import: several
    // calendar months before the start all add up in month 0.
    const ProjectUsage* project = ledger.Find(row.account);
    if (project != nullptr) {
      const auto user = project->users.find(row.user);
      if (user != project->users.end()) {
        const GpuSeconds already = row.role == PartitionRole::kLow ? user->second.Low(month)
                                                                   : user->second.Budgeted(month);
        if (already != 0) {
          errors.push_back(where + "month: the ledger already has " + RoleName(row.role) +
                           " usage of " + row.user + " in " + row.account + " month " +
                           std::to_string(month) + " (" + MonthText(row.month) +
                           "); importing would count it twice (was this file imported already?)");
        }
      }
    }
  }
  if (!errors.empty()) {
    return Error{JoinLines(errors)};
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ledger.Record(rows[i].account, rows[i].user, months[i], rows[i].role, rows[i].amount);
  }
  return Ok();
}

void AddImportedDecay(Ledger& ledger, const std::vector<UsageImportRow>& rows, const TimeZone& zone,
                      UnixTime now, std::int64_t half_life_seconds) {
  for (const UsageImportRow& row : rows) {
    const UnixTime from = zone.MidnightOf(row.month);
    const UnixTime to = std::min(now, zone.MidnightOf(FirstOfMonthAfter(row.month, 1)));
    double decayed = static_cast<double>(row.amount);
    if (half_life_seconds > 0 && to > from) {
      const double h = static_cast<double>(half_life_seconds);
      const double late = std::exp2(-static_cast<double>(now - to) / h);
      const double early = std::exp2(-static_cast<double>(now - from) / h);
      decayed *= h / (static_cast<double>(to - from) * std::log(2.0)) * (late - early);
    }
    ledger.AddDecayed(row.account, row.user, decayed);
  }
}

}  // namespace budget
