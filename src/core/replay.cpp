// Replay: the discrete-event simulation of a Slurm-like controller ranking jobs with the budget
// engine or a baseline.
#include "budget/replay.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "budget/admission.hpp"
#include "budget/engine.hpp"
#include "budget/replay_cluster.hpp"
#include "budget/replay_metrics.hpp"

namespace budget {

const char* ToString(ReplayPolicy policy) {
  switch (policy) {
    case ReplayPolicy::kBudget:
      return "budget";
    case ReplayPolicy::kBaseline:
      return "baseline";
  }
  return "?";
}

namespace {

using replay::NodePlan;
using replay::PendingQueue;
using replay::QueueEntry;

constexpr std::size_t kNoProject = static_cast<std::size_t>(-1);
constexpr UnixTime kNever = std::numeric_limits<UnixTime>::max();

enum class JobState : std::uint8_t { kNotSubmitted, kPending, kRunning, kDone, kRefused };

struct Job {
  TraceJob trace;
  std::size_t project = kNoProject;  // index into config.projects
  std::uint32_t partition = 0;       // index into Simulation::partitions_
  JobState state = JobState::kNotSubmitted;
  bool held = false;
  AdmissionCause hold_cause = AdmissionCause::kNone;
  // Bumped at every start and requeue: queue entries and end events of an
  // older serial are stale.
  std::uint32_t serial = 0;
  UnixTime start = -1;
  UnixTime end = -1;
  UnixTime last_accrual = 0;
  int requeues = 0;
  std::string outcome;
};

struct Partition {
  std::string name;
  PartitionKind kind = PartitionKind::kUnbudgeted;
};

// An end event: (end, job, serial); the earliest first, then by job index.
using EndEvent = std::tuple<UnixTime, std::uint32_t, std::uint32_t>;

class Simulation {
 public:
  Simulation(const BudgetConfig& config, std::vector<TraceJob> trace, const ReplayOptions& options)
      : config_(config), options_(options), plan_(options.nodes) {
    for (std::size_t p = 0; p < config.projects.size(); ++p) {
      project_index_.emplace(config.projects[p].account, p);
    }
    for (const PartitionRate& rate : config.partitions) {
      if (rate.role == PartitionRole::kBudgeted) {
        default_partition_ = rate.name;
        break;
      }
    }
    jobs_.reserve(trace.size());
    for (TraceJob& t : trace) {
      Job job;
      const auto found = project_index_.find(t.account);
      job.project = found == project_index_.end() ? kNoProject : found->second;
      job.partition = Intern(t.partition.empty() ? default_partition_ : t.partition);
      job.trace = std::move(t);
      jobs_.push_back(std::move(job));
    }
  }

  ReplayResult Run();

 private:
  std::uint32_t Intern(const std::string& name);
  bool IsLow(const Job& job) const {
    return partitions_[job.partition].kind == PartitionKind::kLow;
  }
  std::int64_t GpusOf(const Job& job) const {
    return std::int64_t{job.trace.nodes} * options_.gpus_per_node;
  }
  bool IsBudgeted(const Job& job) const {
    return partitions_[job.partition].kind == PartitionKind::kBudgeted;
  }
  bool Live(const QueueEntry& e) const {
    const Job& job = jobs_[e.job];
    return job.state == JobState::kPending && job.serial == e.serial;
  }

  void Submit(std::uint32_t index, UnixTime now);
  void Pass(UnixTime now);
  void MonthBoundary(UnixTime now);
  // The main scheduler, then EASY backfill when `backfill` (a backfill
  // instant). Sets blocked_ when a job waits while nodes are idle.
  void Schedule(UnixTime now, bool backfill);
  void Start(std::uint32_t index, UnixTime now);
  void Finish(std::uint32_t index, UnixTime now);
  bool Preempt(std::uint32_t nodes, UnixTime now, std::vector<std::uint32_t>& requeued);
  void Requeue(std::uint32_t index, UnixTime now);
  void Accrue(Job& job, UnixTime now);
  void AccrueRunning(UnixTime now);
  void RemoveRunning(std::uint32_t index);
  void Advance(UnixTime now);
  void ObserveStates(UnixTime now);
  void RecordOwed(UnixTime now);
  void UpdateBaselineFactors(UnixTime now);
  // The lifecycle verdict for the job's project and partition at `now`
  // (Engine::Admit, remembered until `now` changes or usage accrues).
  struct Verdict {
    AdmissionAction action = AdmissionAction::kAllow;
    AdmissionCause cause = AdmissionCause::kNone;
    std::uint32_t redirect = 0;  // kRedirect: the partition to run in
  };
  Verdict VerdictOf(const Job& job, UnixTime now);
  std::uint32_t Rank(const Job& job, UnixTime now);
  QueueEntry EntryOf(std::uint32_t index) const;
  ReplayResult Collect();

