/*****************************************************************************\
 *  priority_budget.c - PriorityType=priority/budget: GPU-hour project budgets
 *  as scheduling priority, and the lifecycle of pending jobs (holds, see
 *  docs/lifecycle.md). With the other files of src/slurm/, the only ones
 *  that include Slurm headers.
 *
 *  It copies Slurm records into the plain structs of include/budget/budget.h,
 *  calls the C++ core through that C ABI, and writes the results back. The
 *  budget arithmetic lives in the core; Slurm's own bookkeeping that
 *  priority/multifactor would otherwise do (TRES run seconds, decayed TRES
 *  usage) is in slurm_usage.c, done the way multifactor does it.
 *
 *  Locking (see docs/design.md and the facts in slurm-22.05-priority-plugin):
 *  - slurmctld locks before assoc_mgr locks, released in reverse order;
 *  - plugin_lock and the engine's own mutex are innermost: no Slurm lock is
 *    ever requested while either is held;
 *  - priority_p_set and priority_p_job_end run with the job write lock held by
 *    the caller and so never call lock_slurmctld().
\*****************************************************************************/

#include "config.h"

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/site_factor.h"
#include "src/common/slurm_mcs.h"
#include "src/common/slurm_priority.h"
#include "src/common/slurm_protocol_api.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "budget/budget.h"
#include "assoc_rankings.h"
#include "budget_paths.h"
#include "controller_globals.h"
#include "factors_answer.h"
#include "hot_path.h"
#include "job_prefetch.h"
#include "project_accounts.h"
#include "publish_usage.h"
#include "slurm_usage.h"


const char plugin_name[] = "Priority BUDGET plugin (GPU-hour project budgets)";
const char plugin_type[] = "priority/budget";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;


static pthread_mutex_t plugin_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t calc_cond = PTHREAD_COND_INITIALIZER;
static pthread_t calc_thread;
static bool calc_thread_running = false;
static bool plugin_shutdown = false;
static budget_engine *engine = NULL;

/* Copies of slurm.conf values, refreshed in init() and reconfig(). */
static uint32_t weight_age, weight_assoc, weight_fs, weight_js, weight_part,
	weight_qos;
static double *weight_tres = NULL;	/* slurmctld_tres_cnt entries */
static uint32_t weight_tres_cnt = 0;
static uint16_t prio_flags = 0;
static uint32_t calc_period = 300;

/* The weights as budget_job_priority_weighted reads them, for the jobs ranked
 * on a pass's factors: the plugin's own copy, so that ranking a job takes no
 * lock of the engine's. Replaced only when the weights change, under the job
 * write lock, as weight_tres is; `weights_copied` is what it copied. */
static budget_priority_weights *priority_weights = NULL;
static budget_weights weights_copied;

/* budget.conf was (re)loaded since its projects were last compared with
 * Slurm's accounts (project_accounts.h). Under plugin_lock. */
static bool accounts_unchecked = false;

/* A reload of budget.conf asked for a pass before the next period's
 * (_ask_pass). Under plugin_lock. */
static bool pass_asked = false;

/* Usage is accounted up to this instant (job write lock held to change it). */
static time_t last_ran = 0;

static bool _in_controller(void)
{
	return (&job_list != NULL) && (&cluster_cpus != NULL);
}

static void _log_from_core(budget_log_level level, const char *message)
{
	switch (level) {
	case BUDGET_LOG_ERROR:
		error("%s: %s", plugin_type, message);
		break;
	case BUDGET_LOG_INFO:
		info("%s: %s", plugin_type, message);
		break;
	default:
		log_flag(PRIO, "%s: %s", plugin_type, message);
		break;
	}
}

/* Whether `tres` (tres_cnt weights, or NULL) are the weights in use. Caller
 * holds plugin_lock. */
static bool _same_tres_weights(const double *tres, uint32_t tres_cnt)
{
	if (!tres || !weight_tres)
		return tres == weight_tres;
	return (tres_cnt == weight_tres_cnt) &&
		!memcmp(tres, weight_tres, sizeof(double) * tres_cnt);
}

/* Whether a and b have the same weights, their TRES weights aside. */
static bool _same_factor_weights(const budget_weights *a,
				 const budget_weights *b)
{
	return (a->age == b->age) && (a->assoc == b->assoc) &&
		(a->fairshare == b->fairshare) && (a->jobsize == b->jobsize) &&
		(a->partition == b->partition) && (a->qos == b->qos) &&
		(a->max_age_seconds == b->max_age_seconds) &&
		(a->favor_small == b->favor_small) &&
		(a->small_relative_to_time == b->small_relative_to_time);
}

/* Replaces priority_weights with a copy of `weights`; on failure leaves none,
 * and the jobs are ranked by name, on the engine's copy. Caller holds
 * plugin_lock and the job write lock. */
static void _copy_priority_weights(const budget_weights *weights)
{
	budget_priority_weights *copy = NULL;
	budget_error err;

	if (budget_priority_weights_new(weights, &copy, &err))
		error("%s: weights: %s", plugin_type, err.text);
	budget_priority_weights_free(priority_weights);
	priority_weights = copy;
	weights_copied = *weights;
}

/*
 * A job's factors carry no TRES weights while they are the ones in force
 * (weight_tres): a copy a job is 112 bytes of heap on a site of ten TRES
 * (2.1 MiB for 20,000 pending jobs), and one more array a pass writes a job.
 * When they change, each job ranked under the old ones keeps a copy until it
 * is ranked again, so that sprio shows its values with the weights they were
 * weighted with, as multifactor does. Caller holds the job write lock.
 */
static void _keep_ranked_tres_weights(const double *old, uint32_t old_cnt)
{
	ListIterator itr;
	job_record_t *job_ptr;
	size_t size = sizeof(double) * old_cnt;

	if (!old || !old_cnt || (&job_list == NULL) || !job_list)
		return;
	itr = list_iterator_create(job_list);
	while ((job_ptr = list_next(itr))) {
		priority_factors_object_t *factors = job_ptr->prio_factors;

		if (!factors || !factors->priority_tres ||
		    factors->tres_weights || (factors->tres_cnt != old_cnt))
			continue;
		factors->tres_weights = xmalloc_nz(size);
		memcpy(factors->tres_weights, old, size);
	}
	list_iterator_destroy(itr);
}

