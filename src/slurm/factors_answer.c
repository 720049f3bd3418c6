/*****************************************************************************\
 *  factors_answer.c - the rows of one answer to `sprio`, a block at a time
 *  (see factors_answer.h).
\*****************************************************************************/

#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "src/common/list.h"
#include "src/common/xmalloc.h"

#include "factors_answer.h"

/* Rows cut from one allocation: about 55 KB on a site with nine TRES, under
 * malloc's mmap threshold. */
#define ROWS_PER_BLOCK 256

/* A block: its header, the answer's TRES weights, then its rows. */
typedef struct {
	uint32_t refs;	/* its rows alive, plus one while the answer fills it */
	uint32_t used;	/* rows handed out */
	double tres_weights[];
} factors_block_t;

/* A row: the object the List holds, then its block and its weighted TRES
 * values (answer->tres_cnt of them). */
typedef struct {
	priority_factors_object_t obj;	/* first: the List holds its address */
	factors_block_t *block;
	double priority_tres[];
} answer_row_t;

/* A partition's name, one copy an answer, shared by the answer's rows in that
 * partition: Slurm packs the answer after the job read lock is released, when
 * the partition record may be gone, so a row may not point at its name (as
 * multifactor's rows do). The rows' destructor frees it with the last. */
typedef struct {
	part_record_t *part_ptr; /* the record it was copied from: only compared */
	uint32_t rows;		 /* rows whose partition is `name` */
	char name[];
} row_partition_t;

struct factors_answer {
	const double *tres_weights;
	uint32_t tres_cnt;
	size_t row_size;	/* an answer_row_t with its TRES values */
	size_t rows_offset;	/* from a block's start to its first row */
	factors_block_t *block;	/* the one rows are cut from */
	List partitions;	/* row_partition_t, freed by their rows */
	row_partition_t *last_partition;
};

extern factors_answer_t *factors_answer_create(const double *tres_weights,
					       uint32_t tres_cnt)
{
	factors_answer_t *answer = xmalloc(sizeof(*answer));

	answer->tres_weights = tres_weights;
	answer->tres_cnt = tres_weights ? tres_cnt : 0;
	answer->row_size = sizeof(answer_row_t) +
		sizeof(double) * answer->tres_cnt;
	answer->rows_offset = sizeof(factors_block_t) +
		sizeof(double) * answer->tres_cnt;
	answer->partitions = list_create(NULL);
	return answer;
}

static void _release_block(factors_block_t *block)
{
	if (block && !--block->refs)
		xfree(block);
}

static factors_block_t *_new_block(factors_answer_t *answer)
{
	/* Not zeroed: each row is zeroed as it is handed out, while its cache
	 * lines are about to be written anyway. */
	factors_block_t *block = xmalloc_nz(answer->rows_offset +
					    ROWS_PER_BLOCK * answer->row_size);

	block->refs = 1;
	block->used = 0;
	if (answer->tres_cnt)
		memcpy(block->tres_weights, answer->tres_weights,
		       sizeof(double) * answer->tres_cnt);
	return block;
}

extern priority_factors_object_t *factors_answer_row(factors_answer_t *answer)
{
	factors_block_t *block = answer->block;
	answer_row_t *row;

	if (!block || (block->used == ROWS_PER_BLOCK)) {
		_release_block(block);
		block = answer->block = _new_block(answer);
	}
	row = (answer_row_t *) ((char *) block + answer->rows_offset +
				block->used * answer->row_size);
	block->used++;
	block->refs++;
	memset(row, 0, answer->row_size);
	row->block = block;
	return &row->obj;
}

/* Whether a ranking holds a weighted value for each of the answer's TRES. */
static bool _has_answers_tres(const factors_answer_t *answer,
			      const priority_factors_object_t *ranking)
{
	return answer->tres_cnt && (ranking->tres_cnt == answer->tres_cnt) &&
		ranking->priority_tres;
}

