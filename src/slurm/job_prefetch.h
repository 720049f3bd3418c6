/*****************************************************************************\
 *  job_prefetch.h - a walk over job_list that asks for the cache lines of the
 *  records ahead of the one it visits.
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
 *  to the kernel (runs 21 and 22). It reads the list with list_for_each_ro,
 *  under one read lock of the list, where list_next takes and drops the
 *  list's write lock for each record.
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

/* What job_walk_each does with each record. */
typedef void (*job_visit_f)(job_record_t *job_ptr, void *arg);

/* Calls visit(record, arg) on each record of `jobs` (NULL: none), in its
 * order, having asked for the lines of the fields sprio's answer reads
 * PREFETCH_AHEAD records before and for what they point at half as far (the
 * fields are the answer's: another walk would want its own). Caller holds a
 * job lock. All but the last PREFETCH_AHEAD visits run under the list's read
 * lock: a visit must not add to or take from `jobs`. */
extern void job_walk_each(List jobs, job_visit_f visit, void *arg);

#endif