/*
 * Copies the weights; must not be called with an assoc_mgr lock held
 * (slurm_get_tres_weight_array takes the TRES read lock). The weights are
 * read by whoever ranks a job, under a job lock and not under plugin_lock
 * (the pass, a submission, sprio's answer), so the caller holds the job
 * write lock, or the job read lock when slurm.conf was not read again
 * (reconfig(false)): then the weights are the same, and an unchanged TRES
 * array and priority_weights are kept rather than freed under a reader.
 */
static void _read_weights(void)
{
	double *tres = NULL;
	int tres_cnt = (&slurmctld_tres_cnt != NULL) ? slurmctld_tres_cnt : 0;
	budget_weights weights;
	budget_error err;
	bool tres_changed;

	if (slurm_conf.priority_weight_tres && tres_cnt)
		tres = slurm_get_tres_weight_array(
			slurm_conf.priority_weight_tres, tres_cnt, false);

	slurm_mutex_lock(&plugin_lock);
	tres_changed = !_same_tres_weights(tres, (uint32_t) tres_cnt);
	if (!tres_changed) {
		xfree(tres);
		tres = weight_tres;
	} else {
		_keep_ranked_tres_weights(weight_tres, weight_tres_cnt);
		xfree(weight_tres);
	}
	weight_age = slurm_conf.priority_weight_age;
	weight_assoc = slurm_conf.priority_weight_assoc;
	weight_fs = slurm_conf.priority_weight_fs;
	weight_js = slurm_conf.priority_weight_js;
	weight_part = slurm_conf.priority_weight_part;
	weight_qos = slurm_conf.priority_weight_qos;
	prio_flags = slurm_conf.priority_flags;
	calc_period = slurm_conf.priority_calc_period ?
		slurm_conf.priority_calc_period : 300;
	weight_tres = tres;
	weight_tres_cnt = tres ? (uint32_t) tres_cnt : 0;

	weights = (budget_weights) {
		.age = weight_age,
		.assoc = weight_assoc,
		.fairshare = weight_fs,
		.jobsize = weight_js,
		.partition = weight_part,
		.qos = weight_qos,
		.max_age_seconds = slurm_conf.priority_max_age,
		.favor_small = slurm_conf.priority_favor_small,
		.small_relative_to_time =
			(prio_flags & PRIORITY_FLAGS_SIZE_RELATIVE) ? 1 : 0,
		.tres_count = weight_tres_cnt,
		.tres = weight_tres,
	};
	if (tres_changed || !priority_weights ||
	    !_same_factor_weights(&weights, &weights_copied))
		_copy_priority_weights(&weights);
	if (engine) {
		if (budget_engine_set_weights(engine, &weights, &err))
			error("%s: weights: %s", plugin_type, err.text);
		budget_engine_set_half_life(engine,
					    slurm_conf.priority_decay_hl);
	}
	slurm_mutex_unlock(&plugin_lock);
	/* Slurm's default: a cluster switched from priority/basic keeps it. */
	if (!slurm_conf.priority_weight_fs)
		error("%s: PriorityWeightFairshare is 0: the budget factor "
		      "adds nothing to a job's priority", plugin_type);
}

static time_t _get_last_ran(void)
{
	time_t t;

	slurm_mutex_lock(&plugin_lock);
	t = last_ran;
	slurm_mutex_unlock(&plugin_lock);
	return t;
}

static void _set_last_ran(time_t t)
{
	slurm_mutex_lock(&plugin_lock);
	last_ran = t;
	slurm_mutex_unlock(&plugin_lock);
}

/*
 * Charges a running (or ending) job from max(from, start) to `to`: to the
 * budget ledger, and to Slurm's own usage (slurm_usage.h). Caller holds job
 * write + assoc{W assoc, W qos, R tres}. `decay_per_sec` is Slurm's
 * per-second decay.
 */
static void _charge_job(job_record_t *job_ptr, time_t from, time_t to,
			bool at_end, double decay_per_sec)
{
	time_t start = from, end = to;
	budget_error err;

	if (job_ptr->end_time_exp == (time_t) NO_VAL)
		return;	/* already charged to its end */
	if (job_ptr->start_time > start)
		start = job_ptr->start_time;
	if (at_end && job_ptr->end_time && (end > job_ptr->end_time))
		end = job_ptr->end_time;

	if ((end > start) && job_ptr->assoc_ptr && job_ptr->part_ptr &&
	    (IS_JOB_RUNNING(job_ptr) || at_end)) {
		budget_usage_sample sample = {
			.account = job_ptr->assoc_ptr->acct,
			.user = job_ptr->assoc_ptr->user,
			.partition = job_ptr->part_ptr->name,
			.nodes = job_ptr->total_nodes,
			.from = start,
			.to = end,
		};
		if (budget_engine_accrue(engine, &sample, &err))
			error("%s: %pJ usage not recorded: %s", plugin_type,
			      job_ptr, err.text);
	}
	slurm_usage_charge(job_ptr, start, end, at_end, decay_per_sec);

	if (at_end)
		job_ptr->end_time_exp = (time_t) NO_VAL;
}

/* multifactor's TRES share of the partition (or raw with NO_NORMAL_TRES), for
 * the TRES that carry a weight: the core reads no other (a site weighs one
 * or two of its ten or so TRES), so the rest are left 0. Caller holds job
 * read, and weight_tres has cnt entries. */
BUDGET_HOT
static void _tres_fractions(job_record_t *job_ptr, part_record_t *part_ptr,
			    double *out, uint32_t cnt)
{
	uint32_t i;

	for (i = 0; i < cnt; i++) {
		uint64_t value = 0;

		out[i] = 0.0;
		if (!(weight_tres[i] > 0.0))	/* the core's own test */
			continue;
		if (job_ptr->tres_alloc_cnt &&
		    (job_ptr->tres_alloc_cnt[i] != NO_CONSUME_VAL64))
			value = job_ptr->tres_alloc_cnt[i];
		else if (job_ptr->tres_req_cnt)
			value = job_ptr->tres_req_cnt[i];
		if (prio_flags & PRIORITY_FLAGS_NO_NORMAL_TRES)
			out[i] = (double) value;
		else if (value && part_ptr && part_ptr->tres_cnt &&
			 part_ptr->tres_cnt[i])
			out[i] = (double) value / (double) part_ptr->tres_cnt[i];
	}
}

/* Copies what the core needs about a job in one partition. Caller holds at
 * least job read + assoc{R assoc, R qos}. */
