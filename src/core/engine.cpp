// The engine: one mutex around budget.conf, the ledger and the priority maths.
#include "budget/engine.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <iterator>
#include <optional>
#include <string_view>
#include <utility>

#include "budget/file_trust.hpp"
#include "budget/project_accounts.hpp"
#include "budget/same_name.hpp"
#include "budget/state_file.hpp"
#include "budget/text.hpp"
#include "budget/units.hpp"

namespace budget {

namespace {

// Where an account's probe starts in the table of projects: FNV-1a, inline
// and folded so that the low bits the table's mask keeps see every byte.
// (std::hash's murmur is out of line in the C++ runtime: one more page of
// code for a new job's priority to read on a submission's cold caches.)
[[gnu::hot]] std::size_t AccountHash(std::string_view account) {
  std::uint64_t hash = 14'695'981'039'346'656'037ULL;
  for (const char c : account) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 1'099'511'628'211ULL;
  }
  return static_cast<std::size_t>(hash ^ (hash >> 32));
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

// A user's decayed usage in a project's ledger record; nullopt without the
// record or without the user in it.
std::optional<double> DecayedUsageOf(const ProjectUsage* project, std::string_view user) {
  if (project == nullptr) {
    return std::nullopt;
  }
  const auto found = project->users.find(user);
  if (found == project->users.end()) {
    return std::nullopt;
  }
  return found->second.decayed;
}

// Finds the users of one project's ledger record by name, trying first the
// one after the last found: assoc_mgr lists an account's users in name order,
// so a pass's rows of one project take one step each rather than a search.
class UserFinder {
 public:
  explicit UserFinder(const ProjectUsage* project) : project_(project) {
    if (project_ != nullptr) {
      next_ = project_->users.begin();
    }
  }

  // The user's decayed usage; 0 for a user never charged (or no record).
  double DecayedUsage(std::string_view user) {
    if (project_ == nullptr) {
      return 0.0;
    }
    const auto& users = project_->users;
    auto found = next_ != users.end() && SameName(next_->first, user) ? next_ : users.find(user);
    if (found == users.end()) {
      return 0.0;
    }
    next_ = std::next(found);
    return found->second.decayed;
  }

