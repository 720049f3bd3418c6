// Instants on sbudget's command line (--at, --since, --until) and in sacct's UTC form.
#pragma once

#include <string>
#include <string_view>

#include "budget/civil_date.hpp"
#include "budget/units.hpp"

namespace budget::cli {

// "YYYY-MM-DD" (midnight) or "YYYY-MM-DDTHH:MM:SS" (HH 00..23, MM and SS
// 00..59, nothing after), both in `zone`, or "@EPOCH" (Unix seconds, the whole
// rest a decimal integer); "" is now (the clock). Anything else throws
// UsageError naming `option`, never rolls over into another day:
//   --at: expected YYYY-MM-DD[THH:MM:SS] or @EPOCH, got "2026-11-30T25:00:00"
UnixTime ParseInstant(const std::string& text, const TimeZone& zone,
                      std::string_view option = "--at");

// "YYYY-MM-DDTHH:MM:SS" in UTC: how sacct reads -S/-E and prints times under TZ=UTC.
std::string FormatUtc(UnixTime t);

// "YYYY-MM-DDTHH:MM:SS ZONE" in the process's local time zone (TZ), ZONE its abbreviation at
// t: "2026-05-10T14:00:00 CEST". Without ZONE it reads back as --at (but for the hour that
// repeats when the clocks go back, which "@EPOCH" tells apart); "@EPOCH" if t is out of range.
std::string FormatLocal(UnixTime t);

}  // namespace budget::cli