  const BudgetConfig& config_;
  const ReplayOptions& options_;
  std::unordered_map<std::string, std::size_t> project_index_;
  std::string default_partition_;
  std::vector<Partition> partitions_;
  std::unordered_map<std::string, std::uint32_t> partition_index_;
  std::vector<Job> jobs_;

  std::unique_ptr<Engine> engine_;
  NodePlan plan_;
  PendingQueue queue_;
  std::priority_queue<EndEvent, std::vector<EndEvent>, std::greater<>> ends_;
  std::vector<std::uint32_t> running_;                        // job indices, any order
  std::vector<std::size_t> running_slot_;                     // per job: its place in running_
  std::set<std::pair<UnixTime, std::uint32_t>> low_running_;  // (start, job)
  std::uint32_t low_running_nodes_ = 0;
  std::vector<double> baseline_factor_;  // per project, at the last pass
  std::unordered_map<std::uint64_t, Verdict> verdicts_;
  UnixTime verdicts_at_ = -1;
  UnixTime now_ = 0;  // the instant being processed
  // The last scheduler run left a job waiting and nodes idle without trying
  // backfill: the next backfill instant is an event.
  bool blocked_ = false;

  std::optional<replay::ProjectMonthLog> log_;
  std::optional<replay::Occupancy> occupancy_;
  ReplayResult result_;
  UnixTime makespan_end_ = 0;
};

std::uint32_t Simulation::Intern(const std::string& name) {
  const auto found = partition_index_.find(name);
  if (found != partition_index_.end()) {
    return found->second;
  }
  Partition partition{name, PartitionKind::kUnbudgeted};
  if (const PartitionRate* rate = config_.FindPartition(name); rate != nullptr) {
    partition.kind =
        rate->role == PartitionRole::kLow ? PartitionKind::kLow : PartitionKind::kBudgeted;
  }
  const auto index = static_cast<std::uint32_t>(partitions_.size());
  partitions_.push_back(std::move(partition));
  partition_index_.emplace(name, index);
  return index;
}

QueueEntry Simulation::EntryOf(std::uint32_t index) const {
  const Job& job = jobs_[index];
  return QueueEntry{.priority = 0,
                    .submit = job.trace.submit,
                    .id = job.trace.id,
                    .job = index,
                    .serial = job.serial};
}

std::uint32_t Simulation::Rank(const Job& job, UnixTime now) {
  JobPriorityInputs in;
  in.now = now;
  in.accrue_time = job.trace.submit;
  in.min_nodes = job.trace.nodes;
  in.cluster_nodes = options_.nodes;
  in.cluster_cpus = options_.nodes * options_.gpus_per_node;
  const std::int64_t minutes = std::max<std::int64_t>(1, (job.trace.limit_seconds + 59) / 60);
  in.time_limit_minutes = static_cast<std::uint32_t>(
      std::min<std::int64_t>(minutes, std::numeric_limits<std::uint32_t>::max()));
  if (options_.policy == ReplayPolicy::kBudget) {
    return engine_->Priority(job.trace.account, partitions_[job.partition].name, in).priority;
  }
  in.fair_share = job.project == kNoProject ? 0.0 : baseline_factor_[job.project];
  return ComputeJobPriority(options_.weights, in).priority;
}

Simulation::Verdict Simulation::VerdictOf(const Job& job, UnixTime now) {
  if (now != verdicts_at_) {
    verdicts_.clear();
    verdicts_at_ = now;
  }
  // One verdict per project and partition: accounts without a Project= line
  // all get the same (keyed past the last project).
  const std::uint64_t project = job.project == kNoProject ? config_.projects.size() : job.project;
  const std::uint64_t key = project << 32U | job.partition;
  if (const auto found = verdicts_.find(key); found != verdicts_.end()) {
    return found->second;
  }
  Verdict verdict;
  // The plugin's shortcut: these states allow every partition.
  const std::optional<ProjectState> state =
      job.project == kNoProject ? std::nullopt : engine_->StateOf(job.trace.account, now);
  if (state != ProjectState::kPreparatory && state != ProjectState::kActive) {
    const Admission admission = engine_->Admit(
        AdmissionRequest{job.trace.account, {partitions_[job.partition].name}, 0}, now);
    verdict.action = admission.action;
    verdict.cause = admission.cause;
    if (admission.action == AdmissionAction::kRedirect && !admission.partitions.empty()) {
      verdict.redirect = Intern(admission.partitions.front());
    }
  }
  verdicts_.emplace(key, verdict);
  return verdict;
}

void Simulation::Submit(std::uint32_t index, UnixTime now) {
  Job& job = jobs_[index];
  if (job.trace.nodes > options_.nodes) {
    job.state = JobState::kRefused;
    job.outcome = "too-large";
    return;
  }
  if (options_.policy == ReplayPolicy::kBudget) {
    const Verdict verdict = VerdictOf(job, now);
    if (verdict.action == AdmissionAction::kReject) {
      job.state = JobState::kRefused;
      job.outcome = ToString(verdict.cause);
      return;
    }
    if (verdict.action == AdmissionAction::kRedirect) {
      job.partition = verdict.redirect;
    }
  }
  job.state = JobState::kPending;
  if (job.project != kNoProject) {
    log_->PendingChanged(job.project, +1, now);
  }
  QueueEntry entry = EntryOf(index);
  entry.priority = Rank(job, now);
  queue_.Add(entry);
}

void Simulation::Accrue(Job& job, UnixTime now) {
  if (now <= job.last_accrual) {
    return;
  }
  const std::int64_t seconds = now - job.last_accrual;
  engine_->Accrue(job.trace.account, job.trace.user, partitions_[job.partition].name,
                  job.trace.nodes, job.last_accrual, now);
  verdicts_at_ = -1;  // the usage may change a project's state
  if (job.project != kNoProject) {
    log_->AddDelivered(job.project, seconds * GpusOf(job), IsLow(job));
  }
  job.last_accrual = now;
}

void Simulation::AccrueRunning(UnixTime now) {
  for (const std::uint32_t index : running_) {
    Accrue(jobs_[index], now);
  }
}

void Simulation::Advance(UnixTime now) {
  for (const ClosedMonth& closed : engine_->Advance(now)) {
    const auto found = project_index_.find(closed.account);
    if (found != project_index_.end()) {
      const ProjectSpec& spec = config_.projects[found->second];
      log_->AddLost(found->second, spec.calendar.MonthStart(closed.month), closed.row.lost);
    }
  }
}

void Simulation::ObserveStates(UnixTime now) {
  for (std::size_t p = 0; p < config_.projects.size(); ++p) {
    if (const auto state = engine_->StateOf(config_.projects[p].account, now)) {
      log_->StateIs(p, *state, now);
    }
  }
}

void Simulation::RecordOwed(UnixTime now) {
  for (std::size_t p = 0; p < config_.projects.size(); ++p) {
    const ProjectSpec& spec = config_.projects[p];
    const std::optional<ProjectView> view = engine_->Project(spec.account, now);
    if (view && view->status.month >= 1 && view->status.month <= spec.calendar.months()) {
      log_->SetOwed(p, view->status.open.expected);
    }
  }
}

void Simulation::UpdateBaselineFactors(UnixTime now) {
  // Slurm's classic fair share: F = 2^(-U/S), U the project's share of all
  // decayed usage, S its share of all credit.
  const std::size_t n = config_.projects.size();
  std::vector<double> usage(n, 0.0);
  double total_usage = 0.0;
  double total_credit = 0.0;
  for (std::size_t p = 0; p < n; ++p) {
    if (const auto view = engine_->Project(config_.projects[p].account, now)) {
      usage[p] = view->status.decayed_usage;
    }
    total_usage += usage[p];
    total_credit += static_cast<double>(config_.projects[p].credit);
  }
  baseline_factor_.assign(n, 0.0);
  for (std::size_t p = 0; p < n; ++p) {
    const double share = static_cast<double>(config_.projects[p].credit) / total_credit;
    const double used = total_usage > 0.0 ? usage[p] / total_usage : 0.0;
    baseline_factor_[p] = std::exp2(-used / share);
  }
}

void Simulation::Pass(UnixTime now) {
  ++result_.priority_passes;
  AccrueRunning(now);
  Advance(now);
  ObserveStates(now);
  if (options_.policy == ReplayPolicy::kBaseline) {
    UpdateBaselineFactors(now);
  }
  std::vector<QueueEntry> ranked;
  ranked.reserve(queue_.size());
  queue_.ForEach([&](const QueueEntry& e) {
    if (!Live(e)) {
      return;
    }
    Job& job = jobs_[e.job];
    QueueEntry entry = e;
    job.held = false;
    if (options_.policy == ReplayPolicy::kBudget && job.project != kNoProject) {
      // Unbudgeted=reject refused the others at submit; nothing changes later.
      const Verdict verdict = VerdictOf(job, now);
      job.held = verdict.action != AdmissionAction::kAllow;
      job.hold_cause = verdict.cause;
    }
    if (job.held) {
      entry.priority = 0;  // Slurm's held priority: last in the queue, never started
    } else {
      entry.priority = Rank(job, now);
    }
    ranked.push_back(entry);
  });
  queue_.Rebuild(std::move(ranked));
}

void Simulation::MonthBoundary(UnixTime now) {
  // Usage up to midnight belongs to the month that ends: accrue before closing.
  AccrueRunning(now);
  Advance(now);
  log_->BeginMonth(options_.zone.DateAt(now), now);
  ObserveStates(now);
  RecordOwed(now);
}

void Simulation::Start(std::uint32_t index, UnixTime now) {
  Job& job = jobs_[index];
  job.state = JobState::kRunning;
  job.held = false;
  ++job.serial;
  job.start = now;
  job.last_accrual = now;
  plan_.Start(index, job.trace.nodes, now + job.trace.limit_seconds);
  ends_.emplace(now + job.trace.run_seconds, index, job.serial);
  running_slot_[index] = running_.size();
  running_.push_back(index);
  if (IsLow(job)) {
    low_running_.emplace(now, index);
    low_running_nodes_ += job.trace.nodes;
  }
  result_.start_order.push_back(job.trace.id);
  if (job.project != kNoProject) {
    log_->PendingChanged(job.project, -1, now);
    log_->RunningChanged(job.project, GpusOf(job), now);
  }
}

void Simulation::RemoveRunning(std::uint32_t index) {
  Job& job = jobs_[index];
  plan_.Stop(index, job.trace.nodes, job.start + job.trace.limit_seconds);
  const std::size_t slot = running_slot_[index];
  running_[slot] = running_.back();
  running_slot_[running_[slot]] = slot;
  running_.pop_back();
  if (IsLow(job)) {
    low_running_.erase({job.start, index});
    low_running_nodes_ -= job.trace.nodes;
  }
  occupancy_->Add(job.start, job.last_accrual, job.trace.nodes);
  if (job.project != kNoProject) {
    log_->RunningChanged(job.project, -GpusOf(job), job.last_accrual);
  }
}

void Simulation::Finish(std::uint32_t index, UnixTime now) {
  Job& job = jobs_[index];
  Accrue(job, now);
  RemoveRunning(index);
  job.state = JobState::kDone;
  job.end = now;
  makespan_end_ = std::max(makespan_end_, now);
}

void Simulation::Requeue(std::uint32_t index, UnixTime now) {
  Job& job = jobs_[index];
  Accrue(job, now);  // the usage so far stays charged, as with PreemptMode=REQUEUE
  RemoveRunning(index);
  job.state = JobState::kPending;
  ++job.serial;  // its end event is stale
  ++job.requeues;
  job.start = -1;
  if (job.project != kNoProject) {
    log_->PendingChanged(job.project, +1, now);
  }
}

bool Simulation::Preempt(std::uint32_t nodes, UnixTime now, std::vector<std::uint32_t>& requeued) {
  if (plan_.free() + low_running_nodes_ < nodes) {
    return false;
  }
  // The most recently started first: they lose the least work.
  while (plan_.free() < nodes) {
    const std::uint32_t victim = std::prev(low_running_.end())->second;
    Requeue(victim, now);
    requeued.push_back(victim);
  }
  return true;
}

void Simulation::Schedule(UnixTime now, bool backfill) {
  ++result_.scheduler_passes;
  blocked_ = false;
  std::vector<std::uint32_t> requeued;
  PendingQueue::Cursor cursor = queue_.Scan();
  const Job* head = nullptr;
  // Main scheduler: in priority order while jobs fit.
  while (const QueueEntry* e = cursor.Next()) {
    if (!Live(*e)) {
      continue;
    }
    const Job& job = jobs_[e->job];
    if (job.held) {
      break;  // held jobs rank 0: every later entry is held too
    }
    if (job.trace.nodes <= plan_.free()) {
      Start(e->job, now);
      continue;
    }
    if (options_.preempt_low && IsBudgeted(job) && Preempt(job.trace.nodes, now, requeued)) {
      Start(e->job, now);
      continue;
    }
    head = &job;
    break;
  }
  // EASY backfill behind the blocked head.
  if (head != nullptr && plan_.free() > 0 && !backfill) {
    blocked_ = true;  // a later backfill instant may start something
  } else if (head != nullptr && plan_.free() > 0) {
    NodePlan::Reservation reservation = plan_.Reserve(head->trace.nodes);
    std::uint32_t tried = 0;
    while (tried < options_.backfill_depth && plan_.free() > 0) {
      const QueueEntry* e = cursor.Next();
      if (e == nullptr) {
        break;
      }
      if (!Live(*e)) {
        continue;
      }
      const Job& job = jobs_[e->job];
      if (job.held) {
        break;
      }
      ++tried;
      if (job.trace.nodes > plan_.free()) {
        continue;
      }
      if (now + job.trace.limit_seconds <= reservation.at) {
        Start(e->job, now);
      } else if (job.trace.nodes <= reservation.spare) {
        reservation.spare -= job.trace.nodes;
        Start(e->job, now);
      }
    }
  }
  for (const std::uint32_t index : requeued) {
    QueueEntry entry = EntryOf(index);
    entry.priority = Rank(jobs_[index], now);
    queue_.Add(entry);
  }
}

ReplayResult Simulation::Run() {
  result_.policy = options_.policy;
  std::vector<std::uint32_t> order(jobs_.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = static_cast<std::uint32_t>(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return jobs_[a].trace.submit < jobs_[b].trace.submit;
  });
  running_slot_.assign(jobs_.size(), 0);
  const UnixTime first = order.empty() ? 0 : jobs_[order.front()].trace.submit;
  result_.first_submit = first;
  makespan_end_ = first;

  EngineOptions engine_options;
  engine_options.half_life_seconds = options_.half_life_seconds;
  engine_options.zone = options_.zone;
  engine_ = Engine::Create(config_, engine_options, first, options_.initial_ledger);
  engine_->SetWeights(options_.weights);

  std::vector<std::string> accounts;
  std::vector<ProjectState> states;
  for (const ProjectSpec& spec : config_.projects) {
    accounts.push_back(spec.account);
    states.push_back(engine_->StateOf(spec.account, first).value_or(ProjectState::kActive));
  }
  log_.emplace(std::move(accounts), states, FirstOfMonthAfter(options_.zone.DateAt(first), 0),
               first);
  occupancy_.emplace(first, options_.nodes);
  RecordOwed(first);

  UnixTime next_month = options_.zone.MidnightOf(FirstOfMonthAfter(options_.zone.DateAt(first), 1));
  UnixTime next_pass = first;
  const std::int64_t period = options_.calc_period_seconds;
  UnixTime next_backfill = first;
  const std::int64_t backfill_period = options_.backfill_interval_seconds;
  std::size_t next_submit = 0;
  now_ = first;
  while (true) {
    UnixTime t = kNever;
    if (next_submit < order.size()) {
      t = jobs_[order[next_submit]].trace.submit;
    }
    if (!ends_.empty()) {
      t = std::min(t, std::get<0>(ends_.top()));
    }
    // Passes while jobs run: with nothing running every pending job is held,
    // and holds change only as usage accrues, so idle passes change nothing.
    if (!running_.empty()) {
      t = std::min(t, next_pass);
    }
    // Backfill instants only while they could start something.
    if (blocked_ && backfill_period > 0) {
      t = std::min(t, next_backfill);
    }
    if (t == kNever) {
      break;
    }
    t = std::min(t, next_month);
    if (next_pass < t) {
      next_pass += (t - next_pass + period - 1) / period * period;
    }
    if (backfill_period > 0 && next_backfill < t) {
      next_backfill +=
          (t - next_backfill + backfill_period - 1) / backfill_period * backfill_period;
    }
    now_ = t;
    while (!ends_.empty() && std::get<0>(ends_.top()) <= now_) {
      const auto [end, index, serial] = ends_.top();
      ends_.pop();
      if (jobs_[index].state == JobState::kRunning && jobs_[index].serial == serial) {
        Finish(index, now_);
      }
    }
    if (now_ == next_month) {
      MonthBoundary(now_);
      next_month = options_.zone.MidnightOf(FirstOfMonthAfter(options_.zone.DateAt(now_), 1));
    }
    if (now_ == next_pass) {
      Pass(now_);
      next_pass += period;
    }
    while (next_submit < order.size() && jobs_[order[next_submit]].trace.submit <= now_) {
      Submit(order[next_submit], now_);
      ++next_submit;
    }
    Schedule(now_, backfill_period <= 0 || now_ == next_backfill);
  }
  return Collect();
}

ReplayResult Simulation::Collect() {
  // The last instant processed: a refused submission or a month boundary may
  // come after the last job end.
  const UnixTime log_end = std::max(makespan_end_, now_);
  std::vector<std::int64_t> small;
  std::vector<std::int64_t> large;
  std::vector<std::int64_t> unbudgeted;
  std::vector<std::int64_t> all;
  result_.jobs.reserve(jobs_.size());
  for (Job& job : jobs_) {
    ReplayedJob out;
    out.id = job.trace.id;
    out.account = job.trace.account;
    out.partition = partitions_[job.partition].name;
    out.submit = job.trace.submit;
    out.start = job.start;
    out.end = job.end;
    out.nodes = job.trace.nodes;
    out.requeues = job.requeues;
    if (job.state == JobState::kPending) {
      out.outcome = job.held ? ToString(job.hold_cause) : "pending-at-end";
    } else {
      out.outcome = std::move(job.outcome);
    }
    if (job.start >= 0) {
      const std::int64_t wait = job.start - job.trace.submit;
      all.push_back(wait);
      if (job.project == kNoProject) {
        unbudgeted.push_back(wait);
      } else if (config_.projects[job.project].kind == ProjectKind::kSmall) {
        small.push_back(wait);
      } else {
        large.push_back(wait);
      }
    }
    result_.jobs.push_back(std::move(out));
  }
  result_.waits.push_back(replay::Percentiles("small", std::move(small)));
  result_.waits.push_back(replay::Percentiles("large", std::move(large)));
  result_.waits.push_back(replay::Percentiles("unbudgeted", std::move(unbudgeted)));
  result_.waits.push_back(replay::Percentiles("all", std::move(all)));
  result_.months = log_->Finish(log_end);
  result_.makespan_end = makespan_end_;
  result_.occupancy = occupancy_->Samples(makespan_end_);
  result_.mean_occupancy = occupancy_->Mean(makespan_end_);
  return std::move(result_);
}

}  // namespace

Result<ReplayResult> Replay(const BudgetConfig& config, std::vector<TraceJob> jobs,
                            const ReplayOptions& options) {
  if (options.nodes == 0) {
    return Error{"replay: the cluster needs at least one node"};
  }
  if (options.calc_period_seconds <= 0) {
    return Error{"replay: calc_period_seconds must be positive, got " +
                 std::to_string(options.calc_period_seconds)};
  }
  if (jobs.size() >= std::numeric_limits<std::uint32_t>::max()) {
    return Error{"replay: too many jobs"};
  }
  for (const TraceJob& job : jobs) {
    if (job.nodes == 0 || job.run_seconds < 0 || job.limit_seconds < job.run_seconds) {
      return Error{"replay: job " + std::to_string(job.id) + ": nodes " +
                   std::to_string(job.nodes) + ", run " + std::to_string(job.run_seconds) +
                   " s, limit " + std::to_string(job.limit_seconds) +
                   " s: needs nodes >= 1 and 0 <= run <= limit"};
    }
  }
  if (jobs.empty()) {
    // No instant to start the months from: an empty result.
    ReplayResult result;
    result.policy = options.policy;
    for (const char* group : {"small", "large", "unbudgeted", "all"}) {
      result.waits.push_back(WaitPercentiles{.group = group});
    }
    return result;
  }
  Simulation simulation(config, std::move(jobs), options);
  return simulation.Run();
}

}  // namespace budget
