/*****************************************************************************\
 *  publish_usage.c - the budget published into assoc_mgr, what sshare shows
 *  (see publish_usage.h).
\*****************************************************************************/

#include "config.h"

#include <math.h>
#include <string.h>

#include "slurm/slurm.h"

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"

#include "budget/budget.h"
#include "assoc_rankings.h"
#include "publish_usage.h"

/* The plugin's name in its log lines (priority_budget.c). */
extern const char plugin_type[];

/* The budget's row for assoc (budget_engine_association); on an engine
 * error, logged, the row of an account without a budget and false. Takes no
 * lock. */
static bool _association(budget_engine *engine,
			 const slurmdb_assoc_rec_t *assoc, time_t now,
			 budget_association *row)
{
	budget_error err;

	if (!budget_engine_association(engine, assoc->acct, assoc->user, now,
				       row, &err))
		return true;
	error("%s: account %s: %s", plugin_type, assoc->acct, err.text);
	memset(row, 0, sizeof(*row));
	return false;
}

/* Fills assoc->usage from its row of the budget: what sshare shows. Takes
 * no lock. */
static void _fill_assoc_usage(slurmdb_assoc_rec_t *assoc,
			      const budget_association *row)
{
	const budget_project_view *view = &row->project;

	assoc->usage->usage_raw = (long double) (assoc->user ?
		row->user_usage_gpu_seconds : view->usage_gpu_seconds);
	assoc->usage->usage_efctv = (long double) view->effective_usage;
	assoc->usage->fs_factor = view->fair_share;
	assoc->usage->level_fs = (long double) view->level;
}

extern void publish_assoc_usage(budget_engine *engine,
				slurmdb_assoc_rec_t *assoc, time_t now)
{
	budget_association row;

	(void) _association(engine, assoc, now, &row);
	_fill_assoc_usage(assoc, &row);
}

/* Whether assoc is a project's account row (not a user's): from the ranking
 * the publish step resolved, else the engine's state of this instant. */
static bool _is_project_account(budget_engine *engine,
				slurmdb_assoc_rec_t *assoc, time_t now)
{
	const budget_project_ranking *known;
	budget_project_lifecycle lifecycle;

	if (assoc->user || !assoc->acct)
		return false;
	if ((known = assoc_rankings_of(assoc)))
		return known->lifecycle.state != BUDGET_PROJECT_NONE;
	return !budget_engine_project_state(engine, assoc->acct, now,
					    &lifecycle, NULL) &&
		(lifecycle.state != BUDGET_PROJECT_NONE);
}

/* Rows the publish step asks the engine for in one call (and one lock of
 * its mutex): their answers live on the stack, 80 bytes a row. */
#define PUBLISH_BATCH 128

/* Writes one row's answer into assoc (answered: the engine gave it, so its
 * ranking is kept for the pass). Takes no lock. */
static void _publish_row(slurmdb_assoc_rec_t *assoc,
			 const budget_association *row, bool answered)
{
	if (answered)
		assoc_rankings_keep(assoc, &row->ranking);
	if (!assoc->user && (row->project.state == BUDGET_PROJECT_NONE)) {
		assoc->usage->usage_raw = 0;
		return;
	}
	_fill_assoc_usage(assoc, row);
	if (!assoc->user && (assoc->shares_raw != SLURMDB_FS_USE_PARENT))
		assoc->shares_raw =
			(uint32_t) llround(row->project.shares_gpu_hours);
}

/* Asks the engine for the rows of assocs[0..n-1] in one call
 * (budget_engine_associations) and writes them back; on an engine error,
 * logged, each gets the row of an account without a budget. */
static void _publish_batch(budget_engine *engine,
			   slurmdb_assoc_rec_t **assocs, size_t n, time_t now)
{
	/* Zeroed only to tell the compiler that no key is read unset. */
	budget_association_key keys[PUBLISH_BATCH] = { { NULL, NULL } };
	budget_association rows[PUBLISH_BATCH];
	budget_error err;
	bool answered = true;
	size_t i;

	for (i = 0; i < n; i++) {
		keys[i].account = assocs[i]->acct;
		keys[i].user = assocs[i]->user;
	}
	if (budget_engine_associations(engine, keys, n, now, rows, &err)) {
		error("%s: associations: %s", plugin_type, err.text);
		memset(rows, 0, n * sizeof(rows[0]));
		answered = false;
	}
	for (i = 0; i < n; i++)
		_publish_row(assocs[i], &rows[i], answered);
}

extern void publish_usage(budget_engine *engine, time_t now)
{
	ListIterator itr;
	slurmdb_assoc_rec_t *assoc, *up;
	slurmdb_assoc_rec_t *root = assoc_mgr_root_assoc;
	slurmdb_assoc_rec_t *batch[PUBLISH_BATCH];
	size_t batched = 0;
	long double total;

	/* Every row's ranking is kept for the ranking walk of this pass; the
	 * last pass's stop counting even when there is nothing to publish. */
	assoc_rankings_begin_pass(assoc_mgr_assoc_list ?
				  (uint32_t) list_count(assoc_mgr_assoc_list) :
				  0);
	if (!root || !assoc_mgr_assoc_list)
		return;

	/* The rows in batches, in assoc_mgr's order: it lists an account's
	 * users right after it, in name order, so the engine computes each
	 * project's view once and finds each user one step from the last.
	 * The loops below read whether a row is a project's from the
	 * rankings kept here. */
	itr = list_iterator_create(assoc_mgr_assoc_list);
	while ((assoc = list_next(itr))) {
		batch[batched++] = assoc;
		if (batched == PUBLISH_BATCH) {
			_publish_batch(engine, batch, batched, now);
			batched = 0;
		}
	}
	if (batched)
		_publish_batch(engine, batch, batched, now);
	list_iterator_reset(itr);
	while ((assoc = list_next(itr))) {
		if (!_is_project_account(engine, assoc, now))
			continue;
		for (up = assoc->usage->parent_assoc_ptr; up;
		     up = up->usage->parent_assoc_ptr) {
			if (!_is_project_account(engine, up, now))
				up->usage->usage_raw += assoc->usage->usage_raw;
		}
	}

	total = root->usage->usage_raw;
	list_iterator_reset(itr);
	while ((assoc = list_next(itr))) {
		assoc->usage->usage_norm = (total > 0) ?
			assoc->usage->usage_raw / total : 0;
		if (assoc->usage->usage_norm > 1)
			assoc->usage->usage_norm = 1;
		if (!assoc->user && !_is_project_account(engine, assoc, now))
			assoc->usage->usage_efctv = assoc->usage->usage_norm;
	}
	root->usage->usage_efctv = 1.0;

	/* RawShares changed: renormalise every row's NormShares. */
	list_iterator_reset(itr);
	while ((assoc = list_next(itr))) {
		List children = assoc->usage->children_list;
		ListIterator citr;
		slurmdb_assoc_rec_t *child;
		uint32_t level = 0;

		if (!children)
			continue;
		citr = list_iterator_create(children);
		while ((child = list_next(citr)))
			if (child->shares_raw != SLURMDB_FS_USE_PARENT)
				level += child->shares_raw;
		list_iterator_reset(citr);
		while ((child = list_next(citr))) {
			child->usage->level_shares = level;
			assoc_mgr_normalize_assoc_shares(child);
		}
		list_iterator_destroy(citr);
	}
	list_iterator_destroy(itr);
}
