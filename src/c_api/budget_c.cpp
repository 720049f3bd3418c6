// The C ABI (include/budget/budget.h) over budget::Engine: no exception crosses it.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "budget/budget.h"
#include "budget/engine.hpp"

struct budget_engine {
  std::unique_ptr<budget::Engine> engine;
};

struct budget_priority_weights {
  budget::PriorityWeights weights;
};

// priority/budget recognises its holds by this prefix, from either side of the ABI.
static_assert(std::string_view(BUDGET_HOLD_PREFIX) == budget::kHoldReasonPrefix);

namespace {

// A message longer than the buffer is cut before a whole UTF-8 character and ends in
// kCutMark, so that a log line built on it does not read as if it were all there (the log
// callback has had it whole).
constexpr std::string_view kCutMark = "...";

void SetError(budget_error* err, const std::string& message) {
  if (err == nullptr) {
    return;
  }
  constexpr std::size_t kRoom = sizeof(err->text) - 1;
  if (message.size() <= kRoom) {
    std::memcpy(err->text, message.data(), message.size());
    err->text[message.size()] = '\0';
    return;
  }
  std::size_t kept = kRoom - kCutMark.size();
  while (kept > 0 && (static_cast<unsigned char>(message[kept]) & 0xC0U) == 0x80U) {
    --kept;  // message[kept] continues a character: cut before the character's first byte
  }
  std::memcpy(err->text, message.data(), kept);
  std::memcpy(err->text + kept, kCutMark.data(), kCutMark.size());
  err->text[kept + kCutMark.size()] = '\0';
}

void ClearError(budget_error* err) {
  if (err != nullptr) {
    err->text[0] = '\0';
  }
}

// Runs `body`, turning any exception into BUDGET_E_INTERNAL with its message.
// [[gnu::hot]] here and on the entry points a new job's priority calls: see
// engine.cpp's FindLocked.
template <typename Body>
[[gnu::hot]] budget_status Guard(budget_error* err, Body&& body) noexcept {
  try {
    ClearError(err);
    return body();
  } catch (const std::bad_alloc&) {
    SetError(err, "out of memory");
  } catch (const std::exception& e) {
    SetError(err, std::string("internal error: ") + e.what());
  } catch (...) {
    SetError(err, "internal error");
  }
  return BUDGET_E_INTERNAL;
}

std::string_view View(const char* s) { return s == nullptr ? std::string_view() : s; }

// Copies `text` into a fixed C buffer, cut to fit, NUL-terminated: what
// snprintf("%s") does, without parsing a format for every pending job.
template <std::size_t N>
void CopyText(char (&buffer)[N], std::string_view text) {
  static_assert(N > 0);
  const std::size_t n = std::min(text.size(), N - 1);
  std::memcpy(buffer, text.data(), n);
  buffer[n] = '\0';
}

budget_project_state ToC(budget::ProjectState s) {
  switch (s) {
    case budget::ProjectState::kPreparatory:
      return BUDGET_PROJECT_PREPARATORY;
    case budget::ProjectState::kActive:
      return BUDGET_PROJECT_ACTIVE;
    case budget::ProjectState::kLow:
      return BUDGET_PROJECT_LOW;
    case budget::ProjectState::kBlocked:
      return BUDGET_PROJECT_BLOCKED;
    case budget::ProjectState::kEnded:
      return BUDGET_PROJECT_ENDED;
  }
  return BUDGET_PROJECT_NONE;
}

budget_project_view ToC(const budget::ProjectView& view) {
  return {.state = ToC(view.status.state),
          .fair_share = view.fair_share.factor,
          .usage_gpu_seconds = view.status.decayed_usage,
          .effective_usage = view.fair_share.usage_ratio,
          .shares_gpu_hours = view.shares_gpu_hours,
          .level = view.fair_share.key};
}

// The lifecycle of a project of budget.conf in `state`: the rows of Admit's
// table (admission.hpp) whose verdict does not depend on the partitions asked
// for, and is kAllow.
budget_project_lifecycle LifecycleOf(budget::ProjectState state) {
  return {.state = ToC(state),
          .allows_all = state == budget::ProjectState::kPreparatory ||
                        state == budget::ProjectState::kActive};
}

// The lifecycle of an account without a budget: budget.conf's
// UnbudgetedAccounts. Rare (most accounts have a budget): the configuration
// is only copied here. Takes the engine's mutex.
budget_project_lifecycle NoBudgetLifecycle(const budget::Engine& engine) {
  return {.state = BUDGET_PROJECT_NONE,
          .allows_all = engine.config()->unbudgeted_accounts ==
                        budget::BudgetConfig::UnbudgetedAction::kAllow};
}

// The lifecycle of a project in `state` (nullopt: an account without a budget).
budget_project_lifecycle LifecycleOf(const budget::Engine& engine,
                                     std::optional<budget::ProjectState> state) {
  return state ? LifecycleOf(*state) : NoBudgetLifecycle(engine);
}

// A project's ranking.
budget_project_ranking RankingOf(const budget::ProjectRanking& ranking) {
  return {.lifecycle = LifecycleOf(ranking.state),
          .fair_share_budgeted = ranking.budgeted,
          .fair_share_low = ranking.low,
          .generation = ranking.generation};
}

// The ranking of an account without a budget: factors 0, and generation 0 (it
// was not computed under the mutex with the rows). Takes the engine's mutex.
budget_project_ranking NoBudgetRanking(const budget::Engine& engine) {
  return {.lifecycle = NoBudgetLifecycle(engine),
          .fair_share_budgeted = 0.0,
          .fair_share_low = 0.0,
          .generation = 0};
}

// Answers keys[0..n-1] into out[0..n-1] as budget_engine_associations
// promises, its arguments checked. The keys are converted kChunk at a time
// into an array on the stack, which is zeroed each call: 1 for a single row,
// kPublishChunk (the plugin's batch) for a batch.
template <std::size_t kChunk>
void AnswerAssociations(budget_engine& engine, const budget_association_key* keys, std::size_t n,
                        int64_t now, budget_association* out) {
  // A sink of two pointers, which std::function keeps inline: a batch
  // allocates nothing unless some row has no budget.
  std::array<budget::AssociationKey, kChunk> chunk;
  struct {
    std::size_t first = 0;                    // keys[first] is chunk[0]
    std::vector<std::size_t> without_budget;  // rows answered after the batch
  } batch;
  const budget::AssociationSink sink = [&batch, out](std::size_t i,
                                                     const budget::AssociationRow& row) {
    if (row.project == nullptr) {
      batch.without_budget.push_back(batch.first + i);
      return;
    }
    out[batch.first + i] = budget_association{.project = ToC(*row.project),
                                              .ranking = RankingOf(row.ranking),
                                              .user_usage_gpu_seconds = row.user_usage};
  };
  for (; batch.first < n; batch.first += kChunk) {
    const std::size_t count = std::min(kChunk, n - batch.first);
    for (std::size_t i = 0; i < count; ++i) {
      chunk[i] = {View(keys[batch.first + i].account), View(keys[batch.first + i].user)};
    }
    engine.engine->Associations(std::span(chunk).first(count), now, sink);
  }
  // After the rows: the sink runs under the engine's mutex, which
  // NoBudgetRanking takes.
  if (!batch.without_budget.empty()) {
    const budget_project_ranking no_budget = NoBudgetRanking(*engine.engine);
    for (const std::size_t i : batch.without_budget) {
      out[i] =
          budget_association{.project = {}, .ranking = no_budget, .user_usage_gpu_seconds = 0.0};
    }
  }
}

// The chunk of budget_engine_associations: as many rows as the plugin's batch.
constexpr std::size_t kPublishChunk = 128;

// `owner`: the engine or the weights the call reads.
bool JobPriorityArgumentsValid(const void* owner, const budget_job* job,
                               const budget_job_priority* out) {
  return owner != nullptr && job != nullptr && out != nullptr &&
         (job->tres_count == 0 || (job->tres_fraction != nullptr && out->tres != nullptr));
}

bool WeightsValid(const budget_weights* weights) {
  return weights != nullptr && (weights->tres_count == 0 || weights->tres != nullptr);
}

budget::PriorityWeights WeightsOf(const budget_weights& weights) {
  budget::PriorityWeights w;
  w.age = weights.age;
  w.assoc = weights.assoc;
  w.fairshare = weights.fairshare;
  w.jobsize = weights.jobsize;
  w.partition = weights.partition;
  w.qos = weights.qos;
  w.max_age_seconds = weights.max_age_seconds;
  w.favor_small = weights.favor_small != 0;
  w.small_relative_to_time = weights.small_relative_to_time != 0;
  w.tres.assign(weights.tres, weights.tres + weights.tres_count);
  return w;
}

// A job's plain values, as the core takes them (fair_share left at 0).
budget::JobPriorityInputs InputsOf(const budget_job& job) {
  budget::JobPriorityInputs in;
  in.now = job.now;
  in.accrue_time = job.accrue_time;
  in.assoc_norm = job.assoc_norm;
  in.qos_norm = job.qos_norm;
  in.partition_norm = job.partition_norm;
  in.min_nodes = job.min_nodes;
  in.cpus = job.cpus;
  in.cluster_nodes = job.cluster_nodes;
  in.cluster_cpus = job.cluster_cpus;
  in.time_limit_minutes = job.time_limit_minutes;
  in.site = job.site;
  in.nice = job.nice;
  return in;
}

std::span<const double> TresFractionOf(const budget_job& job) {
  return {job.tres_fraction, job.tres_count};
}

std::span<double> TresOutOf(const budget_job& job, budget_job_priority* out) {
  return {out->tres, job.tres_count};
}

void CopyPriority(const budget::JobPriority& p, budget_job_priority* out) {
  out->age = p.age;
  out->assoc = p.assoc;
  out->fairshare = p.fairshare;
  out->jobsize = p.jobsize;
  out->partition = p.partition;
  out->qos = p.qos;
  out->site = p.site;
  out->nice = p.nice;
  out->priority = p.priority;
}

}  // namespace

