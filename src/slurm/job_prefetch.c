/*****************************************************************************\
 *  job_prefetch.c - a walk over job_list that reads ahead (see
 *  job_prefetch.h).
\*****************************************************************************/

#include "config.h"

#include "job_prefetch.h"

/* Asks for the cache lines of the fields a pending job is filtered and
 * ranked by in sprio's answer: its state, priority, ids, partitions, details
 * and factors pointers. */
static void _prefetch_fields(const job_record_t *job_ptr)
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
 * record: call it some records after _prefetch_fields, when its lines have
 * arrived. */
static void _prefetch_pointees(const job_record_t *job_ptr)
{
	if (job_ptr->details)
		__builtin_prefetch(&job_ptr->details->begin_time);
	if (job_ptr->prio_factors)
		__builtin_prefetch(job_ptr->prio_factors);
}

/* Records read from the list and not yet visited, by their place in it:
 * record k is ring[k % PREFETCH_AHEAD] while next <= k < end. */
typedef struct {
	job_visit_f visit;
	void *arg;
	job_record_t *ring[PREFETCH_AHEAD];
	uint32_t next;	/* place of the record visited next */
	uint32_t end;	/* one past the place of the last one read */
} job_walk_t;

/* Visits the oldest record of the ring, asking first for what the one half
 * the ring ahead points at: its own lines have arrived by now. */
static void _visit_next(job_walk_t *walk)
{
	uint32_t half_way = walk->next + PREFETCH_AHEAD / 2;

	if (half_way < walk->end)
		_prefetch_pointees(walk->ring[half_way % PREFETCH_AHEAD]);
	walk->visit(walk->ring[walk->next++ % PREFETCH_AHEAD], walk->arg);
}

/* list_for_each_ro's callback: the record PREFETCH_AHEAD places ahead of
 * the one visited now, into the slot that visit frees. */
static int _read_ahead(void *object, void *arg)
{
	job_record_t *job_ptr = object;
	job_walk_t *walk = arg;

	_prefetch_fields(job_ptr);
	if (walk->end - walk->next == PREFETCH_AHEAD)
		_visit_next(walk);
	walk->ring[walk->end++ % PREFETCH_AHEAD] = job_ptr;
	return 0;
}

extern void job_walk_each(List jobs, job_visit_f visit, void *arg)
{
	job_walk_t walk = { .visit = visit, .arg = arg, .next = 0, .end = 0 };

	if (jobs)
		(void) list_for_each_ro(jobs, _read_ahead, &walk);
	while (walk.next < walk.end)
		_visit_next(&walk);
}
