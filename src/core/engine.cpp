// The engine: one mutex around budget.conf, the ledger and the priority maths.
#include "budget/engine.hpp"

#include <algorithm>
#include <utility>

#include "budget/state_file.hpp"

namespace budget {

namespace {

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t end = text.find('\n', begin);
    const std::size_t stop = end == std::string::npos ? text.size() : end;
    if (stop > begin) {
      lines.push_back(text.substr(begin, stop - begin));
    }
    if (end == std::string::npos) {
      break;
    }
    begin = end + 1;
  }
  return lines;
}

// The first line of a multi-line error: what fits a one-line reply.
std::string FirstLine(const std::string& text) {
  const auto lines = SplitLines(text);
  if (lines.empty()) {
    return text;
  }
  if (lines.size() == 1) {
    return lines.front();
  }
  return lines.front() + " (and " + std::to_string(lines.size() - 1) + " more)";
}

std::vector<ProjectTerms> TermsOf(const BudgetConfig& config) {
  std::vector<ProjectTerms> terms;
  terms.reserve(config.projects.size());
  for (const ProjectSpec& p : config.projects) {
    terms.push_back(ProjectTerms{p.account, p.credit, p.calendar});
  }
  return terms;
}

}  // namespace

Engine::Engine(EngineOptions options) : options_(std::move(options)) {}

void Engine::Log(LogLevel level, const std::string& message) const {
  if (options_.log) {
    options_.log(level, message);
  }
}

Result<std::unique_ptr<Engine>> Engine::Open(EngineOptions options, UnixTime now) {
  std::unique_ptr<Engine> engine(new Engine(std::move(options)));
  auto config = LoadBudgetConfig(engine->options_.config_path);
  if (!config) {
    for (const auto& line : SplitLines(config.error())) {
      engine->Log(LogLevel::kError, line);
    }
    return Error{FirstLine(config.error())};
  }
  engine->InstallConfig(std::move(config).value());

  if (!engine->options_.state_path.empty()) {
    auto loaded = LoadLedgerFile(engine->options_.state_path);
    if (!loaded) {
      engine->Log(LogLevel::kError, loaded.error());
      return Error{FirstLine(loaded.error())};
    }
    for (const auto& warning : loaded.value().warnings) {
      engine->Log(LogLevel::kError, warning);
    }
    engine->ledger_ = std::move(loaded.value().ledger);
    engine->accounted_until_ = loaded.value().fresh ? 0 : loaded.value().saved_at;
    engine->Log(LogLevel::kInfo,
                loaded.value().fresh
                    ? "no ledger at " + engine->options_.state_path + ": starting a fresh one"
                    : "ledger " + engine->options_.state_path + " loaded, usage accounted up to " +
                          std::to_string(engine->accounted_until_));
  }
  engine->Advance(now);
  return engine;
}

void Engine::InstallConfig(BudgetConfig config) {
  auto shared = std::make_shared<const BudgetConfig>(std::move(config));
  terms_ = TermsOf(*shared);
  term_index_.clear();
  for (std::size_t i = 0; i < terms_.size(); ++i) {
    term_index_[terms_[i].account] = i;
  }
  config_ = std::move(shared);
  cache_.clear();
}

Status Engine::Reload(const std::string& config_path) {
  auto config = LoadBudgetConfig(config_path);
  std::lock_guard lock(mutex_);
  if (!config) {
    for (const auto& line : SplitLines(config.error())) {
      Log(LogLevel::kError, line);
    }
    return Error{FirstLine(config.error())};
  }
  options_.config_path = config_path;
  InstallConfig(std::move(config).value());
  return Ok();
}

void Engine::SetHalfLife(std::int64_t half_life_seconds) {
  std::lock_guard lock(mutex_);
  options_.half_life_seconds = half_life_seconds;
}

void Engine::SetWeights(PriorityWeights weights) {
  std::lock_guard lock(mutex_);
  weights_ = std::move(weights);
}

