// Admission: may a project's job start in the partitions it asks for, and what is it told.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "budget/calendar.hpp"
#include "budget/civil_date.hpp"
#include "budget/config.hpp"
#include "budget/ledger.hpp"
#include "budget/units.hpp"

namespace budget {

// The lifecycle rules (policy.md §1 and §4, docs/lifecycle.md), one verdict
// per (account, partitions, instant). The same verdict serves the submit
// check (job_submit/budget: allow, redirect or reject with a message) and the
// periodic check of pending jobs (priority/budget: a job whose verdict is not
// kAllow is held with hold_reason; it is released when the verdict is kAllow
// again).
//
//   account                         partitions asked for      verdict
//   no Project= line, Unbudgeted=allow   any                  kAllow
//   no Project= line, Unbudgeted=reject  any                  kReject   kUnbudgetedAccount
//   preparatory                     any                       kAllow (message: starts on ...)
//   active                          any                       kAllow
//   low (credit used up)            none of role budgeted     kAllow
//   low, CreditUsedUp=redirect      some of role budgeted     kRedirect kCreditUsedUp
//   low, CreditUsedUp=reject        some of role budgeted     kReject   kCreditUsedUp
//   blocked (low allowance used)    any                       kReject   kLowAllowanceUsed
//   ended                           any                       kReject   kEnded
//
// Partitions not declared in budget.conf are not billed: a project in `low`
// may still use them; blocked and ended projects may not start anything.
enum class AdmissionAction {
  kAllow,     // as asked
  kRedirect,  // run in Admission::partitions instead
  kReject,    // refused; Admission::message says why
};

enum class AdmissionCause {
  kNone,               // allowed as asked
  kUnbudgetedAccount,  // the account has no Project= line (or there is no account)
  kCreditUsedUp,       // project in `low`, the job asks for a budgeted partition
  kLowAllowanceUsed,   // project blocked: credit and low allowance used up
  kEnded,              // project past its end: no compute
};

const char* ToString(AdmissionAction action);  // "allow", "redirect", "reject"
const char* ToString(AdmissionCause cause);    // "none", "unbudgeted-account", ...

// Every hold reason starts with this prefix: it is how priority/budget tells
// its own holds from an administrator's (docs/lifecycle.md).
inline constexpr std::string_view kHoldReasonPrefix = "budget: ";

struct AdmissionRequest {
  std::string account;  // the Slurm account; "" when the job has none
  // The partitions the job may run in, in the order asked (a job may name
  // several); empty when unknown. Names match budget.conf exactly.
  std::vector<std::string> partitions;
  // The job, named in hold_reason's hints ("scontrol update JobId=N ...");
  // 0 for a submission that is not yet a job.
  std::uint32_t job_id = 0;
};

struct Admission {
  AdmissionAction action = AdmissionAction::kAllow;
  AdmissionCause cause = AdmissionCause::kNone;
  // kRedirect: the partitions to run in, in order: the asked list with every
  // budgeted partition replaced by the low partition (once). Else the asked
  // partitions unchanged.
  std::vector<std::string> partitions;
  // For the user at submit (sbatch, srun, salloc print it): why a job is
  // refused or moved, or a note (a preparatory project's start). One line,
  // no trailing newline; empty for a plain kAllow.
  std::string message;
  // For a pending job whose verdict is not kAllow: the reason squeue shows,
  // starting with kHoldReasonPrefix. Empty for kAllow.
  std::string hold_reason;

  // The project's facts behind the verdict (for logs and tools); the rest
  // is left at its default when has_project is false (no Project= line).
  bool has_project = false;
  ProjectState state = ProjectState::kActive;
  CivilDate last_day;          // last day of compute (ProjectCalendar::last_day)
  CivilDate storage_last_day;  // last day storage is readable: end + 90 days, inclusive
  GpuSeconds remaining = 0;    // ProjectStatus::remaining
  GpuSeconds low_used = 0;     // ProjectStatus::low_used
  GpuSeconds low_allowance = 0;
};

// The verdict for a job of `request.account` at `now`.
//   spec:   the account's Project= line; nullptr when it has none.
//   status: the project's status at `now` (StatusOf); read only when spec is
//           not nullptr, and then required.
//   zone:   where dates are shown (the controller's local time).
// Pure: same inputs, same verdict; no error case.
Admission Admit(const BudgetConfig& config, const ProjectSpec* spec, const ProjectStatus* status,
                const TimeZone& zone, UnixTime now, const AdmissionRequest& request);

// "normal,low" -> {"normal", "low"}: Slurm's comma-separated partition list;
// spaces around names trimmed, empty items dropped.
std::vector<std::string> SplitPartitionList(std::string_view list);
// {"normal", "low"} -> "normal,low".
std::string JoinPartitionList(const std::vector<std::string>& partitions);

// A project's state changes as time passes and usage accrues; the engine
// logs each change it observes (Engine::Advance). For tests and logs.
struct StateChange {
  std::string account;
  ProjectState from;
  ProjectState to;
};

}  // namespace budget