 private:
  const ProjectUsage* project_;
  UserTable<UserUsage>::const_iterator next_;
};

}  // namespace

ProjectTerms TermsOf(const ProjectSpec& spec) {
  return ProjectTerms{spec.account, spec.credit, spec.calendar};
}

std::vector<ProjectTerms> TermsOf(const BudgetConfig& config) {
  std::vector<ProjectTerms> terms;
  terms.reserve(config.projects.size());
  for (const ProjectSpec& p : config.projects) {
    terms.push_back(TermsOf(p));
  }
  return terms;
}

Engine::Engine(EngineOptions options) : options_(std::move(options)) {}

void Engine::Log(LogLevel level, const std::string& message) const {
  if (options_.log) {
    options_.log(level, message);
  }
}

Result<std::unique_ptr<Engine>> Engine::Open(EngineOptions options, UnixTime now) {
  std::unique_ptr<Engine> engine(new Engine(std::move(options)));
  // Files other users could write would let them grant themselves credit.
  std::vector<std::pair<std::string, std::string_view>> trusted{
      {engine->options_.config_path, "budget.conf"}};
  if (!engine->options_.state_path.empty()) {
    trusted.emplace_back(engine->options_.state_path, "ledger");
    trusted.emplace_back(engine->options_.state_path + ".old", "ledger");
  }
  for (const auto& [path, what] : trusted) {
    if (Status checked = CheckTrustedFile(path, what); !checked.ok()) {
      engine->Log(LogLevel::kError, checked.error());
      return Error{checked.error()};
    }
  }
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
    engine->ForgetUsageLocked();
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

std::unique_ptr<Engine> Engine::Create(BudgetConfig config, EngineOptions options, UnixTime now,
                                       Ledger ledger) {
  options.config_path.clear();
  options.state_path.clear();
  std::unique_ptr<Engine> engine(new Engine(std::move(options)));
  engine->InstallConfig(std::move(config));
  engine->ledger_ = std::move(ledger);
  engine->ForgetUsageLocked();
  engine->Advance(now);
  return engine;
}

void Engine::InstallConfig(BudgetConfig config) {
  // The parser grew these vectors one record at a time; the engine keeps them
  // for its whole life.
  config.projects.shrink_to_fit();
  config.partitions.shrink_to_fit();
  auto shared = std::make_shared<const BudgetConfig>(std::move(config));
  std::vector<ProjectTerms> terms = TermsOf(*shared);

  // Lifecycle states follow their account into the new configuration.
  std::vector<std::optional<ProjectState>> states(terms.size());
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (const std::size_t before = FindLocked(terms[i].account); before != kNoProject) {
      states[i] = states_[before];
    }
  }

  std::size_t table = 2;
  while (table < 2 * terms.size()) {
    table *= 2;
  }
  std::vector<std::uint32_t> slots(table, kEmptySlot);
  for (std::size_t i = 0; i < terms.size(); ++i) {
    std::size_t slot = AccountHash(terms[i].account) & (table - 1);
    while (slots[slot] != kEmptySlot) {
      slot = (slot + 1) & (table - 1);
    }
    slots[slot] = static_cast<std::uint32_t>(i);
  }

  terms_ = std::move(terms);
  slots_ = std::move(slots);
  states_ = std::move(states);
  factors_.assign(terms_.size(), Factors{});
  ForgetUsageLocked();
  view_project_ = kNoProject;
  config_ = std::move(shared);
  NextGenerationLocked();
}

// [[gnu::hot]] marks what a new job's priority runs, here and in the files it
// calls: laid out together, it reads few pages of code on the cold caches of
// a submission (src/slurm/hot_path.h, BUDGET_HOT).
[[gnu::hot]] std::size_t Engine::FindLocked(std::string_view account) const {
  if (slots_.empty()) {
    return kNoProject;
  }
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = AccountHash(account) & mask;; slot = (slot + 1) & mask) {
    const std::uint32_t project = slots_[slot];
    if (project == kEmptySlot) {
      return kNoProject;
    }
    if (SameName(terms_[project].account, account)) {
      return project;
    }
  }
}

Status Engine::Reload(const std::string& config_path) {
  if (Status checked = CheckTrustedFile(config_path, "budget.conf"); !checked.ok()) {
    std::lock_guard lock(mutex_);
    Log(LogLevel::kError, checked.error());
    return checked;
  }
  auto config = LoadBudgetConfig(config_path);
  std::lock_guard lock(mutex_);
  if (!config) {
    for (const auto& line : SplitLines(config.error())) {
      Log(LogLevel::kError, line);
    }
    return Error{FirstLine(config.error())};
  }
  options_.config_path = config_path;
  if (config.value() == *config_) {
    // Slurm reconfigures at every start and every `scontrol reconfigure`:
    // the same budgets keep every cached view, factor and usage summary.
    return Ok();
  }
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
  const std::size_t project = FindLocked(account);
  if (rate == nullptr || project == kNoProject) {
    return;  // not billed (docs/design.md)
  }
  const ProjectTerms& terms = terms_[project];
  const MonthRange charged =
      ledger_.Accrue(UsageLocked(project), terms, options_.zone, user, *rate, nodes, from, to);
  if (charged.empty()) {
    return;  // nothing billed: the project may still have no record
  }
  NextGenerationLocked();
  // The summary read again now, while the usage Accrue wrote is in the cache:
  // a pass charges its projects before it asks for their views.
  UsageSummary& summary = summaries_[project];
  if (summary.month != kUnread) {
    summary = SummaryAfterCharge(summary, *UsageLocked(project), terms, charged)
                  .value_or(UsageSummary{.month = kUnread});
  }
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
  NextGenerationLocked();
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
      return "credit used up: jobs in the low partition only, " + FormatGpuHours(status.low_used) +
             " of " + FormatGpuHours(status.low_allowance) + " GPUh of low allowance used";
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
  for (std::size_t i = 0; i < terms_.size(); ++i) {
    const ProjectTerms& terms = terms_[i];
    const ProjectView view = ComputeViewLocked(i, now);
    const ProjectStatus& status = view.status;
    const ProjectSpec& spec = config_->projects[i];
    const std::optional<ProjectState> before = states_[i];
    if (!before) {
      Log(LogLevel::kDebug, "project " + terms.account + " is " + ToString(status.state) + " (" +
                                WhyState(status.state, status, spec) + ")");
    } else if (*before != status.state) {
      state_changes_.push_back(StateChange{terms.account, *before, status.state});
      Log(LogLevel::kInfo, "project " + terms.account + ": " + ToString(*before) + " -> " +
                               ToString(status.state) + " (" +
                               WhyState(status.state, status, spec) + ")");
    }
    states_[i] = status.state;
  }
}

