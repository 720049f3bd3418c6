/*****************************************************************************\
 *  controller_globals.h - the slurmctld globals our plugins read, bound
 *  weakly.
 *
 *  Inside slurmctld they resolve to the executable's variables. In another
 *  process that loads a plugin of ours (sshare loads priority/budget for
 *  priority_p_calc_fs_factor; tests/plugin loads both) their addresses are
 *  NULL, and the plugin runs in client mode or does nothing. Defining
 *  fallback copies instead would break under -Bsymbolic or hidden visibility
 *  (facts §7.5).
\*****************************************************************************/

#ifndef BUDGET_SLURM_CONTROLLER_GLOBALS_H
#define BUDGET_SLURM_CONTROLLER_GLOBALS_H

#include "src/slurmctld/slurmctld.h"

extern List job_list __attribute__((weak));
extern time_t last_job_update __attribute__((weak));
extern uint32_t cluster_cpus __attribute__((weak));
extern int slurmctld_tres_cnt __attribute__((weak));
extern uint16_t accounting_enforce __attribute__((weak));
extern void *acct_db_conn __attribute__((weak));
extern part_record_t *default_part_loc __attribute__((weak));

#endif
