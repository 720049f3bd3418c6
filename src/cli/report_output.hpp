// How sbudget prints a project report: text for people, JSON for scripts (--json).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

#include "budget/report.hpp"

namespace budget::cli {

// The report as text: a heading, the state and this month, remaining credit
// and runway, the month-by-month table, and with `users` the per-user table.
// GPU hours are rounded to a tenth (FormatGpuHours); ends with a blank line.
std::string ReportText(const ProjectReport& report, bool users);

// The report as a JSON object. Amounts are GPU hours (numbers, exact to the
// GPU-second: GPU-seconds / 3600), money in CHF (numbers with 2 decimals),
// dates "YYYY-MM-DD", absent values null. `users` adds the "users" array.
// The keys are listed in docs/sbudget.1. (The header declares it with nlohmann/json's forward
// declarations: the files that print text only do not compile the whole library.)
nlohmann::ordered_json ReportJson(const ProjectReport& report, bool users);

// Words for the project's state at its month (for `sbudget` and `sbudget why`):
// "active, month 3 of 6", "preparatory: starts 2026-04-01", ...
std::string StateText(const ProjectReport& report);

// What the fair-share band means for the project's jobs, one sentence.
std::string BandText(const ProjectReport& report);

}  // namespace budget::cli