std::vector<StateChange> Engine::last_state_changes() const {
  std::lock_guard lock(mutex_);
  return state_changes_;
}

std::optional<ProjectState> Engine::StateOf(std::string_view account, UnixTime now) {
  std::lock_guard lock(mutex_);
  const std::size_t project = FindLocked(account);
  if (project == kNoProject) {
    return std::nullopt;
  }
  return FactorsLocked(project, now).state;
}

std::optional<ProjectRanking> Engine::RankingOf(std::string_view account, UnixTime now) {
  std::lock_guard lock(mutex_);
  const std::size_t project = FindLocked(account);
  if (project == kNoProject) {
    return std::nullopt;
  }
  const Factors& factors = FactorsLocked(project, now);
  return ProjectRanking{.state = factors.state,
                        .budgeted = factors.budgeted,
                        .low = factors.low,
                        .generation = factors.generation};
}

Admission Engine::Admit(const AdmissionRequest& request, UnixTime now) {
  std::lock_guard lock(mutex_);
  const std::size_t project = FindLocked(request.account);
  if (project == kNoProject) {
    return budget::Admit(*config_, nullptr, nullptr, options_.zone, now, request);
  }
  // From the factors of this instant: a pass asks for every pending job.
  const Factors& factors = FactorsLocked(project, now);
  ProjectStatus status;
  status.state = factors.state;
  const UsageSummary& summary = summaries_[project];  // the factors' own
  status.remaining = summary.Remaining(terms_[project].credit);
  status.low_used = summary.low_used;
  status.low_allowance = terms_[project].MonthlyBudget();
  return budget::Admit(*config_, &config_->projects[project], &status, options_.zone, now, request);
}

Status Engine::Save(UnixTime now) {
  std::lock_guard saving(save_mutex_);
  std::string path;
  std::string encoded;
  {
    std::lock_guard lock(mutex_);
    if (options_.state_path.empty()) {
      return Ok();
    }
    path = options_.state_path;
    encoded = EncodeLedger(ledger_, now);
  }
  // Writing and fsyncing take milliseconds: without the mutex, so that
  // slurmctld's threads that ask the engine under the job write lock (a
  // submission's priority, a job's end) never wait for the disk.
  Status saved = SaveEncodedLedgerFile(path, encoded);
  if (saved) {
    std::lock_guard lock(mutex_);
    accounted_until_ = now;
  }
  return saved;
}

UnixTime Engine::accounted_until() const {
  std::lock_guard lock(mutex_);
  return accounted_until_;
}

