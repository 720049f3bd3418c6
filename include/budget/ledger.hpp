// The usage ledger: GPU-seconds charged per project, user, project month and role.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budget/calendar.hpp"
#include "budget/civil_date.hpp"
#include "budget/partition.hpp"
#include "budget/result.hpp"
#include "budget/schedule.hpp"
#include "budget/units.hpp"
#include "budget/user_table.hpp"

namespace budget {

// What the ledger needs to know of a project (built from budget.conf).
struct ProjectTerms {
  std::string account;       // the Slurm account
  GpuSeconds credit = 0;     // C, > 0
  ProjectCalendar calendar;  // start, D months, end

  // One month of credit, C / D rounded down to a GPU-second: the `low`
  // allowance of policy.md §4.
  GpuSeconds MonthlyBudget() const;
};

// Usage of one project or one user, in GPU-seconds, by project month:
//   [0]      the preparatory period (before the start): recorded, not charged;
//   [1..D]   the project's months;
//   [D+1]    from the end on (a job running past the end): recorded, not charged
//            to any month of the schedule.
// The vectors grow on demand; a month past the end of a vector has usage 0.
// All amounts are >= 0.
struct Usage {
  std::vector<GpuSeconds> budgeted;  // in partitions of role kBudgeted
  std::vector<GpuSeconds> low;       // in partitions of role kLow
  // Fair-share usage: every GPU-second accrued (budgeted, low and preparatory
  // alike), decayed by Ledger::DecayTo. >= 0, finite.
  double decayed = 0.0;

  GpuSeconds Budgeted(int month) const;  // 0 outside the vector
  GpuSeconds Low(int month) const;       // 0 outside the vector
  // Low usage charged to the low allowance: months >= 1 (the whole life of the
  // project; preparatory usage is not charged, whatever its partition).
  GpuSeconds LowCharged() const;
  // Month 0, both roles.
  GpuSeconds Preparatory() const;
  // Every month, both roles.
  GpuSeconds Total() const;

  friend bool operator==(const Usage&, const Usage&) = default;
};

// A user's usage in one project, with the fractions Accrue has not yet charged.
struct UserUsage : Usage {
  // Thousandths of a GPU-second billed by Accrue but not yet a whole
  // GPU-second, indexed by PartitionRole (kBudgeted = 0, kLow = 1). In [0, 1000).
  std::array<std::int64_t, 2> carry_milli{};

  friend bool operator==(const UserUsage&, const UserUsage&) = default;
};

// A project's record. Invariant (checked by Ledger::Restore, kept by every
// operation): for every month and role, `total` equals the sum over `users`.
// total.decayed equals the users' sum up to floating-point rounding.
struct ProjectUsage {
  Usage total;
  // Months 1..closed_months have been closed by CloseMonths. 0..D.
  int closed_months = 0;
  UserTable<UserUsage> users;

  friend bool operator==(const ProjectUsage&, const ProjectUsage&) = default;
};

// Project months `first` to `last`, both included; empty when last < first.
struct MonthRange {
  int first = 0;
  int last = -1;

  bool empty() const { return last < first; }
  // Whether any of these months is in [from, to].
  bool Overlaps(int from, int to) const { return std::max(first, from) <= std::min(last, to); }
};

// One month closed by Ledger::CloseMonths.
struct ClosedMonth {
  std::string account;
  int month = 0;  // 1..D
  MonthRow row;   // closed: used, lost, graced, remaining
};

// The usage ledger of every project. A value type: copy it, compare it, save
// it with state_file.hpp. Projects are created on first use (Accrue, Record,
// CloseMonths); users likewise.
//
// Late usage: usage may arrive for a month that is already closed (a tick
// accrued after CloseMonths). It is kept in that month, as policy.md §2 wants,
// and the schedule, a replay of the ledger, re-evaluates that month: nothing is
// lost or counted twice, but a ClosedMonth row reported earlier is then stale.
// To avoid that, accrue up to `now` before calling CloseMonths(now).
class Ledger {
 public:
  Ledger() = default;

  // Rebuilds a ledger from saved records (the state file). Checks every
  // invariant and says which one fails: amounts >= 0, carries in [0, 1000),
  // decayed usage finite and >= 0, closed_months >= 0, project totals equal to
  // the sum over users for every month and role.
  static Result<Ledger> Restore(std::map<std::string, ProjectUsage, std::less<>> projects,
                                std::optional<UnixTime> decayed_at);

