// The engine: budget.conf, the ledger and the priority maths behind one mutex, for the plugin.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
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

// Thread-safe: every public method takes the engine's mutex, and none calls
// out except through the log sink (called with the mutex held: it must not
// call back into the engine).
class Engine {
 public:
  // Reads budget.conf (every error logged; the first returned) and the ledger
  // (a corrupt copy falls back to the previous one, with a logged warning; both
  // unreadable is an error, never a silent reset), then closes every month
  // that ended before `now`.
  static Result<std::unique_ptr<Engine>> Open(EngineOptions options, UnixTime now);

  // Re-reads budget.conf; on error the last good configuration stays.
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
  Status Save(UnixTime now);
  // When the loaded ledger was saved (0 when it was fresh).
  UnixTime accounted_until() const;

  std::optional<ProjectView> Project(std::string_view account, UnixTime now);
  // The user's decayed usage in the project; nullopt if never seen.
  std::optional<double> UserUsage(std::string_view account, std::string_view user) const;
  PartitionKind KindOfPartition(std::string_view partition) const;

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

  // Copies for tools and tests.
  Ledger ledger() const;
  std::shared_ptr<const BudgetConfig> config() const;

 private:
  explicit Engine(EngineOptions options);
  void Log(LogLevel level, const std::string& message) const;
  void InstallConfig(BudgetConfig config);
  std::optional<ProjectView> ProjectLocked(std::string_view account, UnixTime now);
  double FairShareLocked(std::string_view account, std::string_view partition, UnixTime now);
  void TrackStatesLocked(UnixTime now);

  mutable std::mutex mutex_;
  EngineOptions options_;
  std::shared_ptr<const BudgetConfig> config_;
  std::vector<ProjectTerms> terms_;  // one per project of config_, same order
  std::unordered_map<std::string, std::size_t> term_index_;
  Ledger ledger_;
  PriorityWeights weights_;
  UnixTime accounted_until_ = 0;

  // Views computed at cache_now_ since the last change of the ledger or the
  // configuration: a pass asks for each project once per row and job.
  UnixTime cache_now_ = -1;
  std::unordered_map<std::string, ProjectView> cache_;

  // The lifecycle state of each project at the last Advance.
  std::unordered_map<std::string, ProjectState> states_;
  std::vector<StateChange> state_changes_;
};

}  // namespace budget