// Computes the view, and keeps the factors a pass needs from it.
ProjectView Engine::ComputeViewLocked(std::size_t project, UnixTime now) {
  const ProjectTerms& terms = terms_[project];
  const ProjectUsage* usage = UsageLocked(project);
  UsageSummary& summary = summaries_[project];
  AtLocked(now);
  if (const int month = terms.calendar.MonthAt(today_); month != summary.month) {
    summary = SummaryOf(usage, terms, month);  // unread, charged since, or a new month
  }
  ProjectView view;
  view.status = StatusOf(summary, terms, usage);
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

  Factors& factors = factors_[project];
  factors.generation = GenerationLocked();
  factors.budgeted = view.fair_share.factor;
  factors.state = view.status.state;
  // In the low partition every project ranks in the low band, by its low usage.
  const ProjectState state = view.status.state;
  factors.low = state == ProjectState::kEnded || state == ProjectState::kBlocked
                    ? 0.0
                    : ComputeFairShare(FairShareInputs{
                                           .state = ProjectState::kLow,
                                           .monthly_budget = terms.MonthlyBudget(),
                                           .low_used = view.status.low_used,
                                       })
                          .factor;
  return view;
}

[[gnu::hot]] void Engine::AtLocked(UnixTime now) {
  if (now == today_found_at_) {
    return;
  }
  today_found_at_ = now;
  // Asked again each second rather than kept until the date's end: where DST
  // falls back across midnight, a date comes back after the next one began.
  const CivilDate today = options_.zone.DateAt(now);
  if (today == today_) {
    return;
  }
  today_ = today;
  UnixTime begins = options_.zone.MidnightOf(today_);
  UnixTime ends = options_.zone.MidnightOf(AddDays(today_, 1));
  // A day of 24 hours has no clock change: every instant between its two
  // midnights falls on it, so SteadyGeneration may trust them. Any other day
  // publishes no bounds.
  if (ends - begins != kSecondsPerDay) {
    begins = ends = 0;
  }
  const std::uint64_t generation = GenerationLocked();
  generation_.store(generation + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  day_begins_.store(begins, std::memory_order_relaxed);
  day_ends_.store(ends, std::memory_order_relaxed);
  generation_.store(generation + 2, std::memory_order_release);
}

void Engine::NextGenerationLocked() {
  generation_.store(GenerationLocked() + 2, std::memory_order_release);
}

[[gnu::hot]] std::uint64_t Engine::SteadyGeneration(UnixTime now) const noexcept {
  const std::uint64_t generation = generation_.load(std::memory_order_acquire);
  const UnixTime begins = day_begins_.load(std::memory_order_relaxed);
  const UnixTime ends = day_ends_.load(std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_acquire);
  if (generation_.load(std::memory_order_relaxed) != generation || (generation & 1) != 0 ||
      now < begins || now >= ends) {
    return 0;
  }
  return generation;
}

void Engine::ForgetUsageLocked() {
  usage_.assign(terms_.size(), nullptr);
  summaries_.assign(terms_.size(), UsageSummary{.month = kUnread});
}

const ProjectUsage* Engine::UsageLocked(std::size_t project) {
  if (usage_[project] == nullptr) {
    usage_[project] = ledger_.Find(terms_[project].account);
  }
  return usage_[project];
}

[[gnu::hot]] const Engine::Factors& Engine::FactorsLocked(std::size_t project, UnixTime now) {
  AtLocked(now);
  const Factors& factors = factors_[project];
  if (factors.generation != GenerationLocked()) {
    ComputeViewLocked(project, now);
  }
  return factors;
}

const ProjectView& Engine::LastViewLocked(std::size_t project, UnixTime now) {
  AtLocked(now);
  if (project != view_project_ || GenerationLocked() != view_generation_) {
    view_ = ComputeViewLocked(project, now);
    view_project_ = project;
    view_generation_ = GenerationLocked();
  }
  return view_;
}

std::optional<ProjectView> Engine::ProjectLocked(std::string_view account, UnixTime now) {
  const std::size_t project = FindLocked(account);
  if (project == kNoProject) {
    return std::nullopt;
  }
  return LastViewLocked(project, now);
}

std::optional<AssociationView> Engine::Association(std::string_view account, std::string_view user,
                                                   UnixTime now) {
  std::optional<AssociationView> answer;
  const AssociationKey key{account, user};
  Associations({&key, 1}, now, [&answer](std::size_t, const AssociationRow& row) {
    if (row.project != nullptr) {
      answer = AssociationView{*row.project, row.ranking, row.user_usage};
    }
  });
  return answer;
}

void Engine::Associations(std::span<const AssociationKey> keys, UnixTime now,
                          const AssociationSink& sink) {
  std::lock_guard lock(mutex_);
  AssociationRow row;         // the project part stays for the keys of one account
  UserFinder users(nullptr);  // the users of row.project's ledger record
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i == 0 || !SameName(keys[i].account, keys[i - 1].account)) {
      row = AssociationRow{};
      users = UserFinder(nullptr);
      if (const std::size_t project = FindLocked(keys[i].account); project != kNoProject) {
        row.project = &LastViewLocked(project, now);
        const Factors& factors = FactorsLocked(project, now);  // computed with the view
        row.ranking = {.state = factors.state,
                       .budgeted = factors.budgeted,
                       .low = factors.low,
                       .generation = factors.generation};
        users = UserFinder(UsageLocked(project));
      }
    }
    row.user_usage = keys[i].user.empty() ? 0.0 : users.DecayedUsage(keys[i].user);
    sink(i, row);
  }
}

