// The picture of a project's budget: cumulative usage against its linear line, as SVG.
#pragma once

#include <string>

#include "budget/civil_date.hpp"
#include "budget/report.hpp"
#include "budget/units.hpp"

namespace budget::cli {

// An SVG 1.1 document (UTF-8, 940 x 500 user units) of `report` at `now`:
//   x: the project's months, from its start to its end (each month the same width);
//   y: GPU hours, from 0 to a little above the credit (or the usage, if larger).
// Drawn, each element with its numbers (GPU hours) in data-* attributes so that
// tests and scripts can read them back:
//   - the ideal line C x m / D (dashed grey; <polyline id="ideal" data-gpuh=...>);
//   - cumulative usage charged to the credit at each month's end and now
//     (blue; <polyline id="used" data-gpuh=...>), and, when credit was lost,
//     usage plus lost credit at the same points (red dashed; id="accounted"):
//     the line each month's window below is read against;
//   - for every month (<g class="month" data-month data-expected data-minimal
//     data-used data-lost data-rolled-over>, the month's own amounts as in the
//     JSON history, empty where it has null): at its end, the window between
//     where the cumulative usage had to reach to lose nothing (minimal) and the
//     line (expected), the credit lost (red) and rolled over (orange);
//   - a vertical line at now, the axes with month and GPUh ticks, a title and a legend.
// Before the start (preparatory) only the line and the axes are drawn.
std::string PlotSvg(const ProjectReport& report, UnixTime now, const TimeZone& zone);

}  // namespace budget::cli
