/*****************************************************************************\
 *  budget_paths.c - where both budget plugins find budget.conf and the ledger:
 *  priority/budget writes the ledger that job_submit/budget reads, so the two
 *  must agree on the paths.
\*****************************************************************************/

#include "config.h"

#include <string.h>

#include "slurm/slurm.h"

#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "budget_paths.h"

#define LEDGER_FILE "budget_ledger"

extern char *budget_conf_path(void)
{
	char *path = NULL, *slash;
	const char *key = "budget_conf=";
	char *params = slurm_conf.priority_params;
	char *found = params ? strstr(params, key) : NULL;

	if (found) {
		path = xstrdup(found + strlen(key));
		if ((slash = strchr(path, ',')))
			*slash = '\0';
		return path;
	}
	path = xstrdup(slurm_conf.slurm_conf ? slurm_conf.slurm_conf :
		       "/etc/slurm/slurm.conf");
	if ((slash = strrchr(path, '/')))
		slash[1] = '\0';
	else
		xfree(path);
	xstrcat(path, "budget.conf");
	return path;
}

extern char *budget_ledger_path(void)
{
	char *path = NULL;

	if (slurm_conf.state_save_location &&
	    xstrcmp(slurm_conf.state_save_location, "/dev/null"))
		xstrfmtcat(path, "%s/%s", slurm_conf.state_save_location,
			   LEDGER_FILE);
	return path;
}
