/*****************************************************************************\
 *  job_prefetch.h - job_list's records in an array, so that a walk over them
 *  asks for the next records' cache lines while it reads the current one.
 *
 *  sprio's answer reads a handful of fields of every pending job: a few cache
 *  lines a record, 20,000 records on a large queue, most of them out of the
 *  caches. Whether the hardware fetches them ahead of the walk depends on where
 *  Slurm placed the records (their offset in a cache line, the allocations
 *  around them), so the same answer took 2.9 and 3.0 ms on one placement and
 *  4.0 to 4.8 on another, stalled on those loads (docs/performance-log.md,
 *  sprio A/B run 19). Walking an array instead of the list, the caller asks
 *  for the lines of the record PREFETCH_AHEAD places on, and they arrive side
 *  by side: 0.83 of the time on two placements (run 20).
\*****************************************************************************/

#ifndef BUDGET_SLURM_JOB_PREFETCH_H
#define BUDGET_SLURM_JOB_PREFETCH_H

#include "slurm/slurm.h"

#include "src/slurmctld/slurmctld.h"

/* How many records ahead of the one read the walk asks for: enough to cover
 * a miss to memory with a few records' work. */
#define PREFETCH_AHEAD 8

/* The records of `jobs`, in its order, in an xmalloc'd array the caller
 * frees; NULL when it is empty. *count: their number. Caller holds a job
 * lock, which keeps the records while the array is walked. */
extern job_record_t **job_prefetch_gather(List jobs, uint32_t *count);

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

#endif