BUDGET_HOT
static void _job_inputs(job_record_t *job_ptr, part_record_t *part_ptr,
			time_t now, double *tres_fraction, budget_job *in)
{
	struct job_details *details = job_ptr->details;
	uint32_t cpus = 0;

	memset(in, 0, sizeof(*in));
	in->now = now;
	in->accrue_time = details->accrue_time;
	in->account = job_ptr->assoc_ptr ? job_ptr->assoc_ptr->acct : NULL;
	in->partition = part_ptr ? part_ptr->name : NULL;
	/* A factor with weight 0 adds 0: as multifactor, its records are not
	 * read (in a pass over every job, each is a cache miss). */
	if (job_ptr->assoc_ptr && weight_assoc)
		in->assoc_norm = (prio_flags & PRIORITY_FLAGS_NO_NORMAL_ASSOC) ?
			job_ptr->assoc_ptr->priority :
			job_ptr->assoc_ptr->usage->priority_norm;
	if (job_ptr->qos_ptr && job_ptr->qos_ptr->priority && weight_qos)
		in->qos_norm = (prio_flags & PRIORITY_FLAGS_NO_NORMAL_QOS) ?
			job_ptr->qos_ptr->priority :
			job_ptr->qos_ptr->usage->norm_priority;
	if (part_ptr && part_ptr->priority_job_factor && weight_part)
		in->partition_norm =
			(prio_flags & PRIORITY_FLAGS_NO_NORMAL_PART) ?
			part_ptr->priority_job_factor :
			part_ptr->norm_priority;

	if (job_ptr->total_cpus)
		cpus = job_ptr->total_cpus;
	else if (details->max_cpus != NO_VAL)
		cpus = details->max_cpus;
	else
		cpus = details->min_cpus;
	in->cpus = cpus;
	in->min_nodes = details->min_nodes;
	in->cluster_nodes = (uint32_t) node_record_count;
	in->cluster_cpus = cluster_cpus;
	if (job_ptr->time_limit != NO_VAL)
		in->time_limit_minutes = job_ptr->time_limit;
	else if (part_ptr)
		in->time_limit_minutes = part_ptr->max_time;
	in->tres_count = weight_tres_cnt;
	if (weight_tres_cnt) {
		_tres_fractions(job_ptr, part_ptr, tres_fraction,
				weight_tres_cnt);
		in->tres_fraction = tres_fraction;
	}
	in->site = (int64_t) job_ptr->site_factor - NICE_OFFSET;
	in->nice = (int64_t) details->nice - NICE_OFFSET;
}

/* More partitions than a site has; beyond them a role is asked by name. */
#define ROLE_MEMO_CNT 16
/* A longer partition name is asked by name each time. */
#define ROLE_MEMO_NAME 64

/*
 * The partitions' roles in budget.conf found so far, by record and name: a
 * record freed by `scontrol delete partition` may come back at the same
 * address under another name. The ranking walk keeps its own for one walk;
 * the submissions between passes share one for as long as the engine's
 * generation lasts (a new budget.conf starts a new one). Caller holds job
 * write, or owns the memo.
 */
typedef struct {
	uint64_t generation;
	uint32_t cnt;
	part_record_t *parts[ROLE_MEMO_CNT];
	char names[ROLE_MEMO_CNT][ROLE_MEMO_NAME];
	budget_partition_role roles[ROLE_MEMO_CNT];
} role_memo_t;

/* Forgets the roles of another generation than `generation`. */
static void _role_memo_at(role_memo_t *memo, uint64_t generation)
{
	if (memo->generation != generation) {
		memo->generation = generation;
		memo->cnt = 0;
	}
}

/* part_ptr's role in budget.conf, asked of the engine once per memo.
 * Caller holds part read. */
static budget_partition_role _partition_role(role_memo_t *memo,
					     part_record_t *part_ptr)
{
	const char *name = (part_ptr && part_ptr->name) ? part_ptr->name : "";
	budget_partition_role role;
	uint32_t i;

	for (i = 0; i < memo->cnt; i++)
		if ((memo->parts[i] == part_ptr) &&
		    !strcmp(memo->names[i], name))
			return memo->roles[i];
	role = budget_engine_partition_role(engine, part_ptr ? name : NULL);
	if ((memo->cnt < ROLE_MEMO_CNT) && (strlen(name) < ROLE_MEMO_NAME)) {
		memo->parts[memo->cnt] = part_ptr;
		strcpy(memo->names[memo->cnt], name);
		memo->roles[memo->cnt] = role;
		memo->cnt++;
	}
	return role;
}

/* The roles the submissions between passes found (see role_memo_t). */
static role_memo_t submission_roles;

/* How the jobs submitted since the last pass were ranked: on its factors or
 * by name (for the pass's DebugFlags=Priority line). Under the job write
 * lock. */
static uint32_t submitted_on_pass = 0;
static uint32_t submitted_by_name = 0;

/*
 * A ranking: its instant, how many jobs it ranked and how many of them by
 * name (for the pass's log), the current job's project as the publish step
 * resolved it (NULL: ask the engine by name), and the roles of the
 * partitions seen so far. With them a job is ranked without a lookup by
 * name, as multifactor ranks it from its association's fs_factor. The pass
 * ranks every pending job in one; a submission between passes is ranked in
 * its own, when the engine's generation is still its project's.
 */
typedef struct {
	time_t now;
	uint32_t ranked;
	uint32_t ranked_by_name;
	const budget_project_ranking *project;
	role_memo_t *roles;
} pass_ranking_t;

/* The FAIRSHARE factor of the walk's current job in part_ptr: what
 * budget_engine_job_priority would find by name. */
static double _known_fair_share(pass_ranking_t *pass, part_record_t *part_ptr)
{
	switch (_partition_role(pass->roles, part_ptr)) {
	case BUDGET_PARTITION_BUDGETED:
		return pass->project->fair_share_budgeted;
	case BUDGET_PARTITION_LOW:
		return pass->project->fair_share_low;
	default:
		return 0.0;
	}
}

/* The job's priority in one partition; fills `factors` when not NULL: its
 * weighted TRES values xcalloc'ed, since Slurm frees them, and no TRES
 * weights, which are weight_tres for every job ranked since they were read
 * (an answer to sprio adds them). `pass`: the ranking walk, or NULL outside
 * it. Caller holds job read (write when factors is the job's
 * own) + assoc{R assoc, R qos}. */
