/*****************************************************************************\
 *  publish_usage.h - the budget published into assoc_mgr's association
 *  records, where sshare (and the rest of Slurm) reads it.
 *
 *  Each pass publishes every row: its usage and fair-share as the core
 *  computes them, a project account's RawShares (its expected GPUh this
 *  month), and for the accounts that are not projects the sum of the
 *  projects below them. The same step keeps each row's ranking for the
 *  pass's walk over the jobs (assoc_rankings.h).
\*****************************************************************************/

#ifndef BUDGET_SLURM_PUBLISH_USAGE_H
#define BUDGET_SLURM_PUBLISH_USAGE_H

#include <time.h>

#include "src/common/assoc_mgr.h"

#include "budget/budget.h"

/* Publishes the budget of `now` into every association record, and starts
 * a pass of assoc_rankings.h with their rankings. Caller holds
 * assoc{W assoc}. */
extern void publish_usage(budget_engine *engine, time_t now);

/* Fills one association's usage from the budget of `now`: what sshare shows
 * for it. Takes no lock: may run under the caller's assoc read lock. */
extern void publish_assoc_usage(budget_engine *engine,
				slurmdb_assoc_rec_t *assoc, time_t now);

#endif
