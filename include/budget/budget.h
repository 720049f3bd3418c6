/* The C ABI of slurm-budget: what the Slurm plugin (C) calls in the C++ core.
 *
 * Contract for every function:
 * - never throws, never aborts on bad input: it returns a budget_status and,
 *   when `err` is not NULL, writes a NUL-terminated message into err->text;
 * - takes no Slurm lock and calls back into Slurm only through the optional
 *   log callback, so it may be called with any Slurm lock held;
 * - is thread-safe: an engine serialises calls with its own mutex;
 * - strings passed in are borrowed for the duration of the call only.
 * Units: time in Unix seconds, usage in GPU-seconds (1 GPUh = 3600).
 */
#ifndef BUDGET_BUDGET_H
#define BUDGET_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
	BUDGET_OK = 0,
	BUDGET_E_INVALID = 1,	/* a NULL or out-of-range argument */
	BUDGET_E_CONFIG = 2,	/* budget.conf unreadable or invalid */
	BUDGET_E_STATE = 3,	/* the ledger file could not be read or written */
	BUDGET_E_NOT_FOUND = 4,	/* no project with that account */
	BUDGET_E_INTERNAL = 5,	/* a bug or out of memory; logged */
} budget_status;

/* Why a call failed: NUL-terminated; a longer message is cut to fit and ends
 * in "..." (the log callback, when there is one, has been given it whole). */
typedef struct {
	char text[160];
} budget_error;

/* Severity for the log callback (mapped to Slurm's error/info/verbose). */
typedef enum {
	BUDGET_LOG_ERROR = 0,
	BUDGET_LOG_INFO = 1,
	BUDGET_LOG_DEBUG = 2,
} budget_log_level;

typedef void (*budget_log_fn)(budget_log_level level, const char *message);

typedef struct budget_engine budget_engine;

typedef struct {
	const char *config_path;	/* budget.conf */
	const char *state_path;		/* ledger file; NULL: keep nothing */
	int64_t half_life_seconds;	/* PriorityDecayHalfLife; 0: none */
	int use_utc;			/* months in UTC, else local time */
	budget_log_fn log;		/* may be NULL */
} budget_engine_options;

/* Reads budget.conf and the ledger, and closes every month that ended
 * before `now`. Fails, leaving *out NULL, when budget.conf is invalid (every
 * error is logged with file:line; err holds the first) or when the ledger
 * and its previous copy are both unreadable (never a silent reset). */
budget_status budget_engine_open(const budget_engine_options *options,
				 int64_t now, budget_engine **out,
				 budget_error *err);
void budget_engine_close(budget_engine *engine);

/* Re-reads budget.conf. On error the last good configuration stays in
 * force, every error is logged, and err holds the first. */
budget_status budget_engine_reload(budget_engine *engine,
				   const char *config_path, budget_error *err);
budget_status budget_engine_set_half_life(budget_engine *engine,
					  int64_t half_life_seconds);

/* A running job's usage over [from, to): `nodes` nodes in `partition`. */
typedef struct {
	const char *account;
	const char *user;
	const char *partition;
	uint32_t nodes;
	int64_t from;
	int64_t to;
} budget_usage_sample;

/* Charges a sample to the ledger (split at month boundaries). Accounts
 * without a budget and partitions not in budget.conf are not charged
 * (BUDGET_OK; nothing to do). */
budget_status budget_engine_accrue(budget_engine *engine,
				   const budget_usage_sample *sample,
				   budget_error *err);

/* Decays fair-share usage to `now` and closes every month that ended
 * (in order; idempotent). Each close is logged. */
budget_status budget_engine_advance(budget_engine *engine, int64_t now,
				    budget_error *err);

/* The instant usage was accounted up to when the ledger was last saved
 * (0 for a fresh ledger): a restarted controller charges running jobs from
 * there, so downtime is neither lost nor counted twice. */
int64_t budget_engine_accounted_until(budget_engine *engine);

/* Writes the ledger (temp file, fsync, rename; previous copy kept). */
budget_status budget_engine_save(budget_engine *engine, int64_t now,
				 budget_error *err);