BUDGET_HOT
static uint32_t _priority_in(job_record_t *job_ptr, part_record_t *part_ptr,
			     time_t now, priority_factors_object_t *factors,
			     pass_ranking_t *pass)
{
	double tres_fraction[weight_tres_cnt ? weight_tres_cnt : 1];
	double tres_weighted[weight_tres_cnt ? weight_tres_cnt : 1];
	budget_job in;
	budget_job_priority out = { .tres = tres_weighted };
	budget_error err;
	budget_status status;

	_job_inputs(job_ptr, part_ptr, now, tres_fraction, &in);
	if (pass && pass->project && priority_weights)
		status = budget_job_priority_weighted(
			priority_weights, &in, _known_fair_share(pass, part_ptr),
			&out, &err);
	else
		status = budget_engine_job_priority(engine, &in, &out, &err);
	if (status) {
		error("%s: %pJ: %s; keeping priority %u", plugin_type, job_ptr,
		      err.text, job_ptr->priority);
		return job_ptr->priority ? job_ptr->priority : 1;
	}
	if (!factors)
		return out.priority;

	/* Weights kept from before a reconfigure (_keep_ranked_tres_weights)
	 * go: the job is ranked under the weights in force now. */
	if (factors->tres_weights)
		xfree(factors->tres_weights);
	/* The TRES values of the last pass are reused when the TRES count has
	 * not changed: a pass then allocates nothing per job. */
	if (weight_tres_cnt && (factors->tres_cnt == weight_tres_cnt) &&
	    factors->priority_tres) {
		double *priority_tres = factors->priority_tres;

		memset(factors, 0, sizeof(*factors));
		factors->priority_tres = priority_tres;
	} else {
		/* A new job has no array: no call to free nothing. */
		if (factors->priority_tres)
			xfree(factors->priority_tres);
		memset(factors, 0, sizeof(*factors));
		/* Not cleared, as it is copied whole just below: glibc's
		 * calloc passes by the thread cache malloc takes from (some
		 * 200 instructions a call). */
		if (weight_tres_cnt)
			factors->priority_tres = xcalloc_nz(weight_tres_cnt,
							    sizeof(double));
	}
	factors->priority_age = out.age;
	factors->priority_assoc = out.assoc;
	factors->priority_fs = out.fairshare;
	factors->priority_js = out.jobsize;
	factors->priority_part = out.partition;
	factors->priority_qos = out.qos;
	factors->priority_site = job_ptr->site_factor;
	factors->nice = job_ptr->details->nice;
	if (weight_tres_cnt) {
		factors->tres_cnt = weight_tres_cnt;
		memcpy(factors->priority_tres, tres_weighted,
		       sizeof(double) * weight_tres_cnt);
	}
	return out.priority;
}

/* Sets job_ptr->priority's factors and, for a multi-partition job, its
 * priority_array. `pass`: the ranking walk, or NULL outside it. Caller holds
 * job write + assoc{R assoc, R qos}. */
BUDGET_HOT
static uint32_t _job_priority(job_record_t *job_ptr, time_t now,
			      pass_ranking_t *pass)
{
	uint32_t priority;

	if (job_ptr->direct_set_prio && (job_ptr->priority > 0)) {
		xfree(job_ptr->prio_factors->tres_weights);
		xfree(job_ptr->prio_factors->priority_tres);
		memset(job_ptr->prio_factors, 0,
		       sizeof(priority_factors_object_t));
		return job_ptr->priority;
	}
	if (!job_ptr->details)
		return 0;	/* as multifactor: nothing to rank it by */

	priority = _priority_in(job_ptr, job_ptr->part_ptr, now,
				job_ptr->prio_factors, pass);

	if (job_ptr->part_ptr_list) {
		part_record_t *part_ptr;
		ListIterator itr;
		int i = 0;

		if (!job_ptr->priority_array)
			job_ptr->priority_array = xcalloc(
				(size_t) list_count(job_ptr->part_ptr_list) + 1,
				sizeof(uint32_t));
		list_sort(job_ptr->part_ptr_list, priority_sort_part_tier);
		itr = list_iterator_create(job_ptr->part_ptr_list);
		while ((part_ptr = list_next(itr))) {
			uint32_t p = _priority_in(job_ptr, part_ptr, now, NULL,
						  pass);

			if (!(prio_flags & PRIORITY_FLAGS_INCR_ONLY) ||
			    (job_ptr->priority_array[i] < p))
				job_ptr->priority_array[i] = p;
			i++;
		}
		list_iterator_destroy(itr);
	}
	return priority;
}

/* A hold of ours: priority 0, JobHeldAdmin, and our reason (squeue %R). */
static bool _budget_held(job_record_t *job_ptr)
{
	return (job_ptr->priority == 0) &&
		(job_ptr->state_reason == WAIT_HELD) && job_ptr->state_desc &&
		!strncmp(job_ptr->state_desc, BUDGET_HOLD_PREFIX,
			 strlen(BUDGET_HOLD_PREFIX));
}

/*
 * The lifecycle rule for pending jobs (docs/lifecycle.md): a pending job that
 * its project's state no longer lets start (ended, blocked, credit used up
 * while it asks for a budgeted partition, or an account without a budget
 * under UnbudgetedAccounts=reject) is held like an administrator's hold
 * (priority 0, Reason=JobHeldAdmin) with the reason in state_desc, which
 * squeue and scontrol show; it is released here as soon as the verdict
 * allows it again (more credit, a later end, the job moved to low). Holds
 * that are not ours and priorities set by an operator are left alone.
 * Running jobs are never touched. The walk's `pass` says whether the job's
 * project was resolved already. Caller holds job write + assoc{R assoc}.
 */
