// Instants on sbudget's command line (--at, --since, --until) and in sacct's UTC form.
#pragma once

#include <string>
#include <string_view>

#include "budget/civil_date.hpp"
#include "budget/units.hpp"

namespace budget::cli {

// "YYYY-MM-DD" (midnight) or "YYYY-MM-DDTHH:MM:SS", both in `zone`, or
// "@EPOCH" (Unix seconds); "" is now (the clock). Anything else throws
// CLI::ValidationError naming `option`:
//   --at: expected YYYY-MM-DD[THH:MM:SS] or @EPOCH, got "tomorrow"
UnixTime ParseInstant(const std::string& text, const TimeZone& zone,
                      std::string_view option = "--at");

// "YYYY-MM-DDTHH:MM:SS" in UTC: how sacct reads -S/-E and prints times under TZ=UTC.
std::string FormatUtc(UnixTime t);

}  // namespace budget::cli
