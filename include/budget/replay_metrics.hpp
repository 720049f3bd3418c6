// Replay internals: what a replay measures (project months, waits, occupancy), fed by the
// simulation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "budget/calendar.hpp"
#include "budget/civil_date.hpp"
#include "budget/replay.hpp"
#include "budget/units.hpp"

namespace budget::replay {

// Nearest-rank percentiles of `waits` (seconds, any order): pN is the
// smallest wait with at least N% of the waits <= it; all 0 when empty.
WaitPercentiles Percentiles(std::string group, std::vector<std::int64_t> waits);

// Busy node-seconds in hourly buckets from `origin`.
class Occupancy {
 public:
  static constexpr std::int64_t kBucketSeconds = 3600;

  Occupancy(UnixTime origin, std::uint32_t nodes) : origin_(origin), nodes_(nodes) {}
  // `nodes` nodes busy over [from, to); from >= origin.
  void Add(UnixTime from, UnixTime to, std::uint32_t nodes);
  // One sample per bucket from origin up to `end` (the last one may be
  // partial: its fraction is over the part before `end`).
  std::vector<OccupancySample> Samples(UnixTime end) const;
  // Busy node-seconds / (nodes x (end - origin)); 0 when end <= origin.
  double Mean(UnixTime end) const;

 private:
  UnixTime origin_;
  std::uint32_t nodes_;
  std::int64_t busy_total_ = 0;
  std::vector<std::int64_t> busy_;  // node-seconds per bucket
};

// The per project and calendar month rows. The simulation calls BeginMonth at
// every month boundary (and once at the start), so no interval it reports
// crosses a boundary; pending counts and states are intervals, closed into
// the current month at each change, boundary and at Finish.
class ProjectMonthLog {
 public:
  // `accounts`: budget.conf's projects in order; `states`: theirs at `start`.
  ProjectMonthLog(std::vector<std::string> accounts, const std::vector<ProjectState>& states,
                  CivilDate month, UnixTime start);

  // A new calendar month begins at `at` (midnight of the 1st).
  void BeginMonth(CivilDate month, UnixTime at);
  void SetOwed(std::size_t project, GpuSeconds owed);
  // GPU-seconds run in the current month.
  void AddDelivered(std::size_t project, GpuSeconds amount, bool low);
  // Credit lost at the close of the project month that began on `month`'s
  // 1st; ignored when that month is not one of the replay's.
  void AddLost(std::size_t project, const CivilDate& month, GpuSeconds lost);
  // One more (delta = +1) or one fewer (-1) pending job of the project at `now`.
  void PendingChanged(std::size_t project, int delta, UnixTime now);
  // The project's running jobs hold `delta_gpus` more (or, negative, fewer)
  // GPUs from `now` on.
  void RunningChanged(std::size_t project, std::int64_t delta_gpus, UnixTime now);
  // The project's lifecycle state seen at `now`.
  void StateIs(std::size_t project, ProjectState state, UnixTime now);
  // Closes the open intervals at `end`; rows by project (accounts order), then month.
  std::vector<ReplayProjectMonth> Finish(UnixTime end);

 private:
  struct Track {
    int pending = 0;
    std::int64_t running_gpus = 0;
    UnixTime pending_since = 0;  // since the last change of pending or running_gpus
    ProjectState state = ProjectState::kPreparatory;
    UnixTime state_since = 0;
    std::vector<ReplayProjectMonth> rows;  // one per month of the replay
  };
  void Flush(Track& track, UnixTime now);
  // Charges [pending_since, now) to waiting_seconds and delivered_while_waiting
  // when the project had work pending, and restarts the interval at `now`.
  static void CloseWaiting(Track& track, UnixTime now);

  std::vector<std::string> accounts_;
  std::vector<CivilDate> months_;  // the replay's calendar months, in order
  std::vector<Track> tracks_;
};

}  // namespace budget::replay