extern "C" {

budget_status budget_engine_open(const budget_engine_options* options, int64_t now,
                                 budget_engine** out, budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (out == nullptr || options == nullptr || options->config_path == nullptr) {
      SetError(err, "budget_engine_open: options, config_path and out are required");
      return BUDGET_E_INVALID;
    }
    *out = nullptr;
    budget::EngineOptions opts;
    opts.config_path = options->config_path;
    opts.state_path = options->state_path != nullptr ? options->state_path : "";
    opts.half_life_seconds = options->half_life_seconds;
    opts.zone = options->use_utc ? budget::TimeZone::Utc() : budget::TimeZone::Local();
    if (budget_log_fn log = options->log; log != nullptr) {
      opts.log = [log](budget::LogLevel level, const std::string& message) {
        const budget_log_level c_level = level == budget::LogLevel::kError  ? BUDGET_LOG_ERROR
                                         : level == budget::LogLevel::kInfo ? BUDGET_LOG_INFO
                                                                            : BUDGET_LOG_DEBUG;
        log(c_level, message.c_str());
      };
    }
    auto engine = budget::Engine::Open(std::move(opts), now);
    if (!engine) {
      SetError(err, engine.error());
      const bool config = engine.error().find(options->config_path) != std::string::npos;
      return config ? BUDGET_E_CONFIG : BUDGET_E_STATE;
    }
    *out = new budget_engine{std::move(engine).value()};
    return BUDGET_OK;
  });
}

