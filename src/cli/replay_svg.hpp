// The pictures of a replay: delivered against owed per project, and occupancy over time, as SVG.
#pragma once

#include <string>
#include <vector>

#include "budget/civil_date.hpp"
#include "budget/replay.hpp"
#include "replay_output.hpp"

namespace budget::cli {

// An SVG 1.1 document (UTF-8, 940 x 500 user units): for every project (in the
// order of the first result's months), one bar per policy of the GPU hours
// delivered over the replay, with a black tick at what it was owed (TotalOf:
// its months' expected consumption under that policy, the last month's prorated). Each project is a
// <g class="project" data-project="p01" data-POLICY-owed data-POLICY-delivered
// data-POLICY-lost> (GPUh), so that tests and scripts can read the numbers back.
// `results` has 1 or 2 entries.
std::string DeliveredSvg(const ReplayRun& run, const std::vector<ReplayResult>& results);

// An SVG 1.1 document (940 x 500): the share of nodes busy, per day (the mean
// of the day's hourly samples, days of the zone), one line per policy, from the
// first submission to the last job end of any policy. Each line is a
// <polyline id="occupancy-POLICY" data-days="N" data-busy="f1 f2 ..."> with
// the daily fractions (0..1, 4 decimals).
std::string OccupancySvg(const ReplayRun& run, const std::vector<ReplayResult>& results,
                         const TimeZone& zone);

}  // namespace budget::cli
