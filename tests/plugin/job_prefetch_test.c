/* The walk over job_list that sprio's answer reads ahead with (src/slurm/job_prefetch.c), against
 * Slurm's own List and list_for_each_ro from the installed libslurmfull.so: it must visit every
 * record of the list once, in the list's order (the answer's rows keep the order multifactor's
 * have), whatever the list's length against the ring's PREFETCH_AHEAD slots, and nothing for an
 * empty or missing list. The prefetches only hint the CPU; the walk runs them over these records
 * (half of them with details, half without) as the answer runs them, which must not fault.
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

/* What the visits saw: how many records, and whether each was the next of
 * the list's. */
typedef struct {
	job_record_t *records;
	uint32_t seen;
	int in_order;
} visits_t;

static void _visit(job_record_t *job_ptr, void *arg)
{
	visits_t *visits = arg;

	visits->in_order &= (job_ptr == &visits->records[visits->seen++]);
}

static void _walks_in_list_order(uint32_t n)
{
	List jobs = list_create(NULL);
	job_record_t *records = xcalloc(n ? n : 1, sizeof(*records));
	struct job_details details = { 0 };
	visits_t visits = { .records = records, .seen = 0, .in_order = 1 };
	uint32_t i;

	for (i = 0; i < n; i++) {
		records[i].job_id = i + 1;
		records[i].details = (i % 2) ? &details : NULL;
		list_append(jobs, &records[i]);
	}
	job_walk_each(jobs, _visit, &visits);
	check(visits.seen == n, "the walk visits as many records as the list holds", n);
	check(visits.in_order, "the walk visits the list's records in its order", n);
	xfree(records);
	FREE_NULL_LIST(jobs);
}

int main(void)
{
	visits_t none = { .records = NULL, .seen = 0, .in_order = 1 };
	uint32_t lengths[] = { 0, 1, PREFETCH_AHEAD / 2, PREFETCH_AHEAD - 1,
			       PREFETCH_AHEAD, PREFETCH_AHEAD + 1, 20000 };
	size_t i;

	job_walk_each(NULL, _visit, &none);
	check(none.seen == 0, "no list gives no visit", 0);

	for (i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++)
		_walks_in_list_order(lengths[i]);

	if (!failures)
		printf("job_prefetch_test: all checks passed\n");
	return failures ? 1 : 0;
}
