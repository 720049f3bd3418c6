/*****************************************************************************\
 *  partition_roles.c - each partition's role in budget.conf as
 *  priority/budget's ranking walk asked it (see partition_roles.h).
\*****************************************************************************/

#include "config.h"

#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "partition_roles.h"

/* More partitions than a site has; beyond them the engine is asked. */
#define ROLES_CNT 16

static char *names[ROLES_CNT];
static budget_partition_role roles[ROLES_CNT];
static int roles_cnt = 0;

extern void partition_roles_keep(const char *name, budget_partition_role role)
{
	budget_partition_role known;

	if (!name || (roles_cnt >= ROLES_CNT) ||
	    partition_roles_find(name, &known))
		return;
	names[roles_cnt] = xstrdup(name);
	roles[roles_cnt] = role;
	roles_cnt++;
}

extern bool partition_roles_find(const char *name, budget_partition_role *role)
{
	int i;

	if (!name)
		return false;
	for (i = 0; i < roles_cnt; i++) {
		if (!xstrcmp(names[i], name)) {
			*role = roles[i];
			return true;
		}
	}
	return false;
}

extern void partition_roles_forget(void)
{
	int i;

	for (i = 0; i < roles_cnt; i++)
		xfree(names[i]);
	roles_cnt = 0;
}