typedef enum {
	BUDGET_PROJECT_NONE = 0,	/* the account has no budget */
	BUDGET_PROJECT_PREPARATORY = 1,
	BUDGET_PROJECT_ACTIVE = 2,
	BUDGET_PROJECT_LOW = 3,
	BUDGET_PROJECT_BLOCKED = 4,
	BUDGET_PROJECT_ENDED = 5,
} budget_project_state;

/* What the plugin shows for a project in sshare and uses in sprio. */
typedef struct {
	budget_project_state state;
	double fair_share;		/* [0, 1]: the FAIRSHARE factor */
	double usage_gpu_seconds;	/* decayed usage: sshare RawUsage */
	double effective_usage;		/* usage / shares: EffectvUsage */
	double shares_gpu_hours;	/* expected this month, >= 0: RawShares */
	double level;			/* position in the band: LevelFS */
} budget_project_view;

budget_status budget_engine_project(budget_engine *engine,
				    const char *account, int64_t now,
				    budget_project_view *out,
				    budget_error *err);

/* A user's decayed usage in a project (sshare RawUsage of the user row). */
budget_status budget_engine_user_usage(budget_engine *engine,
				       const char *account, const char *user,
				       double *usage_gpu_seconds,
				       budget_error *err);

typedef enum {
	BUDGET_PARTITION_UNBUDGETED = 0,	/* not in budget.conf */
	BUDGET_PARTITION_BUDGETED = 1,
	BUDGET_PARTITION_LOW = 2,
} budget_partition_role;

budget_partition_role budget_engine_partition_role(budget_engine *engine,
						   const char *partition);

/* Called by budget_engine_projects_without_account with each project found. */
typedef void (*budget_account_fn)(const char *account, void *arg);

/* Calls missing(account, arg) for each project of budget.conf, not ended at
 * `now`, whose account is not among accounts[0..n-1] (the accounts Slurm
 * has; NULL entries are skipped), in budget.conf's order: projects no job can
 * be charged to. `missing` is called after the engine's lock is released, so
 * it may call the engine. BUDGET_E_INVALID for a NULL engine or missing, or
 * NULL accounts with n > 0. */
budget_status budget_engine_projects_without_account(
	budget_engine *engine, const char *const *accounts, size_t n,
	int64_t now, budget_account_fn missing, void *arg, budget_error *err);

/* The weights of slurm.conf (PriorityWeight*, PriorityMaxAge, flags). */
typedef struct {
	uint32_t age, assoc, fairshare, jobsize, partition, qos;
	int64_t max_age_seconds;
	int favor_small;
	int small_relative_to_time;
	uint32_t tres_count;
	const double *tres;		/* tres_count weights */
} budget_weights;

budget_status budget_engine_set_weights(budget_engine *engine,
					const budget_weights *weights,
					budget_error *err);

/* One job in one partition, as plain values copied from Slurm's records. */
typedef struct {
	int64_t now;
	int64_t accrue_time;		/* 0: not accruing age */
	const char *account;		/* NULL: no association */
	const char *partition;
	double assoc_norm, qos_norm, partition_norm;	/* [0, 1] */
	uint32_t min_nodes, cpus, cluster_nodes, cluster_cpus;
	uint32_t time_limit_minutes;
	uint32_t tres_count;
	const double *tres_fraction;	/* requested / partition total */
	int64_t site;			/* unbiased site factor */
	int64_t nice;			/* unbiased nice */
} budget_job;

/* The weighted factors (what sprio prints) and their sum. `tres` must point
 * to job->tres_count doubles owned by the caller (may be NULL when 0). */
typedef struct {
	double age, assoc, fairshare, jobsize, partition, qos;
	double *tres;
	int64_t site, nice;
	uint32_t priority;		/* >= 1 */
} budget_job_priority;

budget_status budget_engine_job_priority(budget_engine *engine,
					 const budget_job *job,
					 budget_job_priority *out,
					 budget_error *err);

/* The lifecycle verdict of a job (docs/lifecycle.md, budget/admission.hpp):
 * at submit (job_submit/budget allows, redirects or rejects it) and while it
 * pends (priority/budget holds a job whose verdict is not ALLOW). */
