/*****************************************************************************\
 *  slurm_usage.h - Slurm's own usage bookkeeping, kept by priority/budget as
 *  priority/multifactor keeps it.
 *
 *  The budget's usage lives in the core's ledger. Slurm's limits and sshare
 *  read other counters that the priority plugin in force must keep:
 *  GrpTRESMins and sshare's GrpTRESRaw (decayed TRES usage), GrpTRESRunMins
 *  and TRESRunMins (the TRES run seconds acct_policy reserved at each job's
 *  start), GrpWall (decayed wall time). These functions keep them the way
 *  src/plugins/priority/multifactor does, so that those limits and columns
 *  read the same under either plugin.
\*****************************************************************************/

#ifndef BUDGET_SLURM_SLURM_USAGE_H
#define BUDGET_SLURM_SLURM_USAGE_H

#include <stdbool.h>
#include <time.h>

#include "src/slurmctld/slurmctld.h"

/* Slurm's per-second decay factor for PriorityDecayHalfLife (1.0: none). */
extern double slurm_usage_decay_per_sec(void);

/* Decays every association's and QOS's TRES usage and wall time by
 * `factor`. Caller holds assoc{W assoc, W qos}. */
extern void slurm_usage_decay(double factor);

/* Charges [start, end) of a job (start no earlier than its own start) to its
 * associations and QOS, decayed at `decay_per_sec`, and releases that much
 * of its reserved TRES run seconds; `at_end` releases all that is left.
 * Caller holds job write + assoc{W assoc, W qos, R tres}. */
extern void slurm_usage_charge(job_record_t *job_ptr, time_t start,
			       time_t end, bool at_end, double decay_per_sec);

/* After a restart or a reconfigure acct_policy has reserved every running
 * job's full TRES x time limit in the run seconds again: releases what the
 * jobs of `jobs` used up to `upto`, as multifactor does. Takes its own
 * locks (job read, then assoc{W assoc, W qos, R tres}); the caller holds
 * none. */
extern void slurm_usage_restore_run_secs(List jobs, time_t upto);

#endif
