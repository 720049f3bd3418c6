// Durations on sbudget's command line, as slurm.conf writes them or with a unit.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace budget::cli {

// Seconds of a duration (>= 0) given as:
//   - Slurm's time forms, as slurm.conf and `scontrol show config` write them: "D-H",
//     "D-H:M", "D-H:M:S", "H:M:S", "M:S" (PriorityDecayHalfLife=7-0 is 7 days);
//   - a whole number with a unit: "90s", "30m", "12h", "14d";
//   - a bare whole number, in `bare_unit_seconds` (each option keeps the unit it always had;
//     Slurm's own bare number, minutes, is not guessed at).
// nullopt for anything else: signs, blanks, fractions, empty fields, text after the value, a
// value past about 290 billion years.
std::optional<std::int64_t> ParseDuration(std::string_view text, std::int64_t bare_unit_seconds);

// ParseDuration, or UsageError naming `option` and the forms it takes:
//   --half-life: expected a duration (7-0, 14d, 12h, 90s, or a whole number of days), got "7x"
std::int64_t ParseDurationOption(std::string_view text, std::int64_t bare_unit_seconds,
                                 std::string_view option, std::string_view bare_unit_name);

}  // namespace budget::cli
