// The input side of a replay: workload traces (SWF, CSV), their projects, and their place in time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budget/calendar.hpp"
#include "budget/civil_date.hpp"
#include "budget/replay.hpp"
#include "budget/result.hpp"
#include "budget/units.hpp"

namespace budget {

// A parsed trace. Its jobs' `submit` is in seconds from the trace's time 0
// (>= 0) until ShiftTrace places them in time; `account` is set only when the
// trace names it (CSV); `partition` is empty (the default budgeted one).
struct Trace {
  std::vector<TraceJob> jobs;  // in file order
  // SWF jobs left out, by reason; each is counted once, under the first reason
  // that applies in this order.
  std::size_t skipped_no_submit = 0;    // submit time < 0 (unknown)
  std::size_t skipped_no_run_time = 0;  // run time < 0 (unknown)
  std::size_t skipped_no_nodes = 0;     // allocated and requested processors both <= 0
  // SWF header comments, when given: `; UnixStartTime: N` (the instant of time 0)
  // and `; MaxNodes: N`, else `; MaxProcs: N`.
  std::optional<UnixTime> unix_start_time;
  std::optional<std::uint32_t> max_nodes;

  std::size_t skipped() const { return skipped_no_submit + skipped_no_run_time + skipped_no_nodes; }
};

// Parses a Standard Workload Format trace (SWF 2.2, the Parallel Workloads
// Archive's): one job a line, 18 whitespace-separated fields, -1 for unknown;
// lines starting with `;` are header comments; blank lines are ignored.
// Fields used:
//   1 job number -> id (unique, >= 0)    2 submit time -> submit (seconds from time 0)
//   4 run time -> run_seconds            5 allocated processors, else 8 requested
//   9 requested time -> limit_seconds       processors (when 5 is <= 0) -> nodes
//  12 user id -> user ("" when -1)      13 group id -> group ("" when -1)
// Processors are taken as whole nodes: on the machines this is meant for
// (the NASA iPSC/860, one processor per node) the two are the same; for a
// trace of multi-core nodes, divide beforehand. The limit is the requested
// time when known, never less than the run time (a job that ran longer than it
// asked was let run), else the run time. Jobs with an unknown submit or run
// time, or with no processor count, are skipped and counted (Trace::skipped_*),
// not an error. The other fields are not read (they may hold decimals).
//
// Errors, every one found, one per line, each `FILE:LINE: field: message`,
// e.g. `nasa.swf:12: run time: must be a whole number, got "1.5"`; a line with
// other than 18 fields, a number out of range, a job number given twice.
// `file_name` only labels the messages.
Result<Trace> ParseSwf(std::string_view text, std::string_view file_name);

// Parses a CSV trace: the header line `submit,nodes,run_seconds,limit_seconds,account,user`
// (exactly these columns in this order), then one job a line:
//   submit         whole seconds from the trace's time 0, >= 0
//   nodes          whole nodes, >= 1
//   run_seconds    whole seconds the job runs, >= 0
//   limit_seconds  its time limit, >= run_seconds; empty: run_seconds
//   account        the project (a Slurm account name), or empty: the mapping decides
//   user           the trace user, any text without a comma (may be empty)
// No quoting; spaces around a value are ignored; blank lines are ignored;
// CR LF line ends are accepted. A job's id is its data row's number (1, 2, ...).
// Errors, every one found, one per line: `FILE:LINE: Column: message`, e.g.
// `jobs.csv:3: nodes: must be a whole number >= 1, got "0"`.
Result<Trace> ParseTraceCsv(std::string_view text, std::string_view file_name);

// Rules giving trace users and groups a project, read from a mapping file:
//   # comment (from `#` to the end of the line)
//   user 17 = chem      every job of trace user 17
//   group 3 = phys      every job of group 3 whose user has no rule
//   * = ops             every other job
// Words are separated by spaces or tabs (around `=` too: `user 17=chem` is
// also accepted). A user's rule wins over its group's, a group's over `*`.
// The account must be a Slurm account name; it need not be in budget.conf
// (an account that is not runs unbudgeted, as budget.conf's
// UnbudgetedAccounts says).
struct ProjectMap {
  std::map<std::string, std::string> by_user;
  std::map<std::string, std::string> by_group;
  std::string fallback;  // the `*` rule; empty: none
};

// Errors, every one found, `FILE:LINE: message`: a line of another form, a bad
// account name, a user, group or `*` given twice.
Result<ProjectMap> ParseProjectMap(std::string_view text, std::string_view file_name);

// Sets the account of every job that has none, by `map`. Jobs that already
// have an account (a CSV trace's) keep it. Error when a job matches no rule:
// `no rule of the mapping gives a project to user 12 (group 1): 40 jobs; add "* = ACCOUNT"`
// (the first such user in trace order, and how many jobs have no project).
Status MapProjects(const ProjectMap& map, std::vector<TraceJob>& jobs);

// The accounts jobs are charged to, sorted, each once.
std::vector<std::string> AccountsOf(const std::vector<TraceJob>& jobs);

// Projects generated for a trace (`sbudget replay --projects N`).
struct GenerateOptions {
  int projects = 0;  // N >= 1, at most the number of distinct users in the trace
  // The date of the trace's time 0. The projects start on the 1st of its month.
  CivilDate start;
  std::uint32_t gpus_per_node = 4;  // > 0: GPUh per node-hour, for demand and billing
  // The cluster's nodes: wider jobs never start, so they are no one's demand.
  // 0: every job counts.
  std::uint32_t max_nodes = 0;
  std::string trace_name;  // for the generated file's comment only
};

struct GeneratedProject {
  std::string account;  // "p01", "p02", ... (two digits at least, as many as N needs)
  ProjectKind kind = ProjectKind::kSmall;
  std::int64_t credit_gpu_hours = 0;     // >= 1
  std::int64_t demand_node_seconds = 0;  // the trace's node-seconds of its users
  std::vector<std::string> users;        // in the order they were dealt (largest first)
};

struct GeneratedProjects {
  std::vector<GeneratedProject> projects;  // p01 first
  // The trace's length: from its first to its last submission, in months of
  // 30.436875 days (a year / 12), rounded to the nearest, at least 1.
  int trace_months = 0;
  std::string config_text;  // a budget.conf declaring them; parses with ParseBudgetConfig
};

// Deals the trace's users out to `options.projects` generated projects and
// sets every job's account (trace accounts are replaced). Deterministic:
//   - users are sorted by their total node-seconds (nodes x run seconds),
//     largest first, ties in the order the users first appear in the trace;
//   - user k (0-based) goes to project k mod N (round-robin), so p01 gets the
//     largest user and projects come out in a spread of sizes, as on a real
//     cluster, rather than all alike;
//   - each project's credit is its users' demand (node-seconds x gpus_per_node,
//     in GPUh, of the jobs no wider than max_nodes) over the trace's months, scaled to the
//     project's duration and rounded up to whole GPUh: credit = ceil(demand x D / trace_months), so
//     the linear line over the trace's months is exactly what its users asked for;
//   - a project is small (6 months) unless that credit exceeds the small
//     guideline (32,000 GPUh) and the projects start on 1 January or 1 July,
//     in which case it is large (12 months, the credit scaled to 12).
// The budget.conf text declares NodeHourPrice for the start year (2.69 CHF,
// display only), a budgeted partition `normal` and the low partition `low`,
// both at gpus_per_node GPUh per node-hour, and one Project= line per project
// (small: Created the day before the start; large: 1 TB and 1,000,000 inodes
// of storage, which a large project must declare; PIs=replay@example.org), each
// after a comment with its users and demand.
// Errors: projects < 1, more projects than users, no job, gpus_per_node = 0.
Result<GeneratedProjects> GenerateProjects(std::vector<TraceJob>& jobs,
                                           const GenerateOptions& options);

// Places the trace in time: every submit += origin (the instant of time 0,
// e.g. TimeZone::MidnightOf(--start)).
void ShiftTrace(std::vector<TraceJob>& jobs, UnixTime origin);

}  // namespace budget