  // Charges `nodes` nodes of `partition` over [from, to) to the project and
  // the user: usage in a kLow partition goes to the low usage, any other to
  // the budgeted usage. [from, to) is split at the project's month boundaries
  // (SplitByProjectMonth, midnight of the 1st in `zone`).
  //
  // Rounding rule (no fraction lost across many ticks): each slice bills
  // nodes x seconds x partition.rate thousandths of a GPU-second. The
  // thousandths are added to the user's carry for that role
  // (UserUsage::carry_milli); the whole GPU-seconds of the sum are charged to
  // the slice's month and the rest, < 1000, stays in the carry for the next
  // accrual. So the total charged for a user and role is always exactly
  // floor(sum of node-seconds x rate / 1000): 3600 ticks of 1 node-second at
  // 0.25 GPUh per node-hour charge 900 GPU-seconds, as one tick of 3600 does.
  // With an empty carry one accrual charges exactly Bill(node_seconds, rate).
  // The project is charged exactly what its users are charged.
  //
  // The whole GPU-seconds also add to the fair-share (decayed) usage of the
  // project and the user. Nothing happens when nodes <= 0, to <= from or
  // partition.rate <= 0 (such a partition bills nothing).
  //
  // Returns the project months [from, to) was split into: the only months
  // whose usage may have changed (none when nothing happens).
  MonthRange Accrue(const ProjectTerms& terms, const TimeZone& zone, std::string_view user,
                    const PartitionRate& partition, std::int64_t nodes, UnixTime from, UnixTime to);
  // The same into `found`, what Find(terms.account) returned (nullptr: the
  // record is created): without looking the project up by name again, for a
  // caller that keeps its projects' records (Engine, at each running job of a
  // pass).
  MonthRange Accrue(const ProjectUsage* found, const ProjectTerms& terms, const TimeZone& zone,
                    std::string_view user, const PartitionRate& partition, std::int64_t nodes,
                    UnixTime from, UnixTime to);

  // Adds `amount` GPU-seconds (>= 0) of `role` usage to project month `month`
  // (>= 0, see Usage) of the project and the user: the usage-import path.
  // Imported usage has no time of its own (whole calendar months), so it is
  // not added to the fair-share (decayed) usage; an importer that can
  // estimate its weight adds it with AddDecayed. Creates the project and the
  // user even when amount is 0.
  void Record(std::string_view account, std::string_view user, int month, PartitionRole role,
              GpuSeconds amount);

  // Adds `amount` (>= 0, finite) to the fair-share (decayed) usage of the
  // project and the user, creating them: the import path's estimate of what
  // imported months would weigh now (the charged usage is not touched).
  void AddDecayed(std::string_view account, std::string_view user, double amount);

  // Multiplies every decayed usage by 2^(-(now - last) / half_life_seconds),
  // `last` being the time of the previous call, then remembers `now`.
  // The first call only remembers `now` (usage before it is not decayed).
  // half_life_seconds <= 0: no decay (the time is still remembered).
  // now <= last (the clock went back): nothing changes, `last` stays.
  void DecayTo(UnixTime now, std::int64_t half_life_seconds);

  // Closes, for each project in `projects` in that order, every month m not
  // yet closed whose end, midnight in `zone` of calendar.MonthStart(m + 1),
  // is <= now, in month order: after a downtime several months close at once.
  // Each closed month is replayed through budget::Schedule with the budgeted
  // usage of that month and returned. Calling it again changes nothing and
  // returns nothing. Projects of the ledger not in `projects` are left alone.
  // A project with no usage yet is created (its months close with used 0).
  std::vector<ClosedMonth> CloseMonths(const std::vector<ProjectTerms>& projects,
                                       const TimeZone& zone, UnixTime now);

  // The project's schedule: a Schedule(terms.credit, D) with months
  // 1..min(closed_months, D) closed with their budgeted usage. An unknown
  // project has no closed month.
  Schedule ScheduleOf(const ProjectTerms& terms) const;

  // nullptr when the account has never been seen.
  const ProjectUsage* Find(std::string_view account) const;
  // Every project, by account; each with its users by name.
  const std::map<std::string, ProjectUsage, std::less<>>& projects() const { return projects_; }
  // The time of the last DecayTo; nullopt before the first.
  std::optional<UnixTime> decayed_at() const { return decayed_at_; }

  friend bool operator==(const Ledger&, const Ledger&) = default;

