/*****************************************************************************\
 *  partition_roles.h - each partition's role in budget.conf as
 *  priority/budget's ranking walk asked it, by name.
 *
 *  A job submitted between two passes is ranked from its association's
 *  entry in assoc_rankings.h and its partition's role kept here, as the walk
 *  ranks it: the engine is then not asked by name, which on the caches a
 *  submission RPC leaves costs more than the rest of the ranking. A role
 *  changes only with budget.conf: a reload forgets every role.
 *
 *  Locking: the walk keeps roles with the job write lock and assoc{R assoc}
 *  held, priority_p_set reads them with the same locks, and a reload
 *  forgets them with assoc{W assoc}: each excludes the others.
\*****************************************************************************/

#ifndef BUDGET_SLURM_PARTITION_ROLES_H
#define BUDGET_SLURM_PARTITION_ROLES_H

#include <stdbool.h>

#include "budget/budget.h"

/* Keeps `role` for the partition `name` (NULL: nothing kept). A partition
 * beyond the few a site has is not kept. */
extern void partition_roles_keep(const char *name, budget_partition_role role);

/* The role kept for `name` into *role, or false when none is kept. */
extern bool partition_roles_find(const char *name, budget_partition_role *role);

/* Forgets every role (after budget.conf was reloaded, and at fini). */
extern void partition_roles_forget(void);

#endif