typedef enum {
	BUDGET_ADMIT_ALLOW = 0,		/* as asked */
	BUDGET_ADMIT_REDIRECT = 1,	/* run in `partitions` instead */
	BUDGET_ADMIT_REJECT = 2,	/* refused: `message` says why */
} budget_admit_action;

typedef enum {
	BUDGET_CAUSE_NONE = 0,
	BUDGET_CAUSE_UNBUDGETED_ACCOUNT = 1,	/* UnbudgetedAccounts=reject */
	BUDGET_CAUSE_CREDIT_USED_UP = 2,	/* low; budgeted partition asked */
	BUDGET_CAUSE_LOW_ALLOWANCE_USED = 3,	/* blocked */
	BUDGET_CAUSE_ENDED = 4,
} budget_admit_cause;

typedef struct {
	int64_t now;
	const char *account;	/* NULL or "": the job has no account */
	const char *partitions;	/* comma-separated, as asked; NULL: unknown */
	uint32_t job_id;	/* named in hold_reason's hint; 0 at submit */
} budget_admission_request;

/* Every string is NUL-terminated. The hold reason starts with
 * BUDGET_HOLD_PREFIX, which is how priority/budget recognises its holds. */
#define BUDGET_HOLD_PREFIX "budget: "

typedef struct {
	budget_admit_action action;
	budget_admit_cause cause;
	budget_project_state state;	/* NONE: the account has no budget */
	char partitions[1024];	/* where the job may run (REDIRECT: new list) */
	char message[1024];	/* for the user at submit; "" for a plain ALLOW */
	char hold_reason[512];	/* for a pending job; "" for ALLOW */
	char last_day[16];	/* YYYY-MM-DD: last day of compute; "" no project */
	char storage_last_day[16];	/* YYYY-MM-DD: last day storage is readable */
	int64_t remaining;	/* credit left, GPU-seconds (may be < 0) */
	int64_t low_used;	/* charged to the low allowance, GPU-seconds */
	int64_t low_allowance;	/* C / D, GPU-seconds */
} budget_admission;

/* Fills *out with the verdict at request->now, from the configuration and
 * ledger in force. BUDGET_E_INVALID for NULL arguments or a partition list
 * that does not fit `partitions`; messages longer than their buffer are cut. */
budget_status budget_engine_admit(budget_engine *engine,
				  const budget_admission_request *request,
				  budget_admission *out, budget_error *err);

/* A project's lifecycle state at `now`, and whether budget_engine_admit
 * would allow every job of the account as asked, whatever its partitions:
 * true for a preparatory or active project and for an account without a
 * budget under UnbudgetedAccounts=allow. Cheap (one hash lookup, cached per
 * project and instant; no string is built), so that a pass over every
 * pending job asks for the full verdict only when allows_all is 0.
 * `account` NULL or "": a job without an account (no budget). */
typedef struct {
	budget_project_state state;	/* NONE: the account has no budget */
	int allows_all;			/* 1: admit's verdict is ALLOW */
} budget_project_lifecycle;

/* BUDGET_E_INVALID for a NULL engine or out; otherwise BUDGET_OK, also for
 * an account without a budget (state NONE). */
budget_status budget_engine_project_state(budget_engine *engine,
					  const char *account, int64_t now,
					  budget_project_lifecycle *out,
					  budget_error *err);

/* What a pass over every pending job needs of a job's project, resolved
 * once per association rather than by name for every job: the lifecycle of
 * budget_engine_project_state and the FAIRSHARE factor
 * budget_engine_job_priority uses in each kind of partition (0 in a
 * partition not in budget.conf, and for an account without a budget). */
typedef struct {
	budget_project_lifecycle lifecycle;
	double fair_share_budgeted;	/* [0, 1], in a budgeted partition */
	double fair_share_low;		/* [0, 1], in the low partition */
	/* The engine's generation the factors were computed in (0 for an
	 * account without a budget): see budget_engine_steady_generation. */
	uint64_t generation;
} budget_project_ranking;

