/*****************************************************************************\
 *  budget_paths.h - where both budget plugins find budget.conf and the ledger.
\*****************************************************************************/

#ifndef BUDGET_SLURM_PATHS_H
#define BUDGET_SLURM_PATHS_H

/* PriorityParameters=budget_conf=PATH, else budget.conf beside slurm.conf.
 * xmalloc'ed: the caller xfree()s it. */
extern char *budget_conf_path(void);

/* StateSaveLocation/budget_ledger, or NULL when StateSaveLocation is
 * /dev/null (nothing is kept). xmalloc'ed: the caller xfree()s it. */
extern char *budget_ledger_path(void);

#endif