void Engine::Accrue(std::string_view account, std::string_view user, std::string_view partition,
                    std::int64_t nodes, UnixTime from, UnixTime to) {
  std::lock_guard lock(mutex_);
  const PartitionRate* rate = config_->FindPartition(partition);
  const auto term = term_index_.find(std::string(account));
  if (rate == nullptr || term == term_index_.end()) {
    return;  // not billed (docs/design.md)
  }
  ledger_.Accrue(terms_[term->second], options_.zone, user, *rate, nodes, from, to);
  cache_.clear();
}

std::vector<ClosedMonth> Engine::Advance(UnixTime now) {
  std::lock_guard lock(mutex_);
  ledger_.DecayTo(now, options_.half_life_seconds);
  auto closed = ledger_.CloseMonths(terms_, options_.zone, now);
  for (const ClosedMonth& c : closed) {
    Log(LogLevel::kInfo, c.account + ": month " + std::to_string(c.month) + " closed: used " +
                             FormatGpuHours(c.row.used) + " GPUh, lost " +
                             FormatGpuHours(c.row.lost) + ", rolled over " +
                             FormatGpuHours(c.row.graced) + ", remaining " +
                             FormatGpuHours(c.row.remaining));
  }
  cache_.clear();
  TrackStatesLocked(now);
  return closed;
}

namespace {

// Why a project is in `state`, for the log line of a change.
std::string WhyState(ProjectState state, const ProjectStatus& status, const ProjectSpec& spec) {
  switch (state) {
    case ProjectState::kPreparatory:
      return "starts on " + FormatCivilDate(spec.calendar.start());
    case ProjectState::kActive:
      return "month " + std::to_string(status.month) + " of " +
             std::to_string(spec.calendar.months()) + ", " + FormatGpuHours(status.remaining) +
             " GPUh remaining";
    case ProjectState::kLow:
      return "credit used up: jobs in the low partition only, " +
             FormatGpuHours(status.low_used) + " of " + FormatGpuHours(status.low_allowance) +
             " GPUh of low allowance used";
    case ProjectState::kBlocked:
      return "credit and low allowance used up (" + FormatGpuHours(status.low_used) + " of " +
             FormatGpuHours(status.low_allowance) + " GPUh): no job may start";
    case ProjectState::kEnded:
      return "last day of compute was " + FormatCivilDate(spec.calendar.last_day()) +
             ": no job may start";
  }
  return {};
}

}  // namespace

void Engine::TrackStatesLocked(UnixTime now) {
  state_changes_.clear();
  std::unordered_map<std::string, ProjectState> states;
  for (std::size_t i = 0; i < terms_.size(); ++i) {
    const ProjectTerms& terms = terms_[i];
    const ProjectStatus status = StatusOf(ledger_, terms, options_.zone, now);
    const ProjectSpec& spec = config_->projects[i];
    states.emplace(terms.account, status.state);
    const auto before = states_.find(terms.account);
    if (before == states_.end()) {
      Log(LogLevel::kDebug, "project " + terms.account + " is " + ToString(status.state) + " (" +
                                WhyState(status.state, status, spec) + ")");
    } else if (before->second != status.state) {
      state_changes_.push_back(StateChange{terms.account, before->second, status.state});
      Log(LogLevel::kInfo, "project " + terms.account + ": " + ToString(before->second) + " -> " +
                               ToString(status.state) + " (" +
                               WhyState(status.state, status, spec) + ")");
    }
  }
  states_ = std::move(states);
}

std::vector<StateChange> Engine::last_state_changes() const {
  std::lock_guard lock(mutex_);
  return state_changes_;
}

Admission Engine::Admit(const AdmissionRequest& request, UnixTime now) {
  std::lock_guard lock(mutex_);
  const auto term = term_index_.find(request.account);
  if (term == term_index_.end()) {
    return budget::Admit(*config_, nullptr, nullptr, options_.zone, now, request);
  }
  const ProjectStatus status = StatusOf(ledger_, terms_[term->second], options_.zone, now);
  return budget::Admit(*config_, &config_->projects[term->second], &status, options_.zone, now,
                       request);
}

