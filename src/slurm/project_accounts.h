/*****************************************************************************\
 *  project_accounts.h - the budget.conf projects Slurm has no account for.
 *
 *  A Project= line whose name is mistyped, or whose account was never added
 *  with sacctmgr, is a credit no job can use: with
 *  AccountingStorageEnforce=associations (as slurm.conf.example sets) Slurm
 *  refuses every job of an account it does not know.
 *  Nothing else would say so; the first pass after budget.conf is loaded (at
 *  start and at every reload) logs each such project once.
\*****************************************************************************/

#ifndef BUDGET_SLURM_PROJECT_ACCOUNTS_H
#define BUDGET_SLURM_PROJECT_ACCOUNTS_H

#include <stdbool.h>
#include <time.h>

#include "budget/budget.h"

/* Logs each project of budget.conf, not ended at `now`, that has no account
 * in assoc_mgr. False, logging nothing, while assoc_mgr knows no account but
 * root (slurmdbd not reached yet, no cache): ask again at the next pass.
 * Caller holds assoc{R assoc}. */
extern bool report_projects_without_account(budget_engine *engine, time_t now);

#endif