static double *_copy_doubles(const double *from, uint32_t count)
{
	double *to;

	if (!from || !count)
		return NULL;
	to = xmalloc(sizeof(double) * count);
	memcpy(to, from, sizeof(double) * count);
	return to;
}

extern void factors_answer_copy(factors_answer_t *answer,
				priority_factors_object_t *obj,
				const priority_factors_object_t *src)
{
	answer_row_t *row = (answer_row_t *) obj;
	size_t size;

	if (!src)
		return;
	size = sizeof(double) * src->tres_cnt;
	*obj = *src;
	/* Not the job's: its name (factors_answer_name_partition) and Slurm's
	 * federation and TRES names, which a ranking leaves NULL. */
	obj->cluster_name = NULL;
	obj->partition = NULL;
	obj->tres_names = NULL;
	/* A ranking carries TRES weights only when it was made before they
	 * changed; without, its values were weighted with those in force. */
	if (_has_answers_tres(answer, src) &&
	    (!src->tres_weights ||
	     !memcmp(src->tres_weights, answer->tres_weights, size))) {
		memcpy(row->priority_tres, src->priority_tres, size);
		obj->priority_tres = row->priority_tres;
		obj->tres_weights = row->block->tres_weights;
	} else {
		/* Ranked before the TRES weights changed, or without them. */
		obj->priority_tres = _copy_doubles(src->priority_tres,
						   src->tres_cnt);
		obj->tres_weights = _copy_doubles(src->tres_weights,
						  src->tres_cnt);
		if (!obj->priority_tres || !obj->tres_weights) {
			/* Slurm packs tres_cnt values of both: none. */
			xfree(obj->priority_tres);
			xfree(obj->tres_weights);
			obj->tres_cnt = 0;
		}
	}
}

extern void factors_answer_ranked(factors_answer_t *answer,
				  priority_factors_object_t *obj)
{
	answer_row_t *row = (answer_row_t *) obj;

	if (_has_answers_tres(answer, obj)) {
		obj->tres_weights = row->block->tres_weights;
	} else {
		/* Slurm packs tres_cnt values of both: none. */
		xfree(obj->priority_tres);
		obj->tres_cnt = 0;
	}
}

static int _copied_from(void *x, void *key)
{
	return ((row_partition_t *) x)->part_ptr == key;
}

extern void factors_answer_name_partition(factors_answer_t *answer,
					  priority_factors_object_t *row,
					  part_record_t *part_ptr)
{
	row_partition_t *shared = answer->last_partition;

	if (!shared || (shared->part_ptr != part_ptr))
		shared = list_find_first(answer->partitions, _copied_from,
					 part_ptr);
	if (!shared) {
		size_t size = strlen(part_ptr->name) + 1;

		shared = xmalloc(sizeof(*shared) + size);
		shared->part_ptr = part_ptr;
		memcpy(shared->name, part_ptr->name, size);
		list_append(answer->partitions, shared);
	}
	shared->rows++;
	answer->last_partition = shared;
	row->partition = shared->name;
}

extern void factors_answer_finish(factors_answer_t *answer)
{
	if (!answer)
		return;
	_release_block(answer->block);
	FREE_NULL_LIST(answer->partitions);
	xfree(answer);
}

extern void factors_answer_free_row(void *object)
{
	answer_row_t *row = object;
	factors_block_t *block = row->block;

	if (row->obj.partition) {
		row_partition_t *shared = (row_partition_t *)
			(row->obj.partition - offsetof(row_partition_t, name));

		if (!--shared->rows)
			xfree(shared);
	}
	/* Arrays not in the block are the row's own: a ranking's when the row
	 * was ranked on request, or copies of a ranking under other weights. */
	if (row->obj.priority_tres != row->priority_tres)
		xfree(row->obj.priority_tres);
	if (row->obj.tres_weights != block->tres_weights)
		xfree(row->obj.tres_weights);
	_release_block(block);
}