void budget_engine_close(budget_engine* engine) {
  try {
    delete engine;
  } catch (...) {  // a destructor should not throw; never let it reach C
  }
}

budget_status budget_engine_reload(budget_engine* engine, const char* config_path,
                                   budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (engine == nullptr || config_path == nullptr) {
      return BUDGET_E_INVALID;
    }
    auto status = engine->engine->Reload(config_path);
    if (!status) {
      SetError(err, status.error());
      return BUDGET_E_CONFIG;
    }
    return BUDGET_OK;
  });
}

budget_status budget_engine_set_half_life(budget_engine* engine, int64_t half_life_seconds) {
  return Guard(nullptr, [&]() -> budget_status {
    if (engine == nullptr) {
      return BUDGET_E_INVALID;
    }
    engine->engine->SetHalfLife(half_life_seconds);
    return BUDGET_OK;
  });
}

budget_status budget_engine_accrue(budget_engine* engine, const budget_usage_sample* sample,
                                   budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (engine == nullptr || sample == nullptr) {
      return BUDGET_E_INVALID;
    }
    engine->engine->Accrue(View(sample->account), View(sample->user), View(sample->partition),
                           sample->nodes, sample->from, sample->to);
    return BUDGET_OK;
  });
}

budget_status budget_engine_advance(budget_engine* engine, int64_t now, budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (engine == nullptr) {
      return BUDGET_E_INVALID;
    }
    engine->engine->Advance(now);
    return BUDGET_OK;
  });
}

