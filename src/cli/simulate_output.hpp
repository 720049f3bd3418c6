// Rendering of a simulated schedule: the text table and the JSON array of `sbudget simulate`.
#pragma once

#include <string>

#include "budget/schedule.hpp"

namespace budget::cli {

// A header line (credit, months, grace), then one row per closed month and,
// unless the schedule is over, one row for the open month with used, lost and
// graced shown as "-". minimal is "-" in a month with none (expected <= 0,
// ahead of the line). Amounts in GPUh as FormatGpuHours writes them; columns
// right-aligned. Ends with a newline.
std::string ScheduleTable(const Schedule& schedule);

// The same rows as a JSON array of objects with the keys month, accounted_before,
// ideal, expected, minimal, used, lost, graced, remaining: month an integer,
// amounts GPUh as numbers (GPU-seconds / 3600), minimal null when there is none
// (expected <= 0), used/lost/graced null in the open month. Ends with a newline.
std::string ScheduleJson(const Schedule& schedule);

}  // namespace budget::cli