std::optional<ProjectView> Engine::Project(std::string_view account, UnixTime now) {
  std::lock_guard lock(mutex_);
  return ProjectLocked(account, now);
}

std::optional<double> Engine::UserUsage(std::string_view account, std::string_view user) {
  std::lock_guard lock(mutex_);
  // A project of budget.conf through the hash and the cached record; the
  // ledger's map (a string compare per level) only for an account without one.
  const std::size_t index = FindLocked(account);
  return DecayedUsageOf(index != kNoProject ? UsageLocked(index) : ledger_.Find(account), user);
}

std::vector<std::string> Engine::ProjectsWithoutAccount(std::span<const std::string_view> accounts,
                                                        UnixTime now) const {
  std::lock_guard lock(mutex_);
  return budget::ProjectsWithoutAccount(*config_, accounts, options_.zone, now);
}

PartitionKind Engine::KindOfPartition(std::string_view partition) const {
  std::lock_guard lock(mutex_);
  const PartitionRate* rate = config_->FindPartition(partition);
  if (rate == nullptr) {
    return PartitionKind::kUnbudgeted;
  }
  return rate->role == PartitionRole::kLow ? PartitionKind::kLow : PartitionKind::kBudgeted;
}

[[gnu::hot]] double Engine::FairShareLocked(std::string_view account, std::string_view partition,
                                            UnixTime now) {
  const PartitionRate* rate = config_->FindPartition(partition);
  if (rate == nullptr) {
    return 0.0;
  }
  const std::size_t project = FindLocked(account);
  if (project == kNoProject) {
    return 0.0;
  }
  const Factors& factors = FactorsLocked(project, now);
  return rate->role == PartitionRole::kBudgeted ? factors.budgeted : factors.low;
}

JobPriority Engine::Priority(std::string_view account, std::string_view partition,
                             JobPriorityInputs inputs) {
  std::lock_guard lock(mutex_);
  inputs.fair_share = FairShareLocked(account, partition, inputs.now);
  return ComputeJobPriority(weights_, inputs);
}

[[gnu::hot]] JobPriority Engine::Priority(std::string_view account, std::string_view partition,
                                          JobPriorityInputs inputs,
                                          std::span<const double> tres_fraction,
                                          std::span<double> tres_out) {
  std::lock_guard lock(mutex_);
  inputs.fair_share = FairShareLocked(account, partition, inputs.now);
  return ComputeJobPriority(weights_, inputs, tres_fraction, tres_out);
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