static void _apply_lifecycle(job_record_t *job_ptr, pass_ranking_t *pass)
{
	bool ours = _budget_held(job_ptr);
	time_t now = pass->now;
	const char *account;
	budget_project_lifecycle lifecycle;
	budget_admission_request request;
	budget_admission verdict;
	budget_error err;

	if (!IS_JOB_PENDING(job_ptr) || IS_JOB_REVOKED(job_ptr) ||
	    !job_ptr->details)
		return;
	if ((job_ptr->priority == 0) && !ours)
		return;		/* someone else's hold */
	if (job_ptr->direct_set_prio && (job_ptr->priority > 0))
		return;		/* an operator's priority: the override */

	account = job_ptr->account ? job_ptr->account :
		(job_ptr->assoc_ptr ? job_ptr->assoc_ptr->acct : NULL);
	/* Most jobs' projects let them start wherever they ask: the full
	 * verdict (and its strings) only for the others and for our holds. */
	if (!ours) {
		if (pass->project)
			lifecycle = pass->project->lifecycle;
		else if (budget_engine_project_state(engine, account, now,
						     &lifecycle, NULL))
			lifecycle.allows_all = 0;
		if (lifecycle.allows_all)
			return;
	}

	request = (budget_admission_request) {
		.now = now,
		.account = account,
		.partitions = job_ptr->partition ? job_ptr->partition :
			(job_ptr->part_ptr ? job_ptr->part_ptr->name : NULL),
		.job_id = job_ptr->job_id,
	};
	if (budget_engine_admit(engine, &request, &verdict, &err)) {
		error("%s: %pJ: no lifecycle verdict: %s", plugin_type, job_ptr,
		      err.text);
		return;
	}

	if (verdict.action == BUDGET_ADMIT_ALLOW) {
		if (!ours)
			return;
		job_ptr->state_reason = WAIT_NO_REASON;
		xfree(job_ptr->state_desc);
		job_ptr->direct_set_prio = 0;
		job_ptr->priority = _job_priority(job_ptr, now, pass);
		if (!job_ptr->priority)
			job_ptr->priority = 1;	/* never a silent hold */
		info("%s: %pJ released: its project may start it again",
		     plugin_type, job_ptr);
		return;
	}

	if (ours && !xstrcmp(job_ptr->state_desc, verdict.hold_reason))
		return;
	if (!ours)
		info("%s: %pJ held: %s", plugin_type, job_ptr,
		     verdict.hold_reason);
	job_ptr->priority = 0;
	if (job_ptr->part_ptr_list && job_ptr->priority_array) {
		int i, count = list_count(job_ptr->part_ptr_list);

		for (i = 0; i < count; i++)
			job_ptr->priority_array[i] = 0;
	}
	job_ptr->state_reason = WAIT_HELD;
	xfree(job_ptr->state_desc);
	job_ptr->state_desc = xstrdup(verdict.hold_reason);
}

/* Microseconds on the monotonic clock since `start`. */
static int64_t _usec_since(const struct timespec *start)
{
	struct timespec end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	return (int64_t) (end.tv_sec - start->tv_sec) * 1000000 +
		(end.tv_nsec - start->tv_nsec) / 1000;
}

/* What the accrual walk charges: [from, now) at Slurm's per-second decay. */
typedef struct {
	time_t from;
	time_t now;
	double decay;
} pass_accrual_t;

/* Charges one running job up to the pass's instant. Caller holds job write +
 * assoc{W assoc, W qos, R tres}. */
static int _accrue_job(void *object, void *arg)
{
	job_record_t *job_ptr = object;
	pass_accrual_t *accrual = arg;

	if (IS_JOB_RUNNING(job_ptr) && !IS_JOB_COMPLETING(job_ptr) &&
	    !IS_JOB_POWER_UP_NODE(job_ptr) && job_ptr->start_time &&
	    job_ptr->assoc_ptr)
		_charge_job(job_ptr, accrual->from, accrual->now, false,
			    accrual->decay);
	return 0;
}

/* The job's project as this pass's publish step resolved it from the job's
 * association, or NULL. The association's account is the one the job is
 * charged to and ranked by; slurmctld keeps job_ptr->account equal to it,
 * and comparing the two strings would cost two cache misses a job. */
static const budget_project_ranking *_known_project(job_record_t *job_ptr)
{
	return assoc_rankings_of(job_ptr->assoc_ptr);
}

/* Applies the lifecycle to one job and re-ranks it, as multifactor's
 * decay_apply_weighted_factors does. Caller holds job write +
 * assoc{R assoc, R qos, R tres}. */
static int _rank_job(void *object, void *arg)
{
	job_record_t *job_ptr = object;
	pass_ranking_t *ranking = arg;
	uint32_t prio;

	ranking->project = _known_project(job_ptr);
	_apply_lifecycle(job_ptr, ranking);
	if ((job_ptr->priority == 0) || IS_JOB_POWER_UP_NODE(job_ptr) ||
	    (!IS_JOB_PENDING(job_ptr) &&
	     !(prio_flags & PRIORITY_FLAGS_CALCULATE_RUNNING)))
		return 0;
	prio = _job_priority(job_ptr, ranking->now, ranking);
	ranking->ranked++;
	if (!ranking->project)
		ranking->ranked_by_name++;
	if (prio && (!(prio_flags & PRIORITY_FLAGS_INCR_ONLY) ||
		     (job_ptr->priority < prio)))
		job_ptr->priority = prio;
	return 0;
}

/* How long a pass held the job write lock: all its holds, and the longest. */
typedef struct {
	int64_t total_usec;
	int64_t longest_usec;
} pass_holds_t;

static void _count_hold(pass_holds_t *holds, const struct timespec *locked_at)
{
	int64_t usec = _usec_since(locked_at);

	holds->total_usec += usec;
	if (usec > holds->longest_usec)
		holds->longest_usec = usec;
}

/* Where a pass spends the time it does not hold the job write lock, for
 * DebugFlags=Priority (docs/performance.md). */
typedef struct {
	int64_t decay_usec;	/* Slurm's own usage decay */
	int64_t lock_wait_usec;	/* waiting for the job write lock, both times */
	int64_t advance_usec;	/* the engine: decay, month close, states */
	int64_t publish_usec;	/* into assoc_mgr, its lock wait included */
} pass_phases_t;

/* Asks the next pass to compare budget.conf's projects with Slurm's
 * accounts. */
static void _ask_accounts_check(void)
{
	slurm_mutex_lock(&plugin_lock);
	accounts_unchecked = true;
	slurm_mutex_unlock(&plugin_lock);
}

/* Wakes the calc thread for a pass now rather than at the next period, so
 * that a reload's budgets hold, release and rank the pending jobs within
 * seconds of `scontrol reconfigure`, not up to PriorityCalcPeriod later. The
 * caller may hold slurmctld's locks (reconfig(false)): the calc thread never
 * waits for them while it holds plugin_lock. */
static void _ask_pass(void)
{
	slurm_mutex_lock(&plugin_lock);
	pass_asked = true;
	slurm_cond_signal(&calc_cond);
	slurm_mutex_unlock(&plugin_lock);
}

