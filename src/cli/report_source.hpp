// The project reports sbudget shows, from slurmdbd's job records (sacct) or the plugin's ledger.
#pragma once

#include <string>
#include <vector>

#include "budget/civil_date.hpp"
#include "budget/config.hpp"
#include "budget/report.hpp"
#include "budget/units.hpp"

namespace budget::cli {

struct ReportQuery {
  const BudgetConfig* config = nullptr;
  std::vector<const ProjectSpec*> projects;  // the projects to report, in this order
  UnixTime now = 0;                          // usage up to this instant
  TimeZone zone = TimeZone::Local();         // where months begin (the controller's zone)
  // The plugin's ledger file (StateSaveLocation/budget_ledger) to read
  // instead of slurmdbd; empty: slurmdbd's job records through sacct.
  std::string ledger_path;
};

// One report per project of the query, in its order.
//
// From sacct (the default): runs
//   TZ=UTC SLURM_TIME_FORMAT=standard sacct -a -D -X -n -P --noconvert
//     -o JobID,Account,User,Partition,NNodes,Start,End,State
//     -S <midnight of the earliest Created in budget.conf> -E <now> -A <the projects>
// and bills every job as the plugin does (BillJobRecords: node-seconds x the
// partition's rate, split at midnight of the 1st, running jobs up to now).
// The pace is the budgeted usage billed in the kDefaultPaceWindowSeconds
// before now.
//
// From a ledger file: the plugin's own usage; the pace is this month's usage
// so far over the time elapsed in the month.
//
// Fails (one line on stderr, exit 1) when sacct fails, prints what cannot be
// read, or the ledger file cannot be loaded.
std::vector<ProjectReport> LoadReports(const ReportQuery& query);

}  // namespace budget::cli
