/* Loads one of our plugins the way a Slurm process does and checks what Slurm checks.
 *
 * Usage: plugin_load_test PATH_TO_priority_budget.so
 *        plugin_load_test PATH_TO_PLUGIN.so PLUGIN_TYPE API_SYMBOL...
 *        (e.g. job_submit_budget.so job_submit/budget job_submit job_modify: the two symbols
 *        src/slurmctld/job_submit.c resolves)
 * Reads slurm.conf like sshare (SLURM_CONF), then calls Slurm's own plugin_load_from_file()
 * from the installed libslurmfull.so: that dlopen()s the file lazily, verifies plugin_name,
 * plugin_type and plugin_version, and runs init(). This process is not slurmctld, so init()
 * must succeed without the controller's globals and locks. The load itself proves that
 * plugin_version passed libslurmfull's own check; the test also compares it with
 * BUDGET_INSTALLED_SLURM_VERSION (the installed package's version, from dpkg at configure
 * time), checks the plugin type (default priority/budget), that every API symbol resolves
 * (default: the six priority_p_* functions), and unloads (fini()).
 * Exits 0 when every check passes, 1 otherwise, printing one line per failed check. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "src/common/log.h"
#include "src/common/plugin.h"
#include "src/common/read_config.h"

/* The six API functions src/common/slurm_priority.c resolves, in its order. */
static const char *priority_api[] = {
	"priority_p_set",
	"priority_p_reconfig",
	"priority_p_set_assoc_usage",
	"priority_p_calc_fs_factor",
	"priority_p_get_priority_factors_list",
	"priority_p_job_end",
};
enum { kPriorityApiCount = sizeof(priority_api) / sizeof(priority_api[0]) };

static int failures;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "FAIL: %s\n", what);
		failures++;
	}
}

int main(int argc, char **argv)
{
	log_options_t log_opts = LOG_OPTS_STDERR_ONLY;
	plugin_handle_t plugin = PLUGIN_INVALID_HANDLE;
	plugin_err_t rc;
	const char *want_type = "priority/budget";
	const char **api_names = priority_api;
	int api_count = kPriorityApiCount;
	void *api[64];
	const uint32_t installed = BUDGET_INSTALLED_SLURM_VERSION;
	uint32_t version;
	const char *type;
	int resolved;

	if ((argc != 2) && ((argc < 4) || (argc - 3 > 64))) {
		fprintf(stderr, "usage: %s PATH_TO_PLUGIN.so [PLUGIN_TYPE API_SYMBOL...]\n",
			argv[0]);
		return 2;
	}
	if (argc > 2) {
		want_type = argv[2];
		api_names = (const char **) &argv[3];
		api_count = argc - 3;
	}
	log_init(argv[0], log_opts, 0, NULL);
	/* As sshare does before it can call priority_g_calc_fs_factor(). */
	if (slurm_conf_init(NULL) != SLURM_SUCCESS) {
		fprintf(stderr, "FAIL: cannot read slurm.conf (SLURM_CONF=%s)\n",
			getenv("SLURM_CONF") ? getenv("SLURM_CONF") : "unset");
		return 1;
	}

	rc = plugin_load_from_file(&plugin, argv[1]);
	if (rc != EPLUGIN_SUCCESS) {
		fprintf(stderr, "FAIL: plugin_load_from_file(%s): %s\n", argv[1],
			plugin_strerror(rc));
		return 1;
	}

	type = plugin_get_type(plugin);
	check(type && !strcmp(type, want_type), "plugin_type is the expected one");
	if (type)
		printf("plugin_type    %s\n", type);

	version = plugin_get_version(plugin);
	printf("plugin_version 0x%06x (installed Slurm 0x%06x, headers 0x%06x)\n",
	       (unsigned) version, (unsigned) installed,
	       (unsigned) SLURM_VERSION_NUMBER);
	check(version == installed,
	      "plugin_version equals the installed Slurm's version");
	check(installed == SLURM_VERSION_NUMBER,
	      "the configured headers match the installed Slurm");

	resolved = plugin_get_syms(plugin, api_count, api_names, api);
	printf("API symbols    %d of %d resolved\n", resolved, api_count);
	for (int i = 0; i < api_count; i++) {
		if (!api[i]) {
			fprintf(stderr, "FAIL: %s does not resolve\n", api_names[i]);
			failures++;
		}
	}

	plugin_unload(plugin);
	slurm_conf_destroy();
	log_fini();
	if (failures)
		return 1;
	printf("OK: loaded through Slurm's plugin loader\n");
	return 0;
}
