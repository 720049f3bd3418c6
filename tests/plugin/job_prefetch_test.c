/* The walk over job_list that sprio's answer reads ahead with (src/slurm/job_prefetch.c), against
 * Slurm's own List from the installed libslurmfull.so: it must hand out every record of the list
 * once, in the list's order (the answer's rows keep the order multifactor's have), whatever the
 * list's length against the ring's PREFETCH_AHEAD slots, nothing for an empty or missing list,
 * and end cleanly when the caller stops early. The prefetches only hint the CPU; the walk runs
 * them over these records as the answer runs them, which must not fault.
 * Exits 0 when every check passes, 1 otherwise, printing one line per failed check. */
#include "config.h"

#include <stdio.h>

#include "src/common/list.h"
#include "src/common/xmalloc.h"

#include "job_prefetch.h"

static int failures;

static void check(int ok, const char *what, uint32_t n)
{
	if (!ok) {
		fprintf(stderr, "FAIL: %s (%u records)\n", what, n);
		failures++;
	}
}

/* Walks a list of n records, stopping after `stop` of them when stop < n. */
static void _walks_in_list_order(uint32_t n, uint32_t stop)
{
	List jobs = list_create(NULL);
	job_record_t *records = xcalloc(n ? n : 1, sizeof(*records));
	job_record_t *job_ptr;
	struct job_details details = { 0 };
	job_walk_t walk;
	uint32_t i, seen = 0;
	int in_order = 1;

	for (i = 0; i < n; i++) {
		records[i].job_id = i + 1;
		records[i].details = (i % 2) ? &details : NULL;
		list_append(jobs, &records[i]);
	}
	job_walk_start(&walk, jobs);
	while ((seen < stop) && (job_ptr = job_walk_next(&walk)))
		in_order &= (job_ptr == &records[seen++]);
	job_walk_end(&walk);
	check(seen == ((stop < n) ? stop : n),
	      "the walk hands out as many records as the list holds", n);
	check(in_order, "the walk hands out the list's records in its order",
	      n);
	check(!job_walk_next(&walk), "an ended walk hands out nothing", n);
	xfree(records);
	FREE_NULL_LIST(jobs);
}

int main(void)
{
	job_walk_t walk;
	uint32_t lengths[] = { 0, 1, PREFETCH_AHEAD / 2, PREFETCH_AHEAD - 1,
			       PREFETCH_AHEAD, PREFETCH_AHEAD + 1, 20000 };
	size_t i;

	job_walk_start(&walk, NULL);
	check(!job_walk_next(&walk), "no list gives no record", 0);
	job_walk_end(&walk);

	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++)
		_walks_in_list_order(lengths[i], UINT32_MAX);
	/* Stopped before, at and after the ring is first refilled. */
	_walks_in_list_order(100, 3);
	_walks_in_list_order(100, PREFETCH_AHEAD);
	_walks_in_list_order(100, 99);

	if (!failures)
		printf("job_prefetch_test: all checks passed\n");
	return failures ? 1 : 0;
}
