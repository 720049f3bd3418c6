// The engine: budget.conf, the ledger and the priority maths behind one mutex, for the plugin.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "budget/admission.hpp"
#include "budget/config.hpp"
#include "budget/fairshare.hpp"
#include "budget/ledger.hpp"
#include "budget/priority.hpp"
#include "budget/result.hpp"

namespace budget {

enum class LogLevel { kError, kInfo, kDebug };
using LogSink = std::function<void(LogLevel, const std::string&)>;

struct EngineOptions {
  std::string config_path;             // budget.conf
  std::string state_path;              // ledger file; empty: nothing kept
  std::int64_t half_life_seconds = 0;  // PriorityDecayHalfLife; 0: no decay
  TimeZone zone = TimeZone::Local();   // where months begin
  LogSink log;                         // may be empty
};

// What the plugin shows of a project: sshare's columns and sprio's FAIRSHARE.
struct ProjectView {
  ProjectStatus status;
  FairShare fair_share;
  double shares_gpu_hours = 0.0;  // max(0, expected this month) in GPUh: RawShares
};

// How a job's partition counts (budget.conf's PartitionName lines).
enum class PartitionKind { kUnbudgeted, kBudgeted, kLow };

// What ranking a project's jobs needs, resolved once per pass: its lifecycle
// state and its FAIRSHARE factor in each kind of partition (an unbudgeted
// partition gives every job 0).
struct ProjectRanking {
  ProjectState state = ProjectState::kPreparatory;
  double budgeted = 0.0;  // in a budgeted partition: ProjectView::fair_share.factor
  double low = 0.0;       // in the low partition: the low band, or 0 (blocked, ended)
  // The engine's generation these factors were computed in: while
  // Engine::SteadyGeneration(now) returns it, they are RankingOf(account, now).
  std::uint64_t generation = 0;
};

// What one row of Slurm's association table shows and ranks by, from one
// lookup of its account: the publish step of a pass asks it for every row.
struct AssociationView {
  ProjectView project;
  ProjectRanking ranking;
  double user_usage = 0.0;  // the row's user's decayed usage: 0 for no user or one never charged
};

// One row of Slurm's association table: an account, and one of its users
// (empty: the account's own row).
struct AssociationKey {
  std::string_view account;
  std::string_view user;
};

// One row's answer from Engine::Associations, read in place: `project` points
// into the engine's cache and is valid only during the callback.
struct AssociationRow {
  const ProjectView* project = nullptr;  // nullptr: an account without a budget
  ProjectRanking ranking;                // read only when project is not nullptr
  double user_usage = 0.0;  // the row's user's decayed usage: 0 for no user or one never charged
};

// Called by Engine::Associations for keys[index], with the engine's mutex
// held: it must not call back into the engine.
using AssociationSink = std::function<void(std::size_t index, const AssociationRow& row)>;

// What the ledger needs of a project's budget.conf line, and of every line.
ProjectTerms TermsOf(const ProjectSpec& spec);
std::vector<ProjectTerms> TermsOf(const BudgetConfig& config);

// Thread-safe: every public method but SteadyGeneration (lock-free) takes the
// engine's mutex, and none calls out except through the log sink and
// Associations' sink (both called with the mutex held: they must not call
// back into the engine).
class Engine {
 public:
  // Reads budget.conf (every error logged; the first returned) and the ledger
  // (a corrupt copy falls back to the previous one, with a logged warning; both
  // unreadable is an error, never a silent reset), then closes every month
  // that ended before `now`. budget.conf, the ledger and its previous copy
  // must pass CheckTrustedFile (file_trust.hpp): a file another user could
  // write is refused with a logged error naming it and its mode.
  static Result<std::unique_ptr<Engine>> Open(EngineOptions options, UnixTime now);
  // An engine on a configuration already parsed and a ledger (empty by
  // default), reading and writing no file (options.config_path and state_path
  // are ignored), with every month ended before `now` closed: for replays and
  // tools.
  static std::unique_ptr<Engine> Create(BudgetConfig config, EngineOptions options, UnixTime now,
                                        Ledger ledger = {});

  // Re-reads budget.conf; on error (including a file CheckTrustedFile
  // refuses) the last good configuration stays.
  Status Reload(const std::string& config_path);
  void SetHalfLife(std::int64_t half_life_seconds);
  void SetWeights(PriorityWeights weights);