/* Whether this pass compares them: true once after each ask. */
static bool _take_accounts_check(void)
{
	bool take;

	slurm_mutex_lock(&plugin_lock);
	take = accounts_unchecked;
	accounts_unchecked = false;
	slurm_mutex_unlock(&plugin_lock);
	return take;
}

/* Adds the time since *mark to *usec and moves the mark to now. */
static void _lap(int64_t *usec, struct timespec *mark)
{
	*usec += _usec_since(mark);
	clock_gettime(CLOCK_MONOTONIC, mark);
}

/*
 * The periodic pass, in the phases of multifactor's fair_tree_decay() so
 * that the job write lock is held only for the two walks of the jobs:
 *   1. assoc lock only: decay Slurm's own usage;
 *   2. job write lock: charge the running jobs up to now (last_ran moves
 *      under the same lock, so priority_p_job_end charges from there);
 *   3. no Slurm lock, then assoc lock only: close months (the engine's own
 *      mutex) and publish the projects into assoc_mgr;
 *   4. job write lock again: the lifecycle and ranking of pending jobs, on a
 *      fresh walk (no job pointer is kept across a lock release).
 * DebugFlags=Priority logs the pass's duration, its job write lock holds,
 * and where the time outside them went (docs/performance.md).
 */
static void _calc_pass(time_t now)
{
	slurmctld_lock_t job_write_lock =
		{ NO_LOCK, WRITE_LOCK, READ_LOCK, READ_LOCK, NO_LOCK };
	assoc_mgr_lock_t usage_locks = { .assoc = WRITE_LOCK,
					 .qos = WRITE_LOCK, .tres = READ_LOCK };
	assoc_mgr_lock_t publish_locks = { .assoc = WRITE_LOCK };
	assoc_mgr_lock_t rank_locks = { .assoc = READ_LOCK, .qos = READ_LOCK,
					.tres = READ_LOCK };
	pass_accrual_t accrual = { .now = now,
				   .decay = slurm_usage_decay_per_sec() };
	role_memo_t roles = { .generation = 0, .cnt = 0 };
	pass_ranking_t ranking = { .now = now, .roles = &roles };
	pass_holds_t holds = { 0, 0 };
	pass_phases_t phases = { 0, 0, 0, 0 };
	struct {
		uint32_t on_pass, by_name;
	} submitted;
	budget_error err;
	struct timespec pass_start, mark, saving_at;
	bool check_accounts;

	clock_gettime(CLOCK_MONOTONIC, &pass_start);
	mark = pass_start;
	accrual.from = _get_last_ran();
	if (now > accrual.from) {
		assoc_mgr_lock(&usage_locks);
		slurm_usage_decay(pow(accrual.decay,
				      difftime(now, accrual.from)));
		assoc_mgr_unlock(&usage_locks);
	}
	_lap(&phases.decay_usec, &mark);

	lock_slurmctld(job_write_lock);
	_lap(&phases.lock_wait_usec, &mark);
	assoc_mgr_lock(&usage_locks);
	(void) list_for_each_ro(job_list, _accrue_job, &accrual);
	_set_last_ran(now);
	assoc_mgr_unlock(&usage_locks);
	unlock_slurmctld(job_write_lock);
	_count_hold(&holds, &mark);
	clock_gettime(CLOCK_MONOTONIC, &mark);

	if (budget_engine_advance(engine, now, &err))
		error("%s: %s", plugin_type, err.text);
	_lap(&phases.advance_usec, &mark);
	check_accounts = _take_accounts_check();
	assoc_mgr_lock(&publish_locks);
	publish_usage(engine, now);
	if (check_accounts && !report_projects_without_account(engine, now))
		_ask_accounts_check();	/* no accounts yet */
	assoc_mgr_unlock(&publish_locks);
	_lap(&phases.publish_usec, &mark);

	lock_slurmctld(job_write_lock);
	_lap(&phases.lock_wait_usec, &mark);
	assoc_mgr_lock(&rank_locks);
	(void) list_for_each_ro(job_list, _rank_job, &ranking);
	last_job_update = now;
	submitted.on_pass = submitted_on_pass;
	submitted.by_name = submitted_by_name;
	submitted_on_pass = submitted_by_name = 0;
	assoc_mgr_unlock(&rank_locks);
	unlock_slurmctld(job_write_lock);
	_count_hold(&holds, &mark);

	clock_gettime(CLOCK_MONOTONIC, &saving_at);
	if (budget_engine_save(engine, now, &err))
		error("%s: ledger not saved: %s", plugin_type, err.text);
	log_flag(PRIO, "%s: pass ranked %u jobs in %"PRId64
		 " usec, job write lock held %"PRId64
		 " usec (longest hold %"PRId64
		 " usec), ledger saved in %"PRId64" usec, %u ranked by name",
		 plugin_type, ranking.ranked, _usec_since(&pass_start),
		 holds.total_usec, holds.longest_usec, _usec_since(&saving_at),
		 ranking.ranked_by_name);
	log_flag(PRIO, "%s: pass outside the job write lock: usage decay %"PRId64
		 " usec, waiting for the lock %"PRId64" usec, advance %"PRId64
		 " usec, publish %"PRId64" usec",
		 plugin_type, phases.decay_usec, phases.lock_wait_usec,
		 phases.advance_usec, phases.publish_usec);
	log_flag(PRIO, "%s: since the pass before, %u new jobs ranked on its "
		 "factors, %u by name",
		 plugin_type, submitted.on_pass, submitted.by_name);
}

static void *_calc_thread(void *arg)
{
	struct timespec deadline = { 0, 0 };

	(void) arg;
	(void) prctl(PR_SET_NAME, "budget", NULL, NULL, NULL);
	slurm_usage_restore_run_secs(job_list, _get_last_ran());

	deadline.tv_sec = time(NULL);
	slurm_mutex_lock(&plugin_lock);
	while (!plugin_shutdown) {
		/* Cleared before the pass: a reload during it asks for one
		 * more, which reads the new budgets. */
		pass_asked = false;
		slurm_mutex_unlock(&plugin_lock);
		_calc_pass(time(NULL));
		slurm_mutex_lock(&plugin_lock);

		/* Absolute deadlines: the schedule does not drift, and a pass
		 * a reload asked for in between does not move it. */
		if (deadline.tv_sec <= time(NULL))
			deadline.tv_sec += calc_period;
		while (!plugin_shutdown && !pass_asked &&
		       (pthread_cond_timedwait(&calc_cond, &plugin_lock,
					       &deadline) != ETIMEDOUT))
			;
	}
	slurm_mutex_unlock(&plugin_lock);
	return NULL;
}

