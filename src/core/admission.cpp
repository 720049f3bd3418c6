// Admission verdicts and the messages users see at submit and in squeue.
#include "budget/admission.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace budget {

namespace {

std::string Quoted(const std::vector<std::string>& partitions) {
  return (partitions.size() == 1 ? "partition " : "partitions ") + JoinPartitionList(partitions);
}

// The last day storage stays readable: the end plus 90 days, counted from
// the first day without compute (calendar.hpp: storage_until is exclusive).
CivilDate LastStorageDay(const ProjectCalendar& calendar) {
  return AddDays(calendar.storage_until(), -1);
}

// GPU hours rounded down to a tenth: 9,999.99 of 10,000 must not read as all of it.
std::string TenthsDown(GpuSeconds s) {
  constexpr GpuSeconds kTenth = kGpuSecondsPerGpuHour / 10;
  return FormatGpuHours(s >= 0 ? s - s % kTenth : s);
}

std::string AllowanceUsed(const ProjectStatus& status) {
  return TenthsDown(status.low_used) + " of " + TenthsDown(status.low_allowance) + " GPUh used";
}

Admission Allow(const AdmissionRequest& request, std::string message = {}) {
  Admission a;
  a.partitions = request.partitions;
  a.message = std::move(message);
  return a;
}

Admission Refuse(const AdmissionRequest& request, AdmissionCause cause, std::string message,
                 std::string hold_reason) {
  Admission a;
  a.action = AdmissionAction::kReject;
  a.cause = cause;
  a.partitions = request.partitions;
  a.message = std::move(message);
  a.hold_reason = std::string(kHoldReasonPrefix) + std::move(hold_reason);
  return a;
}

Admission Unbudgeted(const BudgetConfig& config, const AdmissionRequest& request) {
  if (config.unbudgeted_accounts == BudgetConfig::UnbudgetedAction::kAllow) {
    return Allow(request);
  }
  if (request.account.empty()) {
    return Refuse(request, AdmissionCause::kUnbudgetedAccount,
                  "job refused: it has no account, and only accounts with a GPU-hour budget may "
                  "run jobs here. Submit with the account of your project (-A PROJECT).",
                  "the job has no account; only projects with a budget may run jobs");
  }
  return Refuse(request, AdmissionCause::kUnbudgetedAccount,
                "job refused: account " + request.account +
                    " has no GPU-hour budget (it is not a project in budget.conf), and accounts "
                    "without a budget may not run jobs here. Submit with the account of your "
                    "project (-A PROJECT).",
                "account " + request.account + " has no budget; its jobs may not run");
}

Admission Ended(const ProjectSpec& spec, const TimeZone& zone, UnixTime now,
                const AdmissionRequest& request) {
  const CivilDate today = zone.DateAt(now);
  const CivilDate last_storage = LastStorageDay(spec.calendar);
  const std::string storage = today <= last_storage ? "Its storage stays readable until "
                                                    : "Its storage was readable until ";
  return Refuse(request, AdmissionCause::kEnded,
                "job refused: project " + spec.account + " ended on " +
                    FormatCivilDate(spec.calendar.last_day()) +
                    " (its last day of compute): compute is no longer available. " + storage +
                    FormatCivilDate(last_storage) + " included (90 days after the end).",
                "project " + spec.account + " ended on " +
                    FormatCivilDate(spec.calendar.last_day()) +
                    "; its jobs can no longer start (scancel this job)");
}

Admission Blocked(const ProjectSpec& spec, const ProjectStatus& status,
                  const AdmissionRequest& request) {
  return Refuse(request, AdmissionCause::kLowAllowanceUsed,
                "job refused: project " + spec.account + " has used its credit (" +
                    FormatGpuHours(spec.credit) + " GPUh) and its whole low allowance (" +
                    AllowanceUsed(status) +
                    "): it can no longer start jobs. Running jobs are not affected.",
                "project " + spec.account + " used its credit and its low allowance (" +
                    AllowanceUsed(status) + "); no job can start");
}

Admission CreditUsedUp(const BudgetConfig& config, const ProjectSpec& spec,
                       const ProjectStatus& status, const AdmissionRequest& request) {
  std::vector<std::string> budgeted;
  std::vector<std::string> redirected;
  for (const std::string& name : request.partitions) {
    const PartitionRate* rate = config.FindPartition(name);
    const bool is_budgeted = rate != nullptr && rate->role == PartitionRole::kBudgeted;
    const std::string& target = is_budgeted ? config.low_partition : name;
    if (is_budgeted) {
      budgeted.push_back(name);
    }
    if (std::find(redirected.begin(), redirected.end(), target) == redirected.end()) {
      redirected.push_back(target);
    }
  }
  if (budgeted.empty()) {
    return Allow(request);  // low, or partitions budget.conf does not bill
  }

  const std::string low = config.low_partition;
  const std::string used_up =
      "project " + spec.account + " has used its credit (" + FormatGpuHours(spec.credit) + " GPUh)";
  Admission a;
  a.cause = AdmissionCause::kCreditUsedUp;
  a.hold_reason = std::string(kHoldReasonPrefix) + used_up + "; " + Quoted(budgeted) +
                  (budgeted.size() == 1 ? " is" : " are") + " closed to it: " +
                  (request.job_id != 0 ? "scontrol update JobId=" + std::to_string(request.job_id) +
                                             " Partition=" + low
                                       : "move the job to partition " + low) +
                  ", or scancel it";
  if (config.credit_used_up == BudgetConfig::CreditUsedUpAction::kRedirect) {
    a.action = AdmissionAction::kRedirect;
    a.partitions = std::move(redirected);
    a.message = used_up + ": this job runs in partition " + low + " instead of " +
                JoinPartitionList(budgeted) + ". In " + low +
                " jobs run at the lowest priority, on nodes no other project needs, up to the "
                "low allowance (" +
                AllowanceUsed(status) + ").";
    return a;
  }
  a.action = AdmissionAction::kReject;
  a.partitions = request.partitions;
  a.message = "job refused: " + used_up + ", so " + Quoted(budgeted) +
              (budgeted.size() == 1 ? " is" : " are") + " closed to it. Submit to partition " +
              low + " (-p " + low +
              "): jobs there run at the lowest priority, on nodes no other "
              "project needs, up to the low allowance (" +
              AllowanceUsed(status) + ").";
  return a;
}

}  // namespace

