/*****************************************************************************\
 *  job_prefetch.c - a walk over job_list that reads ahead (see
 *  job_prefetch.h).
\*****************************************************************************/

#include "config.h"

#include "job_prefetch.h"

extern void job_walk_start(job_walk_t *walk, List jobs)
{
	walk->next = walk->end = 0;
	walk->itr = jobs ? list_iterator_create(jobs) : NULL;
	while (walk->itr && (walk->end < PREFETCH_AHEAD))
		job_walk_read(walk);
}

extern void job_walk_read(job_walk_t *walk)
{
	job_record_t *job_ptr = list_next(walk->itr);

	if (!job_ptr) {
		/* Not asked again: the list is read to its end. */
		list_iterator_destroy(walk->itr);
		walk->itr = NULL;
		return;
	}
	job_prefetch_fields(job_ptr);
	walk->ring[walk->end++ % PREFETCH_AHEAD] = job_ptr;
}

extern void job_walk_end(job_walk_t *walk)
{
	if (walk->itr)
		list_iterator_destroy(walk->itr);
	walk->itr = NULL;
	walk->next = walk->end;
}
