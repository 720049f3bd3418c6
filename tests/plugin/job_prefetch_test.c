/* job_prefetch_gather (src/slurm/job_prefetch.c) against Slurm's own List from the installed
 * libslurmfull.so: sprio's answer walks the array it returns instead of job_list, so the array
 * must hold every record of the list, in the list's order (the answer's rows keep the order
 * multifactor's have), and nothing for an empty or missing list. The prefetches only hint the
 * CPU; they are run over the array here as the answer runs them, which must not fault.
 * Exits 0 when every check passes, 1 otherwise, printing one line per failed check. */
#include "config.h"

#include <stdio.h>

#include "src/common/list.h"
#include "src/common/xmalloc.h"

#include "job_prefetch.h"

static int failures;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "FAIL: %s\n", what);
		failures++;
	}
}

static void _gathers_in_list_order(uint32_t n)
{
	List jobs = list_create(NULL);
	job_record_t *records = xcalloc(n, sizeof(*records));
	struct job_details details = { 0 };
	job_record_t **gathered;
	uint32_t i, count = 12345;
	int in_order = 1;

	for (i = 0; i < n; i++) {
		records[i].job_id = i + 1;
		records[i].details = (i % 2) ? &details : NULL;
		list_append(jobs, &records[i]);
	}
	gathered = job_prefetch_gather(jobs, &count);
	check(count == n, "the array holds as many records as the list");
	for (i = 0; gathered && (i < count); i++) {
		job_prefetch_fields(gathered[i]);
		job_prefetch_pointees(gathered[i]);
		in_order &= (gathered[i] == &records[i]);
	}
	check(gathered && in_order, "the array holds the list's records in its order");
	xfree(gathered);
	xfree(records);
	FREE_NULL_LIST(jobs);
}

int main(void)
{
	List empty = list_create(NULL);
	uint32_t count = 7;

	check(!job_prefetch_gather(empty, &count) && (count == 0),
	      "an empty list gives no array and a count of 0");
	count = 7;
	check(!job_prefetch_gather(NULL, &count) && (count == 0),
	      "no list gives no array and a count of 0");
	FREE_NULL_LIST(empty);

	_gathers_in_list_order(1);
	_gathers_in_list_order(PREFETCH_AHEAD);
	_gathers_in_list_order(20000);

	if (!failures)
		printf("job_prefetch_test: all checks passed\n");
	return failures ? 1 : 0;
}