/* The engine's generation at `now`, read without waiting for the engine:
 * nonzero when `now` falls on the local date the engine was last asked
 * about, on a day without a clock change. A ranking (of
 * budget_engine_project_ranking or budget_engine_associations) whose
 * generation equals it is the one budget_engine_project_ranking would give
 * at `now`: nothing its factors read (the ledger, budget.conf, the date) has
 * changed since. 0 for a NULL engine, or when the caller must ask by name. */
uint64_t budget_engine_steady_generation(const budget_engine *engine,
					 int64_t now);

/* BUDGET_E_INVALID for a NULL engine or out; otherwise BUDGET_OK, also for
 * an account without a budget (state NONE, both factors 0). */
budget_status budget_engine_project_ranking(budget_engine *engine,
					    const char *account, int64_t now,
					    budget_project_ranking *out,
					    budget_error *err);

/* What one row of Slurm's association table shows and ranks by, from one
 * lookup of its account: the project's view (budget_engine_project), its
 * ranking (budget_engine_project_ranking) and, for a user's row, the user's
 * decayed usage (budget_engine_user_usage). The publish step of a pass asks
 * it for every row. */
typedef struct {
	budget_project_view project;	/* all 0 (state NONE): no budget */
	budget_project_ranking ranking;
	double user_usage_gpu_seconds;	/* 0: no user, or one never charged */
} budget_association;

/* `user` NULL or "": the account's own row. BUDGET_E_INVALID for a NULL
 * engine or out; otherwise BUDGET_OK, also for an account without a budget
 * or a NULL account (no budget). */
budget_status budget_engine_association(budget_engine *engine,
					const char *account, const char *user,
					int64_t now, budget_association *out,
					budget_error *err);

/* A copy of the weights that the caller keeps, for
 * budget_job_priority_weighted. The caller frees it, and must not while a
 * call reads it. */
typedef struct budget_priority_weights budget_priority_weights;

/* *out: a copy of `weights`, or NULL on error (BUDGET_E_INVALID for NULL
 * weights or out, or tres_count > 0 with NULL tres). */
budget_status budget_priority_weights_new(const budget_weights *weights,
					  budget_priority_weights **out,
					  budget_error *err);
void budget_priority_weights_free(budget_priority_weights *weights);

/* budget_engine_job_priority with the FAIRSHARE factor given (from
 * budget_engine_project_ranking and budget_engine_partition_role) and the
 * caller's copy of the weights: job->account and job->partition are not
 * read, nothing is looked up by name, and no engine is needed, so the call
 * takes no lock: a job ranked under slurmctld's job write lock never waits
 * for the engine's mutex, which the budget thread holds while it advances
 * or saves. The same result as budget_engine_job_priority for the same
 * factor and weights. */
budget_status budget_job_priority_weighted(
	const budget_priority_weights *weights, const budget_job *job,
	double fair_share, budget_job_priority *out, budget_error *err);

/* One row of Slurm's association table, for budget_engine_associations. */
typedef struct {
	const char *account;	/* NULL or "": no budget */
	const char *user;	/* NULL or "": the account's own row */
} budget_association_key;

/* budget_engine_association for keys[0..n-1], under one lock of the engine
 * for every 128 rows: out[i] answers keys[i], as budget_engine_association
 * would. The publish step of a pass asks its rows so, in batches, in
 * assoc_mgr's order: the consecutive rows of one account look its project up
 * and compute its view once, and its users, listed in name order, are found
 * one step apart.
 * BUDGET_E_INVALID for a NULL engine, or for NULL keys or out with n > 0
 * (out untouched); otherwise BUDGET_OK. */
budget_status budget_engine_associations(budget_engine *engine,
					 const budget_association_key *keys,
					 size_t n, int64_t now,
					 budget_association *out,
					 budget_error *err);

/* The fair-share factor the sshare client computes (classic formula,
 * 2^(-usage/shares)); 0 for shares <= 0. Pure: needs no engine. */
double budget_classic_fs_factor(double effective_usage, double shares_norm);

#ifdef __cplusplus
}
#endif

#endif /* BUDGET_BUDGET_H */