 private:
  ProjectUsage& ProjectOf(std::string_view account);
  static UserUsage& UserOf(ProjectUsage& project, std::string_view user);
  // Adds whole GPU-seconds to one month and role of the project and the user.
  static void Charge(ProjectUsage& project, UserUsage& user, int month, PartitionRole role,
                     GpuSeconds amount);

  std::map<std::string, ProjectUsage, std::less<>> projects_;
  std::optional<UnixTime> decayed_at_;
};

// A project's position at `now` (what sshare, sprio and sbudget show).
struct ProjectStatus {
  ProjectState state = ProjectState::kPreparatory;
  int month = 0;  // 0 before the start, 1..D, D+1 from the end on
  // The open month when month is 1..D (ideal, expected, minimal); a default
  // MonthRow (month 0) otherwise.
  MonthRow open;
  GpuSeconds used_this_month = 0;  // budgeted usage of `month` when 1..D, else 0
  GpuSeconds outstanding = 0;      // open.expected - used_this_month when 1..D, else 0
  // Before the start: credit. 1..D: credit - accounted(month - 1) -
  // used_this_month. From the end on: credit - accounted(D). May be negative.
  GpuSeconds remaining = 0;
  GpuSeconds low_allowance = 0;     // MonthlyBudget()
  GpuSeconds low_used = 0;          // Usage::LowCharged()
  GpuSeconds preparatory_used = 0;  // Usage::Preparatory()
  double decayed_usage = 0.0;       // the project's fair-share usage
};

// The status of a project at `now`:
//   month 0                      -> kPreparatory
//   month D+1                    -> kEnded
//   else remaining <= 0 and low_used >= low_allowance -> kBlocked
//   else remaining <= 0          -> kLow
//   else                         -> kActive (whatever its low usage)
// Precondition: the months ended before `now` are closed (CloseMonths ran),
// so that the status and ScheduleOf agree. The status itself replays months
// 1..month-1 from the recorded usage, so it is right even when they are not,
// and when the clock went back behind the last closed month.
// An account the ledger has never seen has no usage.
ProjectStatus StatusOf(const Ledger& ledger, const ProjectTerms& terms, const TimeZone& zone,
                       UnixTime now);
// The same from the project's record, found beforehand (Ledger::Find; nullptr
// when the ledger has none): for callers that look a project up once and ask
// for its status every pass.
ProjectStatus StatusOf(const ProjectUsage* project, const ProjectTerms& terms, const TimeZone& zone,
                       UnixTime now);

// What StatusOf reads of a project's usage at one project month, its replay of
// the months before included: the whole status but the decayed usage. The
// decayed usage changes every pass; this changes only when the project is
// charged or its month turns, so Engine keeps one a project and replays only
// the projects charged since the last pass.
struct UsageSummary {
  int month = 0;                    // ProjectStatus::month
  GpuSeconds accounted = 0;         // accounted(min(month - 1, D)); 0 before the start
  GpuSeconds used_this_month = 0;   // ProjectStatus::used_this_month
  GpuSeconds low_used = 0;          // Usage::LowCharged()
  GpuSeconds preparatory_used = 0;  // Usage::Preparatory()

  // ProjectStatus::remaining: the credit before the start; after, the credit
  // less what the months before `month` accounted and `month` used.
  GpuSeconds Remaining(GpuSeconds credit) const {
    return month <= 0 ? credit : credit - accounted - used_this_month;
  }
};

// The summary of `project` (nullptr: no usage) at project month `month`,
// terms.calendar.MonthAt of the day.
UsageSummary SummaryOf(const ProjectUsage* project, const ProjectTerms& terms, int month);
// `summary` after Ledger::Accrue charged `project` in the months `charged`:
// SummaryOf(&project, terms, summary.month), read from the usage vectors
// Accrue has just written, or nullopt when a month the summary replayed
// (1 to summary.month - 1, the last month at most) was charged: then only a
// replay tells.
std::optional<UsageSummary> SummaryAfterCharge(const UsageSummary& summary,
                                               const ProjectUsage& project,
                                               const ProjectTerms& terms, MonthRange charged);
// The status a summary of `project` (nullptr: no record yet) stands for, with
// the project's decayed usage: StatusOf is StatusOf(SummaryOf(...), ...).
ProjectStatus StatusOf(const UsageSummary& summary, const ProjectTerms& terms,
                       const ProjectUsage* project);

}  // namespace budget
