// Replay internals: node bookkeeping, the EASY reservation and the two-list pending queue.
#include "budget/replay_cluster.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace budget::replay {

void NodePlan::Start(std::uint32_t job, std::uint32_t nodes, UnixTime planned_end) {
  assert(nodes <= free_ && "NodePlan::Start: not enough free nodes");
  free_ -= nodes;
  if (job >= nodes_of_.size()) {
    nodes_of_.resize(std::max<std::size_t>(job + 1U, nodes_of_.size() * 2));
  }
  nodes_of_[job] = nodes;
  by_end_.emplace(planned_end, job);
}

void NodePlan::Stop(std::uint32_t job, std::uint32_t nodes, UnixTime planned_end) {
  const auto erased = by_end_.erase({planned_end, job});
  assert(erased == 1 && "NodePlan::Stop: job not running");
  (void)erased;
  free_ += nodes;
  assert(free_ <= total_ && "NodePlan::Stop: more nodes than the cluster");
}

NodePlan::Reservation NodePlan::Reserve(std::uint32_t nodes) const {
  std::uint32_t available = free_;
  for (const auto& [end, job] : by_end_) {
    available += nodes_of_[job];
    if (available >= nodes) {
      return Reservation{end, available - nodes};
    }
  }
  // Only when nodes > total(): the caller never asks that.
  assert(false && "NodePlan::Reserve: job larger than the cluster");
  return Reservation{0, 0};
}

void PendingQueue::Rebuild(std::vector<QueueEntry> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const QueueEntry& a, const QueueEntry& b) { return Before(a, b); });
  ranked_ = std::move(entries);
  arrived_.clear();
}

void PendingQueue::Add(const QueueEntry& entry) {
  // Few arrive between two passes: an insertion into a short sorted list.
  const auto at =
      std::upper_bound(arrived_.begin(), arrived_.end(), entry,
                       [](const QueueEntry& a, const QueueEntry& b) { return Before(a, b); });
  arrived_.insert(at, entry);
}

const QueueEntry* PendingQueue::Cursor::Next() {
  const bool has_ranked = ranked_ < queue_->ranked_.size();
  const bool has_arrived = arrived_ < queue_->arrived_.size();
  if (has_ranked &&
      (!has_arrived || !Before(queue_->arrived_[arrived_], queue_->ranked_[ranked_]))) {
    return &queue_->ranked_[ranked_++];
  }
  if (has_arrived) {
    return &queue_->arrived_[arrived_++];
  }
  return nullptr;
}

}  // namespace budget::replay
