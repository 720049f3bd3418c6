/*****************************************************************************\
 *  project_accounts.c - the budget.conf projects Slurm has no account for
 *  (see project_accounts.h).
\*****************************************************************************/

#include "config.h"

#include "slurm/slurm.h"

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"

#include "project_accounts.h"

/* The plugin's name in its log lines (priority_budget.c). */
extern const char plugin_type[];

static void _log_project_without_account(const char *account, void *arg)
{
	(void) arg;
	error("%s: project %s has no Slurm account: no job can use its credit "
	      "(sacctmgr add account %s, or correct its Project= line)",
	      plugin_type, account, account);
}

extern bool report_projects_without_account(budget_engine *engine, time_t now)
{
	ListIterator itr;
	slurmdb_assoc_rec_t *assoc;
	const char **accounts;
	size_t cnt = 0;
	budget_error err;

	if (!assoc_mgr_assoc_list)
		return false;
	/* An account's own row has no user; its users' rows repeat its name. */
	accounts = xcalloc((size_t) list_count(assoc_mgr_assoc_list) + 1,
			   sizeof(*accounts));
	itr = list_iterator_create(assoc_mgr_assoc_list);
	while ((assoc = list_next(itr)))
		if (!assoc->user && assoc->acct)
			accounts[cnt++] = assoc->acct;
	list_iterator_destroy(itr);

	if (cnt <= 1) {	/* root alone: nothing to compare with yet */
		xfree(accounts);
		return false;
	}
	if (budget_engine_projects_without_account(engine, accounts, cnt, now,
						   _log_project_without_account,
						   NULL, &err))
		error("%s: accounts not checked: %s", plugin_type, err.text);
	xfree(accounts);
	return true;
}