  // Charges `nodes` nodes of `partition` over [from, to) to a project and
  // user. Accounts without a budget and partitions not in budget.conf are not
  // charged.
  void Accrue(std::string_view account, std::string_view user, std::string_view partition,
              std::int64_t nodes, UnixTime from, UnixTime to);
  // Decays fair-share usage to `now`, then closes every ended month (logged),
  // then logs every project whose lifecycle state changed since the previous
  // Advance (preparatory -> active at midnight of the start, active -> low
  // when the credit is used up, low -> blocked, -> ended at midnight of the
  // end; see admission.hpp). The first Advance of an engine only records the
  // states (logged at debug level).
  std::vector<ClosedMonth> Advance(UnixTime now);
  // Writes the ledger as of `now` (SaveLedgerFile's steps). The snapshot is
  // taken under the mutex; the file is written and fsynced after releasing
  // it, so the other methods never wait for the disk.
  Status Save(UnixTime now);
  // When the loaded ledger was saved (0 when it was fresh).
  UnixTime accounted_until() const;

  std::optional<ProjectView> Project(std::string_view account, UnixTime now);
  // The lifecycle state of a project at `now`; nullopt for an account without
  // a budget. Costs a hash lookup once per project and instant: a pass asks it
  // for every pending job, to skip the full verdict (Admit) when the state
  // allows every partition.
  std::optional<ProjectState> StateOf(std::string_view account, UnixTime now);
  // The state and fair-share factors Priority() would use for the project's
  // jobs at `now`; nullopt for an account without a budget (every factor 0).
  std::optional<ProjectRanking> RankingOf(std::string_view account, UnixTime now);
  // The project's view and ranking, and `user`'s usage in it (empty: the
  // account's own row), under one lock and one lookup; nullopt for an
  // account without a budget. The view is computed once for consecutive
  // rows of one project, as assoc_mgr lists an account's users after it.
  std::optional<AssociationView> Association(std::string_view account, std::string_view user,
                                             UnixTime now);
  // Every row of `keys`, in order, under one lock: sink(i, row) answers
  // keys[i] as Association() would, without copying the view. The publish
  // step of a pass asks its rows so: consecutive keys of one account look
  // the project up and compute its view once, and its users, when listed in
  // name order (as assoc_mgr lists them), are found one step from the last.
  void Associations(std::span<const AssociationKey> keys, UnixTime now,
                    const AssociationSink& sink);
  // The user's decayed usage in the project; nullopt if never seen.
  std::optional<double> UserUsage(std::string_view account, std::string_view user);
  PartitionKind KindOfPartition(std::string_view partition) const;
  // The projects of budget.conf, not ended at `now`, whose account is not
  // among `accounts` (the accounts Slurm has), in budget.conf's order: a
  // Project= line no job can be charged to, its name mistyped or its account
  // not yet added. An ended project's account may go.
  std::vector<std::string> ProjectsWithoutAccount(std::span<const std::string_view> accounts,
                                                  UnixTime now) const;

  // The engine's generation at `now`, read without its mutex: nonzero when
  // `now` falls on the local date the engine was last asked about, on a day
  // without a clock change. A ProjectRanking of that generation is what
  // RankingOf(account, now) would answer, since nothing its factors read (the
  // ledger, budget.conf, the date) has changed: a job submitted between two
  // passes is so ranked on the pass's factors, exactly, without a lookup by
  // name. 0: ask by name. Never blocks.
  std::uint64_t SteadyGeneration(UnixTime now) const noexcept;

  // The lifecycle verdict of a job (admission.hpp) at `now`, with the
  // configuration and the ledger in force.
  Admission Admit(const AdmissionRequest& request, UnixTime now);
  // The state changes the last Advance logged, in project order.
  std::vector<StateChange> last_state_changes() const;

  // The job's priority in `partition`: `inputs.fair_share` is replaced by the
  // budget's factor for (account, partition) — see docs/design.md:
  // a budgeted partition gives the project's factor, the low partition the
  // low band, other partitions and accounts without a budget 0.
  JobPriority Priority(std::string_view account, std::string_view partition,
                       JobPriorityInputs inputs);
  // The same without allocating, for a pass over every pending job: TRES
  // fractions from `tres_fraction`, weighted TRES into `tres_out`, as the
  // span form of ComputeJobPriority (priority.hpp) takes them.
  JobPriority Priority(std::string_view account, std::string_view partition,
                       JobPriorityInputs inputs, std::span<const double> tres_fraction,
                       std::span<double> tres_out);

  // Copies for tools and tests.
  Ledger ledger() const;
  std::shared_ptr<const BudgetConfig> config() const;

 private:
  // What a pass needs of one project for every pending job, valid while
  // `generation` equals the engine's: its factors and its state. The rest of
  // what the lifecycle verdict reads (budget::Admit reads state, remaining,
  // low_used and low_allowance; engine_test.cpp checks the two agree) is in
  // the project's usage summary, which no change leaves in place without
  // starting a new generation.
  struct Factors {
    std::uint64_t generation = 0;
    double budgeted = 0.0;  // in a budgeted partition: ProjectView::fair_share.factor
    double low = 0.0;       // in the low partition: the low band, or 0 (blocked, ended)
    ProjectState state = ProjectState::kPreparatory;
  };