int64_t budget_engine_accounted_until(budget_engine* engine) {
  if (engine == nullptr) {
    return 0;
  }
  try {
    return engine->engine->accounted_until();
  } catch (...) {
    return 0;
  }
}

budget_status budget_engine_save(budget_engine* engine, int64_t now, budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (engine == nullptr) {
      return BUDGET_E_INVALID;
    }
    auto status = engine->engine->Save(now);
    if (!status) {
      SetError(err, status.error());
      return BUDGET_E_STATE;
    }
    return BUDGET_OK;
  });
}

budget_status budget_engine_project(budget_engine* engine, const char* account, int64_t now,
                                    budget_project_view* out, budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (engine == nullptr || account == nullptr || out == nullptr) {
      return BUDGET_E_INVALID;
    }
    const auto view = engine->engine->Project(account, now);
    if (!view) {
      SetError(err, std::string("no budget for account ") + account);
      return BUDGET_E_NOT_FOUND;
    }
    *out = ToC(*view);
    return BUDGET_OK;
  });
}

budget_status budget_engine_user_usage(budget_engine* engine, const char* account, const char* user,
                                       double* usage_gpu_seconds, budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (engine == nullptr || account == nullptr || user == nullptr ||
        usage_gpu_seconds == nullptr) {
      return BUDGET_E_INVALID;
    }
    const auto usage = engine->engine->UserUsage(account, user);
    *usage_gpu_seconds = usage.value_or(0.0);
    return usage ? BUDGET_OK : BUDGET_E_NOT_FOUND;
  });
}

budget_status budget_engine_projects_without_account(budget_engine* engine,
                                                     const char* const* accounts, size_t n,
                                                     int64_t now, budget_account_fn missing,
                                                     void* arg, budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (engine == nullptr || missing == nullptr || (accounts == nullptr && n > 0)) {
      SetError(err,
               "budget_engine_projects_without_account: engine, missing and accounts are "
               "required");
      return BUDGET_E_INVALID;
    }
    std::vector<std::string_view> known;
    known.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (accounts[i] != nullptr) {
        known.emplace_back(accounts[i]);
      }
    }
    for (const std::string& account : engine->engine->ProjectsWithoutAccount(known, now)) {
      missing(account.c_str(), arg);
    }
    return BUDGET_OK;
  });
}

