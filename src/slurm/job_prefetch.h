/*****************************************************************************\
 *  job_prefetch.h - a walk over job_list that asks for the next records'
 *  cache lines while the caller reads the current one.
 *
 *  sprio's answer reads a handful of fields of every pending job: a few cache
 *  lines a record, 20,000 records on a large queue, most of them out of the
 *  caches. Whether the hardware fetches them ahead of the walk depends on where
 *  Slurm placed the records (their offset in a cache line, the allocations
 *  around them), so the same answer took 2.9 and 3.0 ms on one placement and
 *  4.0 to 4.8 on another, stalled on those loads (docs/performance-log.md,
 *  sprio A/B run 19). Asking for the lines of the record PREFETCH_AHEAD places
 *  on, they arrive side by side: 0.83 of the time on two placements (run 20).
 *
 *  The walk keeps the records it has read ahead in a ring of PREFETCH_AHEAD
 *  slots, not the whole list in an array: an array of 20,000 pointers is
 *  160 KB, above glibc's first mmap threshold, and each answer would map and
 *  free it or move the thresholds that decide what slurmctld's heap gives back
 *  to the kernel (run 21).
\*****************************************************************************/

#ifndef BUDGET_SLURM_JOB_PREFETCH_H
#define BUDGET_SLURM_JOB_PREFETCH_H

#include "slurm/slurm.h"

#include "src/common/list.h"
#include "src/slurmctld/slurmctld.h"

/* How many records ahead of the one read the walk asks for: enough to cover
 * a miss to memory with a few records' work. A power of two, so that a
 * record's slot in the ring is a mask of its place in the list. */
#define PREFETCH_AHEAD 8

/* Records read from the list and not yet handed out, by their place in it:
 * record k is ring[k % PREFETCH_AHEAD] while next <= k < end. */
typedef struct {
	ListIterator itr;	/* NULL once the list is read to its end */
	job_record_t *ring[PREFETCH_AHEAD];
	uint32_t next;		/* place of the record handed out next */
	uint32_t end;		/* one past the place of the last one read */
} job_walk_t;

/* Asks for the cache lines of the fields a pending job is filtered and
 * ranked by in sprio's answer: its state, priority, ids, partitions, details
 * and factors pointers. */
static inline void job_prefetch_fields(const job_record_t *job_ptr)
{
	/* One a field: which of them share a line depends on where the
	 * record starts, which is the point. direct_set_prio, 8 bytes after
	 * details, is on its line wherever a 16-byte aligned record starts. */
	__builtin_prefetch(&job_ptr->details);
	__builtin_prefetch(&job_ptr->job_id);
	__builtin_prefetch(&job_ptr->job_state);
	__builtin_prefetch(&job_ptr->part_ptr_list);
	__builtin_prefetch(&job_ptr->part_ptr);
	__builtin_prefetch(&job_ptr->priority);
	__builtin_prefetch(&job_ptr->prio_factors);
	__builtin_prefetch(&job_ptr->user_id);
}

/* Asks for what a record points at that the answer reads: its details'
 * begin time (when it became eligible) and its last ranking. Reads the
 * record: call it some records after job_prefetch_fields, when its lines have
 * arrived. */
static inline void job_prefetch_pointees(const job_record_t *job_ptr)
{
	if (job_ptr->details)
		__builtin_prefetch(&job_ptr->details->begin_time);
	if (job_ptr->prio_factors)
		__builtin_prefetch(job_ptr->prio_factors);
}

/* Starts a walk over `jobs` (NULL walks nothing), reading its first
 * PREFETCH_AHEAD records. Caller holds a job lock until job_walk_end. */
extern void job_walk_start(job_walk_t *walk, List jobs);

/* Reads one record into the ring, asking for its fields' lines. */
extern void job_walk_read(job_walk_t *walk);

/* Ends a walk, finished or not. */
extern void job_walk_end(job_walk_t *walk);

/* The next record of the walk, in the list's order; NULL after the last.
 * Reads the record PREFETCH_AHEAD places on into the slot it frees, and asks
 * for what the one half as far points at, whose lines have arrived by now.
 * Inline: it runs once a job, in the loop it feeds. */
static inline job_record_t *job_walk_next(job_walk_t *walk)
{
	job_record_t *job_ptr;
	uint32_t half_way;

	if (walk->next == walk->end)
		return NULL;
	job_ptr = walk->ring[walk->next++ % PREFETCH_AHEAD];
	if (walk->itr)
		job_walk_read(walk);
	half_way = walk->next + PREFETCH_AHEAD / 2 - 1;
	if (half_way < walk->end)
		job_prefetch_pointees(walk->ring[half_way % PREFETCH_AHEAD]);
	return job_ptr;
}

#endif
