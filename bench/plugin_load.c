/* plugin_load.c - how long a Slurm client takes to dlopen a priority plugin.
 *
 * Loads the plugin as Slurm's plugin loader does (dlopen, RTLD_LAZY) in a process linked to
 * libslurmfull, which is where a client such as sshare finds the Slurm symbols the plugin
 * refers to. Prints the median of RUNS loads, each in a fresh process (the caller loops), in
 * milliseconds. Used by docs/performance.md; see bench/plugin_load.sh.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec start, end;
	void *handle;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PLUGIN.so\n", argv[0]);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	handle = dlopen(argv[1], RTLD_LAZY);
	clock_gettime(CLOCK_MONOTONIC, &end);
	if (!handle) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	printf("%.3f\n", (double) (end.tv_sec - start.tv_sec) * 1e3 +
			 (double) (end.tv_nsec - start.tv_nsec) / 1e6);
	return 0;
}
