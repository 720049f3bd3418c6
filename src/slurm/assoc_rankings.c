/*****************************************************************************\
 *  assoc_rankings.c - each association's project as priority/budget's pass
 *  resolved it (see assoc_rankings.h).
\*****************************************************************************/

#include "config.h"

#include "src/common/xmalloc.h"

#include "assoc_rankings.h"
#include "hot_path.h"

typedef struct {
	uint64_t pass;			/* the pass that filled it */
	const slurmdb_assoc_rec_t *assoc;	/* the record it was filled from */
	budget_project_ranking ranking;
} assoc_ranking_t;

/* Indexed by association id. Ids come from slurmdbd's auto-increment: dense
 * at most sites, but a site that deleted many associations has gaps. The
 * bound keeps such a table within a few MiB; ids beyond it fall back to the
 * lookup by name. */
static assoc_ranking_t *rankings = NULL;
static uint32_t rankings_cnt = 0;
static uint32_t id_bound = 0;
static uint64_t current_pass = 0;

extern void assoc_rankings_begin_pass(uint32_t assoc_count)
{
	uint64_t bound = ((uint64_t) assoc_count * 16) + 1024;

	current_pass++;
	id_bound = (bound < UINT32_MAX) ? (uint32_t) bound : UINT32_MAX;
}

/* Makes room for `id`; false when the id is beyond the bound. */
static bool _reserve(uint32_t id)
{
	uint32_t cnt;

	if (id < rankings_cnt)
		return true;
	if (id >= id_bound)
		return false;
	cnt = rankings_cnt ? rankings_cnt : 256;
	while (cnt <= id)
		cnt *= 2;
	if (cnt > id_bound)
		cnt = id_bound;
	/* xrecalloc zeroes the new entries: pass 0 is never current. */
	xrecalloc(rankings, cnt, sizeof(*rankings));
	rankings_cnt = cnt;
	return true;
}

extern void assoc_rankings_keep(const slurmdb_assoc_rec_t *assoc,
				const budget_project_ranking *ranking)
{
	assoc_ranking_t *entry;

	if (!_reserve(assoc->id))
		return;
	entry = &rankings[assoc->id];
	entry->pass = current_pass;
	entry->assoc = assoc;
	entry->ranking = *ranking;
}

/* The entry filled from this association record, or NULL. */
BUDGET_HOT
static const assoc_ranking_t *_entry_of(const slurmdb_assoc_rec_t *assoc)
{
	const assoc_ranking_t *entry;

	if (!assoc || (assoc->id >= rankings_cnt))
		return NULL;
	entry = &rankings[assoc->id];
	return (entry->assoc == assoc) ? entry : NULL;
}

extern const budget_project_ranking *assoc_rankings_of(
	const slurmdb_assoc_rec_t *assoc)
{
	const assoc_ranking_t *entry = _entry_of(assoc);

	if (!entry || (entry->pass != current_pass))
		return NULL;
	return &entry->ranking;
}

BUDGET_HOT
extern const budget_project_ranking *assoc_rankings_at(
	const slurmdb_assoc_rec_t *assoc, uint64_t generation)
{
	const assoc_ranking_t *entry = _entry_of(assoc);

	if (!entry || !generation ||
	    (entry->ranking.generation != generation))
		return NULL;
	return &entry->ranking;
}

extern void assoc_rankings_free(void)
{
	xfree(rankings);
	rankings_cnt = 0;
	id_bound = 0;
}
