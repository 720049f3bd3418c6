// Replay internals: percentiles, hourly occupancy and per project-month bookkeeping.
#include "budget/replay_metrics.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace budget::replay {

namespace {

// Nearest rank: the ceil(p/100 x n)-th smallest, in integers.
std::int64_t Rank(const std::vector<std::int64_t>& sorted, std::size_t percent) {
  const std::size_t n = sorted.size();
  std::size_t rank = (percent * n + 99) / 100;
  rank = std::max<std::size_t>(rank, 1);
  return sorted[rank - 1];
}

}  // namespace

WaitPercentiles Percentiles(std::string group, std::vector<std::int64_t> waits) {
  WaitPercentiles out;
  out.group = std::move(group);
  out.jobs = waits.size();
  if (waits.empty()) {
    return out;
  }
  std::sort(waits.begin(), waits.end());
  out.p50 = Rank(waits, 50);
  out.p90 = Rank(waits, 90);
  out.p99 = Rank(waits, 99);
  out.max = waits.back();
  return out;
}

void Occupancy::Add(UnixTime from, UnixTime to, std::uint32_t nodes) {
  assert(from >= origin_ && "Occupancy::Add before the origin");
  if (to <= from || nodes == 0) {
    return;
  }
  busy_total_ += (to - from) * nodes;
  const auto last = static_cast<std::size_t>((to - 1 - origin_) / kBucketSeconds);
  if (busy_.size() <= last) {
    busy_.resize(last + 1, 0);
  }
  for (UnixTime t = from; t < to;) {
    const auto bucket = static_cast<std::size_t>((t - origin_) / kBucketSeconds);
    const UnixTime bucket_end = origin_ + (static_cast<std::int64_t>(bucket) + 1) * kBucketSeconds;
    const UnixTime slice_end = std::min(to, bucket_end);
    busy_[bucket] += (slice_end - t) * nodes;
    t = slice_end;
  }
}

std::vector<OccupancySample> Occupancy::Samples(UnixTime end) const {
  std::vector<OccupancySample> out;
  for (UnixTime at = origin_; at < end; at += kBucketSeconds) {
    const auto bucket = static_cast<std::size_t>((at - origin_) / kBucketSeconds);
    const std::int64_t length = std::min(end, at + kBucketSeconds) - at;
    const std::int64_t busy = bucket < busy_.size() ? busy_[bucket] : 0;
    out.push_back(OccupancySample{at, static_cast<double>(busy) / (static_cast<double>(length) *
                                                                   static_cast<double>(nodes_))});
  }
  return out;
}

double Occupancy::Mean(UnixTime end) const {
  if (end <= origin_ || nodes_ == 0) {
    return 0.0;
  }
  return static_cast<double>(busy_total_) /
         (static_cast<double>(end - origin_) * static_cast<double>(nodes_));
}

ProjectMonthLog::ProjectMonthLog(std::vector<std::string> accounts,
                                 const std::vector<ProjectState>& states, CivilDate month,
                                 UnixTime start)
    : accounts_(std::move(accounts)), tracks_(accounts_.size()) {
  assert(states.size() == accounts_.size() && "ProjectMonthLog: one state per project");
  months_.push_back(month);
  for (std::size_t p = 0; p < tracks_.size(); ++p) {
    Track& track = tracks_[p];
    track.state = states[p];
    track.state_since = start;
    track.pending_since = start;
    ReplayProjectMonth row;
    row.account = accounts_[p];
    row.month = month;
    track.rows.push_back(row);
  }
}

void ProjectMonthLog::CloseWaiting(Track& track, UnixTime now) {
  if (track.pending > 0) {
    ReplayProjectMonth& row = track.rows.back();
    row.waiting_seconds += now - track.pending_since;
    row.delivered_while_waiting += track.running_gpus * (now - track.pending_since);
  }
  track.pending_since = now;
}

void ProjectMonthLog::Flush(Track& track, UnixTime now) {
  CloseWaiting(track, now);
  ReplayProjectMonth& row = track.rows.back();
  row.seconds_in_state[static_cast<std::size_t>(track.state)] += now - track.state_since;
  track.state_since = now;
}

void ProjectMonthLog::BeginMonth(CivilDate month, UnixTime at) {
  months_.push_back(month);
  for (std::size_t p = 0; p < tracks_.size(); ++p) {
    Flush(tracks_[p], at);
    ReplayProjectMonth row;
    row.account = accounts_[p];
    row.month = month;
    tracks_[p].rows.push_back(row);
  }
}

void ProjectMonthLog::SetOwed(std::size_t project, GpuSeconds owed) {
  tracks_[project].rows.back().owed = owed;
}

void ProjectMonthLog::AddDelivered(std::size_t project, GpuSeconds amount, bool low) {
  ReplayProjectMonth& row = tracks_[project].rows.back();
  row.delivered += amount;
  if (low) {
    row.delivered_low += amount;
  }
}

void ProjectMonthLog::AddLost(std::size_t project, const CivilDate& month, GpuSeconds lost) {
  const auto found = std::find(months_.begin(), months_.end(), month);
  if (found != months_.end()) {
    tracks_[project].rows[static_cast<std::size_t>(found - months_.begin())].lost += lost;
  }
}

void ProjectMonthLog::PendingChanged(std::size_t project, int delta, UnixTime now) {
  Track& track = tracks_[project];
  CloseWaiting(track, now);
  track.pending += delta;
  assert(track.pending >= 0 && "ProjectMonthLog: negative pending count");
}

void ProjectMonthLog::RunningChanged(std::size_t project, std::int64_t delta_gpus, UnixTime now) {
  Track& track = tracks_[project];
  CloseWaiting(track, now);
  track.running_gpus += delta_gpus;
  assert(track.running_gpus >= 0 && "ProjectMonthLog: negative running GPUs");
}

void ProjectMonthLog::StateIs(std::size_t project, ProjectState state, UnixTime now) {
  Track& track = tracks_[project];
  if (state == track.state) {
    return;
  }
  track.rows.back().seconds_in_state[static_cast<std::size_t>(track.state)] +=
      now - track.state_since;
  track.state = state;
  track.state_since = now;
}

std::vector<ReplayProjectMonth> ProjectMonthLog::Finish(UnixTime end) {
  std::vector<ReplayProjectMonth> out;
  for (Track& track : tracks_) {
    Flush(track, end);
    for (ReplayProjectMonth& row : track.rows) {
      const std::int64_t month_seconds =
          std::int64_t{DaysInMonth(row.month.year, row.month.month)} * 86'400;
      // floor(owed x waiting / month) without the product, which may pass
      // 2^63 for a credit near config.hpp's bound: waiting <= month.
      const GpuSeconds owed = std::max<GpuSeconds>(row.owed, 0);
      row.owed_while_waiting = owed / month_seconds * row.waiting_seconds +
                               owed % month_seconds * row.waiting_seconds / month_seconds;
      out.push_back(std::move(row));
    }
    track.rows.clear();
  }
  return out;
}

}  // namespace budget::replay
