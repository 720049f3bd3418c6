// Replay internals: the simulated cluster's nodes, the EASY reservation, and the pending queue.
#pragma once

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "budget/units.hpp"

namespace budget::replay {

// Whole nodes of one homogeneous cluster: how many are free now, and when the
// running jobs will free theirs if each runs to its time limit (what EASY
// backfill plans with; jobs really end at start + run <= start + limit).
class NodePlan {
 public:
  explicit NodePlan(std::uint32_t nodes) : total_(nodes), free_(nodes) {}

  std::uint32_t total() const { return total_; }
  std::uint32_t free() const { return free_; }

  // A job takes `nodes` (<= free()) until at the latest `planned_end`.
  void Start(std::uint32_t job, std::uint32_t nodes, UnixTime planned_end);
  // The job started with these arguments gives its nodes back.
  void Stop(std::uint32_t job, std::uint32_t nodes, UnixTime planned_end);

  // The EASY reservation of a job needing `nodes` (> free(), <= total()):
  // `at` is the earliest planned end at which enough nodes are free, `spare`
  // the nodes free then beyond `nodes` (a backfilled job running past `at`
  // must fit in them).
  struct Reservation {
    UnixTime at = 0;
    std::uint32_t spare = 0;
  };
  Reservation Reserve(std::uint32_t nodes) const;

 private:
  std::uint32_t total_;
  std::uint32_t free_;
  // (planned end, job) of every running job, with its nodes.
  std::set<std::pair<UnixTime, std::uint32_t>> by_end_;
  std::vector<std::uint32_t> nodes_of_;  // indexed by job; grown on demand
};

// The order the scheduler tries pending jobs in: priority (higher first),
// then submit time, then trace id, then job index (total and deterministic).
struct QueueEntry {
  std::uint32_t priority = 0;
  UnixTime submit = 0;
  std::uint64_t id = 0;
  std::uint32_t job = 0;     // index into the replay's jobs
  std::uint32_t serial = 0;  // the job's serial when queued (not part of the order)

  friend bool Before(const QueueEntry& a, const QueueEntry& b) {
    if (a.priority != b.priority) {
      return a.priority > b.priority;
    }
    if (a.submit != b.submit) {
      return a.submit < b.submit;
    }
    if (a.id != b.id) {
      return a.id < b.id;
    }
    return a.job < b.job;
  }
};

// Pending jobs in scheduling order, sorted once per priority pass: the jobs
// ranked by the last pass, and those that arrived since (submitted or
// requeued, ranked at arrival) in a second, short sorted list. A scan walks
// both as one sequence. Entries of jobs that have left the queue (started)
// stay until the next Rebuild; the caller skips them (it knows which jobs are
// pending).
class PendingQueue {
 public:
  // Replaces the queue by `entries` (the pass's new ranking), sorted.
  void Rebuild(std::vector<QueueEntry> entries);
  // Adds a job between passes.
  void Add(const QueueEntry& entry);
  // Every entry, ranked and arrived, in no particular order (for a pass).
  template <typename F>
  void ForEach(F&& f) const {
    for (const QueueEntry& e : ranked_) {
      f(e);
    }
    for (const QueueEntry& e : arrived_) {
      f(e);
    }
  }
  std::size_t size() const { return ranked_.size() + arrived_.size(); }

  // A scan in order. Valid until the queue changes (Add, Rebuild).
  class Cursor {
   public:
    explicit Cursor(const PendingQueue& queue) : queue_(&queue) {}
    // The next entry, or nullptr at the end.
    const QueueEntry* Next();

   private:
    const PendingQueue* queue_;
    std::size_t ranked_ = 0;
    std::size_t arrived_ = 0;
  };
  Cursor Scan() const { return Cursor(*this); }

 private:
  std::vector<QueueEntry> ranked_;
  std::vector<QueueEntry> arrived_;
};

}  // namespace budget::replay
