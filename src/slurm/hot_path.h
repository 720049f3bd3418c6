/*****************************************************************************\
 *  hot_path.h - BUDGET_HOT, for the functions a new job's priority runs.
 *
 *  A new job's priority (priority_p_set) runs on the caches its submission
 *  RPC has cooled, where each page of code it touches costs a TLB and cache
 *  miss. Its functions in the plugin and the core's it calls ([[gnu::hot]]
 *  there) go to .text.hot, which the linker lays out in one run: 3 pages
 *  instead of about 10 (docs/performance-log.md, run 37). A function added
 *  to that path and left out of .text.hot adds a page of its own.
\*****************************************************************************/

#ifndef BUDGET_SLURM_HOT_PATH_H
#define BUDGET_SLURM_HOT_PATH_H

#define BUDGET_HOT __attribute__((hot))

#endif