Status Engine::Save(UnixTime now) {
  std::lock_guard lock(mutex_);
  if (options_.state_path.empty()) {
    return Ok();
  }
  auto saved = SaveLedgerFile(options_.state_path, ledger_, now);
  if (saved) {
    accounted_until_ = now;
  }
  return saved;
}

UnixTime Engine::accounted_until() const {
  std::lock_guard lock(mutex_);
  return accounted_until_;
}

std::optional<ProjectView> Engine::ProjectLocked(std::string_view account, UnixTime now) {
  if (now != cache_now_) {
    cache_.clear();
    cache_now_ = now;
  }
  const std::string key(account);
  if (const auto hit = cache_.find(key); hit != cache_.end()) {
    return hit->second;
  }
  const auto term = term_index_.find(key);
  if (term == term_index_.end()) {
    return std::nullopt;
  }

  const ProjectTerms& terms = terms_[term->second];
  ProjectView view;
  view.status = StatusOf(ledger_, terms, options_.zone, now);
  view.fair_share = ComputeFairShare(FairShareInputs{
      .state = view.status.state,
      .expected = view.status.open.expected,
      .used_this_month = view.status.used_this_month,
      .monthly_budget = terms.MonthlyBudget(),
      .decayed_usage = view.status.decayed_usage,
      .low_used = view.status.low_used,
  });
  if (view.status.state == ProjectState::kActive) {
    view.shares_gpu_hours = ToGpuHours(std::max<GpuSeconds>(0, view.status.open.expected));
  }
  cache_.emplace(key, view);
  return view;
}

std::optional<ProjectView> Engine::Project(std::string_view account, UnixTime now) {
  std::lock_guard lock(mutex_);
  return ProjectLocked(account, now);
}

std::optional<double> Engine::UserUsage(std::string_view account, std::string_view user) const {
  std::lock_guard lock(mutex_);
  const ProjectUsage* project = ledger_.Find(account);
  if (project == nullptr) {
    return std::nullopt;
  }
  const auto found = project->users.find(user);
  if (found == project->users.end()) {
    return std::nullopt;
  }
  return found->second.decayed;
}

PartitionKind Engine::KindOfPartition(std::string_view partition) const {
  std::lock_guard lock(mutex_);
  const PartitionRate* rate = config_->FindPartition(partition);
  if (rate == nullptr) {
    return PartitionKind::kUnbudgeted;
  }
  return rate->role == PartitionRole::kLow ? PartitionKind::kLow : PartitionKind::kBudgeted;
}

double Engine::FairShareLocked(std::string_view account, std::string_view partition, UnixTime now) {
  const PartitionRate* rate = config_->FindPartition(partition);
  if (rate == nullptr) {
    return 0.0;
  }
  const auto view = ProjectLocked(account, now);
  if (!view) {
    return 0.0;
  }
  if (rate->role == PartitionRole::kBudgeted) {
    return view->fair_share.factor;
  }
  // In the low partition every project ranks in the low band, by its low usage.
  const ProjectState state = view->status.state;
  if (state == ProjectState::kEnded || state == ProjectState::kBlocked) {
    return 0.0;
  }
  const auto& terms = terms_[term_index_.at(std::string(account))];
  return ComputeFairShare(FairShareInputs{
                              .state = ProjectState::kLow,
                              .monthly_budget = terms.MonthlyBudget(),
                              .low_used = view->status.low_used,
                          })
      .factor;
}

JobPriority Engine::Priority(std::string_view account, std::string_view partition,
                             JobPriorityInputs inputs) {
  std::lock_guard lock(mutex_);
  inputs.fair_share = FairShareLocked(account, partition, inputs.now);
  return ComputeJobPriority(weights_, inputs);
}

Ledger Engine::ledger() const {
  std::lock_guard lock(mutex_);
  return ledger_;
}

std::shared_ptr<const BudgetConfig> Engine::config() const {
  std::lock_guard lock(mutex_);
  return config_;
}

}  // namespace budget