const char* ToString(AdmissionAction action) {
  switch (action) {
    case AdmissionAction::kAllow:
      return "allow";
    case AdmissionAction::kRedirect:
      return "redirect";
    case AdmissionAction::kReject:
      return "reject";
  }
  return "?";
}

const char* ToString(AdmissionCause cause) {
  switch (cause) {
    case AdmissionCause::kNone:
      return "none";
    case AdmissionCause::kUnbudgetedAccount:
      return "unbudgeted-account";
    case AdmissionCause::kCreditUsedUp:
      return "credit-used-up";
    case AdmissionCause::kLowAllowanceUsed:
      return "low-allowance-used";
    case AdmissionCause::kEnded:
      return "ended";
  }
  return "?";
}

namespace {

Admission Verdict(const BudgetConfig& config, const ProjectSpec* spec, const ProjectStatus* status,
                  const TimeZone& zone, UnixTime now, const AdmissionRequest& request) {
  if (spec == nullptr || status == nullptr) {
    return Unbudgeted(config, request);
  }
  switch (status->state) {
    case ProjectState::kPreparatory:
      return Allow(request, "project " + spec->account + " starts on " +
                                FormatCivilDate(spec->calendar.start()) +
                                ": until then its jobs run below every started project, and "
                                "their usage is recorded but not charged.");
    case ProjectState::kActive:
      return Allow(request);
    case ProjectState::kLow:
      return CreditUsedUp(config, *spec, *status, request);
    case ProjectState::kBlocked:
      return Blocked(*spec, *status, request);
    case ProjectState::kEnded:
      return Ended(*spec, zone, now, request);
  }
  return Allow(request);
}

}  // namespace

Admission Admit(const BudgetConfig& config, const ProjectSpec* spec, const ProjectStatus* status,
                const TimeZone& zone, UnixTime now, const AdmissionRequest& request) {
  Admission a = Verdict(config, spec, status, zone, now, request);
  if (spec != nullptr && status != nullptr) {
    a.has_project = true;
    a.state = status->state;
    a.last_day = spec->calendar.last_day();
    a.storage_last_day = LastStorageDay(spec->calendar);
    a.remaining = status->remaining;
    a.low_used = status->low_used;
    a.low_allowance = status->low_allowance;
  }
  return a;
}

std::vector<std::string> SplitPartitionList(std::string_view list) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    std::size_t end = list.find(',', begin);
    if (end == std::string_view::npos) {
      end = list.size();
    }
    std::string_view item = list.substr(begin, end - begin);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) {
      item.remove_prefix(1);
    }
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) {
      item.remove_suffix(1);
    }
    if (!item.empty()) {
      out.emplace_back(item);
    }
    begin = end + 1;
  }
  return out;
}

std::string JoinPartitionList(const std::vector<std::string>& partitions) {
  std::string out;
  for (const std::string& p : partitions) {
    if (!out.empty()) {
      out.push_back(',');
    }
    out += p;
  }
  return out;
}

}  // namespace budget