budget_partition_role budget_engine_partition_role(budget_engine* engine, const char* partition) {
  if (engine == nullptr || partition == nullptr) {
    return BUDGET_PARTITION_UNBUDGETED;
  }
  try {
    switch (engine->engine->KindOfPartition(partition)) {
      case budget::PartitionKind::kBudgeted:
        return BUDGET_PARTITION_BUDGETED;
      case budget::PartitionKind::kLow:
        return BUDGET_PARTITION_LOW;
      case budget::PartitionKind::kUnbudgeted:
        break;
    }
  } catch (...) {
  }
  return BUDGET_PARTITION_UNBUDGETED;
}

budget_status budget_engine_set_weights(budget_engine* engine, const budget_weights* weights,
                                        budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (engine == nullptr || !WeightsValid(weights)) {
      SetError(err, "budget_engine_set_weights: engine and weights are required");
      return BUDGET_E_INVALID;
    }
    engine->engine->SetWeights(WeightsOf(*weights));
    return BUDGET_OK;
  });
}

budget_status budget_priority_weights_new(const budget_weights* weights,
                                          budget_priority_weights** out, budget_error* err) {
  if (out != nullptr) {
    *out = nullptr;
  }
  return Guard(err, [&]() -> budget_status {
    if (out == nullptr || !WeightsValid(weights)) {
      SetError(err, "budget_priority_weights_new: weights and out are required");
      return BUDGET_E_INVALID;
    }
    *out = new budget_priority_weights{WeightsOf(*weights)};
    return BUDGET_OK;
  });
}

void budget_priority_weights_free(budget_priority_weights* weights) { delete weights; }

[[gnu::hot]] budget_status budget_engine_job_priority(budget_engine* engine, const budget_job* job,
                                                      budget_job_priority* out, budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (!JobPriorityArgumentsValid(engine, job, out)) {
      SetError(err, "budget_engine_job_priority: job, out and the TRES arrays are required");
      return BUDGET_E_INVALID;
    }
    // The TRES arrays are the caller's: nothing is allocated for a job.
    CopyPriority(engine->engine->Priority(View(job->account), View(job->partition), InputsOf(*job),
                                          TresFractionOf(*job), TresOutOf(*job, out)),
                 out);
    return BUDGET_OK;
  });
}

[[gnu::hot]] budget_status budget_job_priority_weighted(const budget_priority_weights* weights,
                                                        const budget_job* job, double fair_share,
                                                        budget_job_priority* out,
                                                        budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (!JobPriorityArgumentsValid(weights, job, out)) {
      SetError(err,
               "budget_job_priority_weighted: weights, job, out and the TRES arrays are required");
      return BUDGET_E_INVALID;
    }
    budget::JobPriorityInputs in = InputsOf(*job);
    in.fair_share = fair_share;
    CopyPriority(budget::ComputeJobPriority(weights->weights, in, TresFractionOf(*job),
                                            TresOutOf(*job, out)),
                 out);
    return BUDGET_OK;
  });
}

