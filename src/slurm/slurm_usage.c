/*****************************************************************************\
 *  slurm_usage.c - Slurm's own usage bookkeeping, as priority/multifactor
 *  keeps it (see slurm_usage.h).
\*****************************************************************************/

#include "config.h"

#include <math.h>

#include "slurm/slurm.h"

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "controller_globals.h"
#include "slurm_usage.h"

/* Adds run_decay to one association's or QOS's decayed TRES usage, and takes
 * run_delta off its reserved TRES run seconds, never below 0. */
static void _charge_tres(long double *usage_tres_raw, uint64_t *run_secs,
			 const uint64_t *run_delta,
			 const long double *run_decay)
{
	int i;

	for (i = 0; i < slurmctld_tres_cnt; i++) {
		if (i == TRES_ARRAY_ENERGY)
			continue;
		usage_tres_raw[i] += run_decay[i];
		if (run_delta[i] > run_secs[i])
			run_secs[i] = 0;
		else
			run_secs[i] -= run_delta[i];
	}
}

/* Adds decayed usage to the job's QOS (and its partition's, when another)
 * and to each association up its tree, and takes run_delta off their
 * reserved TRES run seconds. Caller holds at least job read + assoc{W assoc,
 * W qos, R tres}. */
static void _apply_tres_usage(job_record_t *job_ptr, uint64_t *run_delta,
			      long double *run_decay, double wall_decay,
			      double billing_decay)
{
	slurmdb_assoc_rec_t *assoc = job_ptr->assoc_ptr;
	slurmdb_qos_rec_t *qos_list[2] = { job_ptr->qos_ptr, NULL };
	bool limits = accounting_enforce & ACCOUNTING_ENFORCE_LIMITS;
	int q;

	if (job_ptr->part_ptr && (job_ptr->part_ptr->qos_ptr != job_ptr->qos_ptr))
		qos_list[1] = job_ptr->part_ptr->qos_ptr;

	for (q = 0; q < 2; q++) {
		slurmdb_qos_rec_t *qos = qos_list[q];

		if (!qos || !qos->usage)
			continue;
		qos->usage->grp_used_wall += wall_decay;
		qos->usage->usage_raw += (long double) billing_decay;
		if (limits)
			_charge_tres(qos->usage->usage_tres_raw,
				     qos->usage->grp_used_tres_run_secs,
				     run_delta, run_decay);
	}

	for (; assoc; assoc = assoc->usage->parent_assoc_ptr) {
		assoc->usage->grp_used_wall += wall_decay;
		if (limits)
			_charge_tres(assoc->usage->usage_tres_raw,
				     assoc->usage->grp_used_tres_run_secs,
				     run_delta, run_decay);
	}
}

/* Seconds of the job's reserved TRES run time that [start, end) used up:
 * acct_policy reserved tres x time_limit at job begin (multifactor's rule). */
static uint64_t _tres_time_delta(job_record_t *job_ptr, time_t start,
				 time_t end, bool at_end)
{
	uint64_t limit_ends = (uint64_t) job_ptr->start_time +
		(uint64_t) job_ptr->time_limit * 60;

	if ((uint64_t) start >= limit_ends)
		return 0;
	if (at_end || IS_JOB_FINISHED(job_ptr) || IS_JOB_COMPLETING(job_ptr))
		return limit_ends - (uint64_t) start;
	if (end > start)
		return (uint64_t) (end - start);
	return 0;
}

