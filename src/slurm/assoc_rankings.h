/*****************************************************************************\
 *  assoc_rankings.h - each association's project as priority/budget's pass
 *  resolved it, so that ranking a job looks nothing up by name.
 *
 *  The pass fills the table in its publish step (assoc write lock held),
 *  then ranks every pending job from its association's entry, the way
 *  priority/multifactor reads fs_factor from the job's association. A
 *  submission between passes reads its association's entry too, while the
 *  engine's generation is still the entry's. Only the pass thread writes
 *  the table, under the assoc write lock; readers hold the assoc read lock,
 *  so the table takes no lock of its own. An entry counts only for the
 *  association record it was filled from, and in the pass that filled it
 *  (assoc_rankings_of) or in its generation (assoc_rankings_at): an
 *  association added since, or one whose id lies beyond what the table
 *  keeps, has none, and the caller asks the engine by name as before.
\*****************************************************************************/

#ifndef BUDGET_SLURM_ASSOC_RANKINGS_H
#define BUDGET_SLURM_ASSOC_RANKINGS_H

#include "src/common/assoc_mgr.h"

#include "budget/budget.h"

/* Starts a pass: every entry of the previous one stops counting.
 * `assoc_count` (the length of assoc_mgr_assoc_list) bounds the table:
 * association ids above 16 times it plus 1024 are not kept. */
extern void assoc_rankings_begin_pass(uint32_t assoc_count);

/* Keeps `ranking`, the engine's for assoc's project (its acct) in this
 * pass, in the table. Caller holds assoc{W assoc} or {R assoc}. */
extern void assoc_rankings_keep(const slurmdb_assoc_rec_t *assoc,
				const budget_project_ranking *ranking);

/* The ranking of this pass for `assoc`, or NULL when it has none. */
extern const budget_project_ranking *assoc_rankings_of(
	const slurmdb_assoc_rec_t *assoc);

/* The ranking kept for `assoc` in the engine's `generation` (nonzero,
 * budget_engine_steady_generation), whichever pass kept it, or NULL. Caller
 * holds assoc{R assoc}. */
extern const budget_project_ranking *assoc_rankings_at(
	const slurmdb_assoc_rec_t *assoc, uint64_t generation);

/* Frees the table (at fini, once the pass thread has stopped). */
extern void assoc_rankings_free(void);

#endif
