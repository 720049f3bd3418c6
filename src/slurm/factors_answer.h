/*****************************************************************************\
 *  factors_answer.h - the rows of one answer to `sprio`
 *  (REQUEST_PRIORITY_FACTORS), allocated a block at a time.
 *
 *  Slurm packs the answer after the job read lock is released and then frees
 *  it with the list's destructor, so every row must own what it shows: a job
 *  record, its factors and its partition may change or go once the lock is
 *  released. priority/multifactor copies each row into three allocations (the
 *  row and its two TRES arrays), made under the job read lock and freed one
 *  by one after the answer is sent. Here rows are cut from blocks of a few
 *  hundred, each row's weighted TRES values sit in the row, and the TRES
 *  weights, the same in every row ranked under the weights in force (a job's
 *  factors then carry none), are one copy a block; a partition's name is one
 *  copy an answer. A row whose job was ranked under other TRES weights
 *  carries its own copies, as before.
\*****************************************************************************/

#ifndef BUDGET_SLURM_FACTORS_ANSWER_H
#define BUDGET_SLURM_FACTORS_ANSWER_H

#include "slurm/slurm.h"

#include "src/slurmctld/slurmctld.h"

typedef struct factors_answer factors_answer_t;

/* Starts an answer whose rows are ranked with `tres_weights` (tres_cnt of
 * them, or NULL), which are read while the answer is built. Caller holds the
 * job read lock. */
extern factors_answer_t *factors_answer_create(const double *tres_weights,
					       uint32_t tres_cnt);

/* A new row, zeroed. */
extern priority_factors_object_t *factors_answer_row(factors_answer_t *answer);

/* Fills `row` with the job's last ranking, `src` (its prio_factors). */
extern void factors_answer_copy(factors_answer_t *answer,
				priority_factors_object_t *row,
				const priority_factors_object_t *src);

/* Completes a row that a ranking on request filled: the weights its TRES
 * values were weighted with, the answer's (a ranking leaves them out). */
extern void factors_answer_ranked(factors_answer_t *answer,
				  priority_factors_object_t *row);

/* Names `row`'s partition: the answer's copy of part_ptr's name. After the
 * row is filled (a ranking zeroes it). Caller holds the partition read lock. */
extern void factors_answer_name_partition(factors_answer_t *answer,
					  priority_factors_object_t *row,
					  part_record_t *part_ptr);

/* Ends the building: the answer's blocks then live as long as their rows. */
extern void factors_answer_finish(factors_answer_t *answer);

/* The destructor of the answer's List. */
extern void factors_answer_free_row(void *row);

#endif