  explicit Engine(EngineOptions options);
  void Log(LogLevel level, const std::string& message) const;
  void InstallConfig(BudgetConfig config);
  // The index into terms_ of a project, or kNoProject.
  std::size_t FindLocked(std::string_view account) const;
  // Starts a new generation when the local date at `now` is not the current
  // one's.
  void AtLocked(UnixTime now);
  // The generation, read under the mutex (its only writer holds it too).
  std::uint64_t GenerationLocked() const { return generation_.load(std::memory_order_relaxed); }
  // Starts a new generation of the same date: the ledger or budget.conf
  // changed.
  void NextGenerationLocked();
  // Computes the view, and keeps the factors a pass needs from it.
  ProjectView ComputeViewLocked(std::size_t project, UnixTime now);
  const ProjectUsage* UsageLocked(std::size_t project);
  // Forgets every record and summary of the ledger: after it is replaced, or
  // the projects are.
  void ForgetUsageLocked();
  const Factors& FactorsLocked(std::size_t project, UnixTime now);
  // The view of `project` at `now`, from the last one computed when it is
  // the same project in the same generation.
  const ProjectView& LastViewLocked(std::size_t project, UnixTime now);
  std::optional<ProjectView> ProjectLocked(std::string_view account, UnixTime now);
  double FairShareLocked(std::string_view account, std::string_view partition, UnixTime now);
  void TrackStatesLocked(UnixTime now);

  static constexpr std::size_t kNoProject = static_cast<std::size_t>(-1);

  mutable std::mutex mutex_;
  // One Save at a time (taken before mutex_, never after): its file steps
  // run without mutex_.
  std::mutex save_mutex_;
  EngineOptions options_;
  std::shared_ptr<const BudgetConfig> config_;
  std::vector<ProjectTerms> terms_;  // one per project of config_, same order
  // Account -> index into terms_: open addressing, a power-of-two table of
  // indices (kEmptySlot when free) at most half full, probed from the
  // account's hash. A pass looks a project up for every job: this costs one
  // hash and one comparison, builds no std::string, and holds 8 to 16 bytes
  // a project where a node-based map holds 50 to 70.
  static constexpr std::uint32_t kEmptySlot = 0xffffffffU;
  std::vector<std::uint32_t> slots_;
  Ledger ledger_;
  PriorityWeights weights_;
  UnixTime accounted_until_ = 0;

  // Bumped by every change of the ledger, the configuration or the local
  // date asked about: cached views and factors of an older generation are
  // stale. A view reads the date, never the instant, so the submissions
  // between two passes find their project's factors computed.
  // SteadyGeneration reads it without the mutex, as a sequence lock over the
  // date's instants: even, and odd while AtLocked changes them.
  std::atomic<std::uint64_t> generation_{2};
  // The instants [begins, ends) of the generation's date; both 0 on a day
  // with a clock change (or before the first date): SteadyGeneration then
  // answers 0.
  std::atomic<UnixTime> day_begins_{0};
  std::atomic<UnixTime> day_ends_{0};
  // The local date of the generation, the same for every project's view, and
  // the last instant it was found for (the next is most often the same second).
  CivilDate today_;
  UnixTime today_found_at_ = std::numeric_limits<UnixTime>::min();
  // Per project of terms_: its factors as of the generation they were computed
  // in. (Not its whole view: that would take a site over 1 KiB a project.)
  std::vector<Factors> factors_;
  // Per project of terms_: its record in ledger_, once it has one. Records of
  // a std::map never move and the ledger never drops one, so a pointer found
  // once stays valid; a pass then looks no project up by name in the ledger.
  std::vector<const ProjectUsage*> usage_;
  // Per project of terms_: its usage summary at the project month it was read
  // at; month kUnread before the first read. A charge of the open month (or of
  // a later one, or of the preparatory period) reads it again from the usage
  // on the spot; a charge of a month it replayed (late usage) makes it
  // kUnread. A pass replays the closed months of only those projects and of
  // the projects whose month turned.
  static constexpr int kUnread = std::numeric_limits<int>::min();
  std::vector<UsageSummary> summaries_;
  // The last view computed for Project() or Association(): the plugin asks
  // for one project several times in a row (its sshare row, then each user's
  // row).
  std::size_t view_project_ = kNoProject;
  std::uint64_t view_generation_ = 0;
  ProjectView view_;

  // Per project of terms_: its lifecycle state at the last Advance (nullopt:
  // not seen by an Advance yet, e.g. just added to budget.conf).
  std::vector<std::optional<ProjectState>> states_;
  std::vector<StateChange> state_changes_;
};

}  // namespace budget