extern int init(void)
{
	budget_engine_options options;
	budget_error err;
	char *conf_path, *state_path = NULL;
	time_t now = time(NULL);
	budget_engine *opened = NULL;

	if (!_in_controller()) {
		/* sshare and other clients: only calc_fs_factor is used. */
		debug("%s: loaded outside slurmctld", plugin_type);
		return SLURM_SUCCESS;
	}

	/* Statics may survive a fini()/dlclose() cycle: reset them. */
	slurm_mutex_lock(&plugin_lock);
	plugin_shutdown = false;
	/* Roles of another engine's generations (no job lock is needed: no
	 * submission is ranked before init returns). */
	memset(&submission_roles, 0, sizeof(submission_roles));
	slurm_mutex_unlock(&plugin_lock);

	conf_path = budget_conf_path();
	state_path = budget_ledger_path();
	options = (budget_engine_options) {
		.config_path = conf_path,
		.state_path = state_path,
		.half_life_seconds = slurm_conf.priority_decay_hl,
		.use_utc = 0,
		.log = _log_from_core,
	};
	if (budget_engine_open(&options, now, &opened, &err)) {
		error("%s: cannot start: %s", plugin_type, err.text);
		xfree(conf_path);
		xfree(state_path);
		return SLURM_ERROR;
	}
	info("%s: budgets from %s, ledger in %s", plugin_type, conf_path,
	     state_path ? state_path : "(not kept)");
	xfree(conf_path);
	xfree(state_path);

	slurm_mutex_lock(&plugin_lock);
	engine = opened;
	accounts_unchecked = true;
	last_ran = budget_engine_accounted_until(engine);
	if (!last_ran)
		last_ran = now;	/* a fresh ledger starts accounting now */
	slurm_mutex_unlock(&plugin_lock);
	_read_weights();

	if (assoc_mgr_root_assoc)
		assoc_mgr_root_assoc->usage->usage_efctv = 1.0;

	slurm_mutex_lock(&plugin_lock);
	slurm_thread_create(&calc_thread, _calc_thread, NULL);
	calc_thread_running = true;
	slurm_mutex_unlock(&plugin_lock);

	return site_factor_plugin_init();
}

extern int fini(void)
{
	bool join;

	slurm_mutex_lock(&plugin_lock);
	plugin_shutdown = true;
	slurm_cond_signal(&calc_cond);
	join = calc_thread_running;
	calc_thread_running = false;
	slurm_mutex_unlock(&plugin_lock);

	if (join)
		pthread_join(calc_thread, NULL);	/* outside the mutex */

	slurm_mutex_lock(&plugin_lock);
	if (engine) {
		budget_error err;

		if (budget_engine_save(engine, last_ran, &err))
			error("%s: ledger not saved: %s", plugin_type,
			      err.text);
		budget_engine_close(engine);
		engine = NULL;
	}
	xfree(weight_tres);
	weight_tres_cnt = 0;
	budget_priority_weights_free(priority_weights);
	priority_weights = NULL;
	assoc_rankings_free();	/* the pass thread has stopped */
	slurm_mutex_unlock(&plugin_lock);

	if (_in_controller())
		site_factor_plugin_fini();
	return SLURM_SUCCESS;
}

/* Caller holds at least the job write lock (facts §2 row 1). */
BUDGET_HOT
extern uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .qos = READ_LOCK };
	pass_ranking_t submission = { .now = time(NULL),
				      .roles = &submission_roles };
	uint64_t generation;
	uint32_t priority;

	(void) last_prio;
	if (!engine)
		return 1;	/* never 0: 0 means held (facts §2.1) */
	site_factor_g_set(job_ptr);
	assoc_mgr_lock(&locks);
	/* The last pass's factors for the job's project, when nothing they
	 * read has changed since (the engine's generation): exactly what the
	 * engine would answer by name. */
	generation = budget_engine_steady_generation(engine, submission.now);
	if (generation) {
		submission.project = assoc_rankings_at(job_ptr->assoc_ptr,
						       generation);
		_role_memo_at(&submission_roles, generation);
	}
	priority = _job_priority(job_ptr, submission.now,
				 submission.project ? &submission : NULL);
	assoc_mgr_unlock(&locks);
	if (submission.project)
		submitted_on_pass++;
	else
		submitted_by_name++;
	debug2("%s: initial priority for %pJ is %u", plugin_type, job_ptr,
	       priority);
	return priority;
}

/* assoc_clear: no lock held (facts §2 row 2); otherwise the caller holds
 * slurmctld locks, the job lock among them (row 2'). */
extern void priority_p_reconfig(bool assoc_clear)
{
	slurmctld_lock_t job_write_lock = { .job = WRITE_LOCK };
	budget_error err;
	char *conf_path;

	if (!engine)
		return;
	if (assoc_clear)
		lock_slurmctld(job_write_lock);	/* _read_weights' readers */
	_read_weights();
	if (assoc_clear)
		unlock_slurmctld(job_write_lock);
	conf_path = budget_conf_path();
	if (budget_engine_reload(engine, conf_path, &err))
		error("%s: %s rejected, keeping the last good budgets: %s",
		      plugin_type, conf_path, err.text);
	else {
		info("%s: budgets reloaded from %s", plugin_type, conf_path);
		_ask_accounts_check();
		_ask_pass();
	}
	xfree(conf_path);

	if (assoc_clear)
		slurm_usage_restore_run_secs(job_list, _get_last_ran());
	site_factor_g_reconfig();
}

/* May run under the assoc READ lock (sshare): takes no lock. */
extern void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc)
{
	if (!engine || !assoc || !assoc->usage)
		return;
	publish_assoc_usage(engine, assoc, time(NULL));
	if (assoc_mgr_root_assoc && assoc_mgr_root_assoc->usage->usage_raw > 0)
		assoc->usage->usage_norm = assoc->usage->usage_raw /
			assoc_mgr_root_assoc->usage->usage_raw;
	else
		assoc->usage->usage_norm = 0;
}

extern double priority_p_calc_fs_factor(long double usage_efctv,
					long double shares_norm)
{
	if (fuzzy_equal(usage_efctv, NO_VAL))
		return 0.0;
	return budget_classic_fs_factor((double) usage_efctv,
					(double) shares_norm);
}

