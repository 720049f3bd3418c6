/*****************************************************************************\
 *  job_prefetch.c - job_list's records in an array (see job_prefetch.h).
\*****************************************************************************/

#include "config.h"

#include "src/common/list.h"
#include "src/common/xmalloc.h"

#include "job_prefetch.h"

extern job_record_t **job_prefetch_gather(List jobs, uint32_t *count)
{
	job_record_t **records, *job_ptr;
	ListIterator itr;
	uint32_t n = 0, size;
	int listed = jobs ? list_count(jobs) : 0;

	*count = 0;
	if (listed <= 0)
		return NULL;
	size = (uint32_t) listed;
	/* Not zeroed: every slot up to *count is written. */
	records = xmalloc_nz(sizeof(*records) * size);
	itr = list_iterator_create(jobs);
	while ((n < size) && (job_ptr = list_next(itr)))
		records[n++] = job_ptr;
	list_iterator_destroy(itr);
	*count = n;
	return records;
}