extern void slurm_usage_charge(job_record_t *job_ptr, time_t start,
			       time_t end, bool at_end, double decay_per_sec)
{
	uint64_t run_delta[slurmctld_tres_cnt];
	long double run_decay[slurmctld_tres_cnt];
	double delta = (end > start) ? difftime(end, start) : 0.0;
	double wall_decay = delta * pow(decay_per_sec, delta);
	double billable = calc_job_billable_tres(job_ptr, start, true);
	uint64_t tres_delta = _tres_time_delta(job_ptr, start, end, at_end);
	int i;

	if (job_ptr->qos_ptr && (job_ptr->qos_ptr->usage_factor >= 0)) {
		wall_decay *= job_ptr->qos_ptr->usage_factor;
		tres_delta = (uint64_t) ((double) tres_delta *
					 job_ptr->qos_ptr->usage_factor);
	}
	for (i = 0; i < slurmctld_tres_cnt; i++) {
		uint64_t cnt = job_ptr->tres_alloc_cnt ?
			job_ptr->tres_alloc_cnt[i] : 0;

		if (cnt == NO_CONSUME_VAL64)
			cnt = 0;
		run_delta[i] = tres_delta * cnt;
		run_decay[i] = (long double) wall_decay * (long double) cnt;
	}
	_apply_tres_usage(job_ptr, run_delta, run_decay, wall_decay,
			  wall_decay * billable);
}

extern double slurm_usage_decay_per_sec(void)
{
	if (!slurm_conf.priority_decay_hl)
		return 1.0;
	return 1.0 - (0.693 / (double) slurm_conf.priority_decay_hl);
}

extern void slurm_usage_decay(double factor)
{
	ListIterator itr;
	slurmdb_assoc_rec_t *assoc;
	slurmdb_qos_rec_t *qos;
	uint32_t i;

	if (factor >= 1.0)
		return;
	itr = list_iterator_create(assoc_mgr_assoc_list);
	while ((assoc = list_next(itr))) {
		assoc->usage->grp_used_wall *= factor;
		for (i = 0; i < assoc->usage->tres_cnt; i++)
			assoc->usage->usage_tres_raw[i] *= factor;
	}
	list_iterator_destroy(itr);

	itr = list_iterator_create(assoc_mgr_qos_list);
	while ((qos = list_next(itr))) {
		if (!qos->usage || (qos->flags & QOS_FLAG_NO_DECAY))
			continue;
		qos->usage->usage_raw *= factor;
		qos->usage->grp_used_wall *= factor;
		for (i = 0; i < qos->usage->tres_cnt; i++)
			qos->usage->usage_tres_raw[i] *= factor;
	}
	list_iterator_destroy(itr);
}

extern void slurm_usage_restore_run_secs(List jobs, time_t upto)
{
	slurmctld_lock_t job_read_lock =
		{ NO_LOCK, READ_LOCK, NO_LOCK, NO_LOCK, NO_LOCK };
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .qos = WRITE_LOCK,
				   .tres = READ_LOCK };
	ListIterator itr;
	job_record_t *job_ptr;

	if (!(accounting_enforce & ACCOUNTING_ENFORCE_LIMITS) || !upto)
		return;
	lock_slurmctld(job_read_lock);
	assoc_mgr_lock(&locks);
	itr = list_iterator_create(jobs);
	while ((job_ptr = list_next(itr))) {
		uint64_t run_delta[slurmctld_tres_cnt];
		long double no_decay[slurmctld_tres_cnt];
		double factor = 1.0;
		int i;

		if ((job_ptr->end_time_exp == (time_t) NO_VAL) ||
		    !IS_JOB_RUNNING(job_ptr) || !job_ptr->tres_alloc_cnt ||
		    (job_ptr->start_time > upto))
			continue;
		if (job_ptr->qos_ptr && (job_ptr->qos_ptr->usage_factor >= 0))
			factor = job_ptr->qos_ptr->usage_factor;
		factor *= difftime(upto, job_ptr->start_time);
		for (i = 0; i < slurmctld_tres_cnt; i++) {
			no_decay[i] = 0;
			run_delta[i] = (job_ptr->tres_alloc_cnt[i] ==
					NO_CONSUME_VAL64) ? 0 :
				(uint64_t) ((double) job_ptr->tres_alloc_cnt[i] *
					    factor);
		}
		_apply_tres_usage(job_ptr, run_delta, no_decay, 0.0, 0.0);
	}
	list_iterator_destroy(itr);
	assoc_mgr_unlock(&locks);
	unlock_slurmctld(job_read_lock);
}
