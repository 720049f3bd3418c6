// How `sbudget replay` prints its results: side-by-side text, JSON, and the start order as CSV.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "budget/civil_date.hpp"
#include "budget/replay.hpp"

namespace budget::cli {

// What was replayed, for the heading and the JSON "trace" object.
struct ReplayRun {
  std::string trace;   // the file name as given
  std::string format;  // "swf" or "csv"
  std::size_t jobs = 0;
  // SWF jobs left out, by reason (Trace::skipped_*).
  std::size_t skipped_no_submit = 0;
  std::size_t skipped_no_run_time = 0;
  std::size_t skipped_no_nodes = 0;
  std::uint32_t nodes = 0;
  std::uint32_t gpus_per_node = 0;
  CivilDate start;       // the trace's time 0, midnight in the zone
  bool utc = false;      // months in UTC instead of the local zone
  std::string projects;  // "budget.conf FILE", "FILE mapped by MAP", "12 generated projects"
};

// `policy`'s name as the output writes it: "budget", "baseline".
const char* PolicyName(ReplayPolicy policy);

// Durations as Slurm writes them: "M:SS" .. "H:MM:SS", "D-HH:MM:SS" from a day; negative as 0.
std::string FormatDuration(std::int64_t seconds);

// "YYYY-MM-DD HH:MM" of an instant in `zone`; "-" for a negative time (none).
std::string FormatMinute(UnixTime t, const TimeZone& zone);

// What a project was owed over the part of month `m` inside the replay: its
// owed (the whole month's expected) x the seconds of the month inside the
// replay (the sum of seconds_in_state) / the month's length (days x 86,400),
// rounded toward zero. A replay that ends an hour into a month is owed an
// hour's worth of it, not the month.
GpuSeconds OwedInReplay(const ReplayProjectMonth& m);

// A project's months of `r` summed: OwedInReplay, delivered, delivered_low,
// lost, waiting_seconds and seconds_in_state; month is left at its default.
ReplayProjectMonth TotalOf(const ReplayResult& r, const std::string& account);

// The results (one per policy, in the order run), side by side:
//   a heading with the trace (jobs, and those skipped, by reason), cluster and start;
//   "Cluster": jobs started, jobs not started by outcome, requeues, mean
//   occupancy, first submission, makespan end and length, and per wait group
//   (all, small, large, unbudgeted: WaitPercentiles::group) the jobs and the
//   p50, p90, p99 and max wait, one column per policy;
//   "Projects": one row per project and month (budget.conf order, then month),
//   and a total row per project (TotalOf: owed prorated to the replay), with
//   per policy: owed (expected), delivered,
//   of which low, lost (GPUh, FormatGpuHours), waiting (time with a job
//   pending) and the time in each lifecycle state, in days from a day on, else
//   in hours ("active 28.0d low 3.0d", "active 2.0h").
// `results` has 1 or 2 entries; months missing from one result show as "-".
// Ends with a newline.
std::string ReplayText(const ReplayRun& run, const std::vector<ReplayResult>& results,
                       const TimeZone& zone);

// The same as a JSON object (keys listed in docs/sbudget.1):
//   {"trace": {file, format, jobs, skipped: {no_submit, no_run_time, no_processors},
//              nodes, gpus_per_node, start, zone, projects},
//    "policies": [{policy, jobs_started, not_started: {OUTCOME: count}, requeues,
//                  mean_occupancy (0..1), first_submit, makespan_end (Unix seconds),
//                  makespan_seconds, priority_passes, scheduler_passes,
//                  waits: [{group, jobs, p50, p90, p99, max}] (seconds),
//                  projects: [{project, months: [{month "YYYY-MM", owed, delivered,
//                  delivered_low, lost (GPUh as numbers), waiting_seconds,
//                  seconds_in_state: {STATE: seconds}}], owed (TotalOf's,
//                  prorated), delivered, lost}]}]}
// indented by two spaces, ending with a newline. Text rather than an object, so that the verb
// does not compile nlohmann/json for one call.
std::string ReplayJson(const ReplayRun& run, const std::vector<ReplayResult>& results);

// The start order as CSV: header `policy,order,job_id,start` then one row per
// started job, each policy's jobs in start order (order 1, 2, ...), start in
// Unix seconds. Ends with a newline.
std::string StartsCsv(const std::vector<ReplayResult>& results);

}  // namespace budget::cli