static bool _in_filter(List ids, uint32_t id)
{
	ListIterator itr;
	uint32_t *want;
	bool found = false;

	if (!ids)
		return true;
	itr = list_iterator_create(ids);
	while ((want = list_next(itr)))
		if (*want == id) {
			found = true;
			break;
		}
	list_iterator_destroy(itr);
	return found;
}

static int _same_ptr(void *x, void *key)
{
	return x == key;
}

static bool _part_in_filter(List parts, part_record_t *part_ptr)
{
	return !parts || list_find_first(parts, _same_ptr, part_ptr);
}

/* multifactor's PrivateData=jobs rule. Takes assoc_mgr locks internally, so
 * the caller must not hold any. */
static bool _may_see(job_record_t *job_ptr, uid_t uid)
{
	if (!(slurm_conf.private_data & PRIVATE_DATA_JOBS) ||
	    (job_ptr->user_id == uid) || validate_operator(uid))
		return true;
	if (slurm_mcs_get_privatedata() == 1)
		return mcs_g_check_mcs_label(uid, job_ptr->mcs_label, false)
			== 0;
	return assoc_mgr_is_user_acct_coord(acct_db_conn, uid,
					    job_ptr->account);
}

static void _append_factors(List ret, factors_answer_t *answer,
			    job_record_t *job_ptr, part_record_t *part_ptr,
			    bool recompute, time_t now)
{
	priority_factors_object_t *obj = factors_answer_row(answer);

	if (job_ptr->direct_set_prio) {
		obj->direct_prio = job_ptr->priority;
	} else if (recompute) {
		assoc_mgr_lock_t locks = { .assoc = READ_LOCK,
					   .qos = READ_LOCK };

		assoc_mgr_lock(&locks);
		(void) _priority_in(job_ptr, part_ptr, now, obj, NULL);
		assoc_mgr_unlock(&locks);
		factors_answer_ranked(answer, obj);
	} else {
		factors_answer_copy(answer, obj, job_ptr->prio_factors);
	}
	obj->job_id = job_ptr->job_id;
	factors_answer_name_partition(answer, obj, part_ptr);
	obj->user_id = job_ptr->user_id;
	list_append(ret, obj);
}

/* What sprio's answer is built from, for each job it walks. */
typedef struct {
	List ret;
	factors_answer_t *answer;
	priority_factors_request_msg_t *req_msg;
	List parts;
	uid_t uid;
	time_t now;
} answer_walk_t;

/* Appends the rows of one job to sprio's answer, one a partition it asks
 * for, when the job is pending, eligible and passes the request's filters.
 * Caller holds the job read lock. */
static void _answer_job(job_record_t *job_ptr, void *arg)
{
	answer_walk_t *walk = arg;
	time_t eligible;

	if (!(prio_flags & PRIORITY_FLAGS_CALCULATE_RUNNING) &&
	    !IS_JOB_PENDING(job_ptr))
		return;
	if (IS_JOB_REVOKED(job_ptr) || !job_ptr->details ||
	    (job_ptr->priority == 0))
		return;
	eligible = (prio_flags & PRIORITY_FLAGS_ACCRUE_ALWAYS) ?
		job_ptr->details->submit_time :
		job_ptr->details->begin_time;
	if (!eligible || (eligible > walk->now))
		return;
	if (!_in_filter(walk->req_msg->job_id_list, job_ptr->job_id) ||
	    !_in_filter(walk->req_msg->uid_list, job_ptr->user_id) ||
	    !_may_see(job_ptr, walk->uid))
		return;

	if (job_ptr->part_ptr_list) {
		part_record_t *part_ptr;
		ListIterator pitr;

		pitr = list_iterator_create(job_ptr->part_ptr_list);
		while ((part_ptr = list_next(pitr)))
			if (_part_in_filter(walk->parts, part_ptr))
				_append_factors(walk->ret, walk->answer,
						job_ptr, part_ptr, true,
						walk->now);
		list_iterator_destroy(pitr);
	} else if (job_ptr->part_ptr &&
		   _part_in_filter(walk->parts, job_ptr->part_ptr)) {
		_append_factors(walk->ret, walk->answer, job_ptr,
				job_ptr->part_ptr, false, walk->now);
	}
}

/* No lock held by the caller (facts §2 row 5). */
extern List priority_p_get_priority_factors_list(
	priority_factors_request_msg_t *req_msg, uid_t uid)
{
	slurmctld_lock_t job_read_lock =
		{ NO_LOCK, READ_LOCK, READ_LOCK, READ_LOCK, NO_LOCK };
	List ret = NULL, parts = NULL;
	factors_answer_t *answer;
	answer_walk_t walk;
	time_t now = time(NULL);

	if (!engine || !req_msg)
		return NULL;

	lock_slurmctld(job_read_lock);
	answer = factors_answer_create(weight_tres, weight_tres_cnt);
	if (req_msg->partitions) {
		char *names = xstrdup(req_msg->partitions), *last = NULL;
		char *tok = strtok_r(names, ",", &last);
		part_record_t *part_ptr;

		parts = list_create(NULL);
		for (; tok; tok = strtok_r(NULL, ",", &last))
			if ((part_ptr = find_part_record(tok)))
				list_append(parts, part_ptr);
		xfree(names);
	}

	ret = list_create(factors_answer_free_row);
	/* Each record's lines are asked for PREFETCH_AHEAD jobs ahead, what
	 * it points at half as far, once they are in (job_prefetch.h). */
	walk = (answer_walk_t) { .ret = ret, .answer = answer,
				 .req_msg = req_msg, .parts = parts,
				 .uid = uid, .now = now };
	job_walk_each(job_list, _answer_job, &walk);
	factors_answer_finish(answer);
	unlock_slurmctld(job_read_lock);
	FREE_NULL_LIST(parts);

	if (!list_count(ret))
		FREE_NULL_LIST(ret);
	return ret;
}

/* Caller holds the job write lock; assoc locks are free (facts §2 row 6). */
extern void priority_p_job_end(job_record_t *job_ptr)
{
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK,
				   .tres = READ_LOCK };

	if (!engine)
		return;
	assoc_mgr_lock(&locks);
	_charge_job(job_ptr, _get_last_ran(), time(NULL), true,
		    slurm_usage_decay_per_sec());
	assoc_mgr_unlock(&locks);
}
