// Billing (policy.md §2): GPU-hours in CHF, and usage split at project month boundaries.
#pragma once

#include <string>
#include <vector>

#include "budget/calendar.hpp"
#include "budget/civil_date.hpp"
#include "budget/units.hpp"

namespace budget {

// The price of `usage` GPU-seconds when one node-hour costs
// `price_per_node_hour` centimes and a node-hour is billed `rate` thousandths
// of a GPU hour: usage / rate node-hours times the price, rounded to the
// nearest centime (halves away from zero). 48 GPUh at 269 centimes per
// node-hour and 4 GPUh per node-hour = 12 node-hours = 3228 centimes.
// A rate <= 0 bills nothing per node-hour, so the result is 0.
Centimes ChfOf(GpuSeconds usage, Centimes price_per_node_hour, MilliRate rate = kGh200MilliRate);

// "32.28", "0.05", "-1.50", "1,234.56": francs with two decimals, thousands
// separated by commas like FormatGpuHours.
std::string FormatChf(Centimes amount);

// A piece of [from, to) that lies in one project month.
struct MonthSlice {
  int month;      // 0 before start (preparatory), 1..months(), months()+1 from end() on
  UnixTime from;  // inclusive
  UnixTime to;    // exclusive; from < to
};

// Splits [from, to) at the project's month boundaries: midnight, in `zone`, of
// MonthStart(1) .. MonthStart(months()+1). Slices come in time order, are
// never empty, and cover [from, to) exactly. Empty when to <= from.
std::vector<MonthSlice> SplitByProjectMonth(const ProjectCalendar& calendar, const TimeZone& zone,
                                            UnixTime from, UnixTime to);

}  // namespace budget