budget_status budget_engine_admit(budget_engine* engine, const budget_admission_request* request,
                                  budget_admission* out, budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (engine == nullptr || request == nullptr || out == nullptr) {
      SetError(err, "budget_engine_admit: engine, request and out are required");
      return BUDGET_E_INVALID;
    }
    budget::AdmissionRequest in;
    in.account = std::string(View(request->account));
    in.partitions = budget::SplitPartitionList(View(request->partitions));
    in.job_id = request->job_id;
    const budget::Admission a = engine->engine->Admit(in, request->now);
    const std::string partitions = budget::JoinPartitionList(a.partitions);
    if (partitions.size() >= sizeof(out->partitions)) {
      SetError(err, "budget_engine_admit: partition list longer than " +
                        std::to_string(sizeof(out->partitions) - 1) + " characters");
      return BUDGET_E_INVALID;
    }
    std::memset(out, 0, sizeof(*out));
    out->action = a.action == budget::AdmissionAction::kRedirect ? BUDGET_ADMIT_REDIRECT
                  : a.action == budget::AdmissionAction::kReject ? BUDGET_ADMIT_REJECT
                                                                 : BUDGET_ADMIT_ALLOW;
    switch (a.cause) {
      case budget::AdmissionCause::kNone:
        out->cause = BUDGET_CAUSE_NONE;
        break;
      case budget::AdmissionCause::kUnbudgetedAccount:
        out->cause = BUDGET_CAUSE_UNBUDGETED_ACCOUNT;
        break;
      case budget::AdmissionCause::kCreditUsedUp:
        out->cause = BUDGET_CAUSE_CREDIT_USED_UP;
        break;
      case budget::AdmissionCause::kLowAllowanceUsed:
        out->cause = BUDGET_CAUSE_LOW_ALLOWANCE_USED;
        break;
      case budget::AdmissionCause::kEnded:
        out->cause = BUDGET_CAUSE_ENDED;
        break;
    }
    out->state = a.has_project ? ToC(a.state) : BUDGET_PROJECT_NONE;
    CopyText(out->partitions, partitions);
    CopyText(out->message, a.message);
    CopyText(out->hold_reason, a.hold_reason);
    if (a.has_project) {
      CopyText(out->last_day, budget::FormatCivilDate(a.last_day));
      CopyText(out->storage_last_day, budget::FormatCivilDate(a.storage_last_day));
    }
    out->remaining = a.remaining;
    out->low_used = a.low_used;
    out->low_allowance = a.low_allowance;
    return BUDGET_OK;
  });
}

budget_status budget_engine_project_state(budget_engine* engine, const char* account, int64_t now,
                                          budget_project_lifecycle* out, budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (engine == nullptr || out == nullptr) {
      SetError(err, "budget_engine_project_state: engine and out are required");
      return BUDGET_E_INVALID;
    }
    *out = LifecycleOf(*engine->engine, engine->engine->StateOf(View(account), now));
    return BUDGET_OK;
  });
}

budget_status budget_engine_project_ranking(budget_engine* engine, const char* account, int64_t now,
                                            budget_project_ranking* out, budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (engine == nullptr || out == nullptr) {
      SetError(err, "budget_engine_project_ranking: engine and out are required");
      return BUDGET_E_INVALID;
    }
    const std::optional<budget::ProjectRanking> ranking =
        engine->engine->RankingOf(View(account), now);
    *out = ranking ? RankingOf(*ranking) : NoBudgetRanking(*engine->engine);
    return BUDGET_OK;
  });
}

[[gnu::hot]] uint64_t budget_engine_steady_generation(const budget_engine* engine, int64_t now) {
  return engine != nullptr ? engine->engine->SteadyGeneration(now) : 0;
}

budget_status budget_engine_association(budget_engine* engine, const char* account,
                                        const char* user, int64_t now, budget_association* out,
                                        budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (engine == nullptr || out == nullptr) {
      SetError(err, "budget_engine_association: engine and out are required");
      return BUDGET_E_INVALID;
    }
    const budget_association_key key = {.account = account, .user = user};
    AnswerAssociations<1>(*engine, &key, 1, now, out);
    return BUDGET_OK;
  });
}

budget_status budget_engine_associations(budget_engine* engine, const budget_association_key* keys,
                                         size_t n, int64_t now, budget_association* out,
                                         budget_error* err) {
  return Guard(err, [&]() -> budget_status {
    if (engine == nullptr || (n > 0 && (keys == nullptr || out == nullptr))) {
      SetError(err, "budget_engine_associations: engine, and keys and out for n > 0, are required");
      return BUDGET_E_INVALID;
    }
    AnswerAssociations<kPublishChunk>(*engine, keys, n, now, out);
    return BUDGET_OK;
  });
}

double budget_classic_fs_factor(double effective_usage, double shares_norm) {
  if (!(shares_norm > 0) || std::isnan(effective_usage)) {
    return 0.0;
  }
  return std::pow(2.0, -(effective_usage / shares_norm));
}

}  // extern "C"
