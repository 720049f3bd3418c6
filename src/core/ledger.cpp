// The usage ledger: accrual, import, decay, month closing and project status.
#include "budget/ledger.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

#include "budget/billing.hpp"
#include "budget/text.hpp"

namespace budget {
namespace {

constexpr std::int64_t kMilli = 1000;

std::size_t RoleIndex(PartitionRole role) { return role == PartitionRole::kLow ? 1U : 0U; }

GpuSeconds At(const std::vector<GpuSeconds>& v, int month) {
  if (month < 0 || static_cast<std::size_t>(month) >= v.size()) {
    return 0;
  }
  return v[static_cast<std::size_t>(month)];
}

GpuSeconds Sum(const std::vector<GpuSeconds>& v, std::size_t first) {
  GpuSeconds sum = 0;
  for (std::size_t i = first; i < v.size(); ++i) {
    sum += v[i];
  }
  return sum;
}

void AddAt(std::vector<GpuSeconds>& v, int month, GpuSeconds amount) {
  const auto index = static_cast<std::size_t>(month);
  if (v.size() <= index) {
    // Exactly the months used, not vector's doubling: the ledger lives as long
    // as the controller, and a vector grows by at most one month a month.
    v.reserve(index + 1);
    v.resize(index + 1, 0);
  }
  // Saturates: no real usage comes near 2^63 GPU-seconds, but a wrapped sum
  // would turn a huge usage into a negative one.
  if (__builtin_add_overflow(v[index], amount, &v[index])) {
    assert(false && "ledger: usage overflows int64 GPU-seconds");
    v[index] = std::numeric_limits<GpuSeconds>::max();
  }
}

// Replays months 1..months of the recorded budgeted usage.
Schedule Replay(const ProjectTerms& terms, const Usage& usage, int months) {
  Schedule schedule(terms.credit, terms.calendar.months());
  const int last = std::min(months, terms.calendar.months());
  for (int m = 1; m <= last; ++m) {
    [[maybe_unused]] const Status closed = schedule.Close(m, usage.Budgeted(m));
    assert(closed.ok() && "ledger: replaying a month of the schedule failed");
  }
  return schedule;
}

// The same replay when only where it ends is wanted: StatusOf's, every pass
// for every project, without a row kept or a byte allocated.
SchedulePosition PositionAfter(const ProjectTerms& terms, const Usage& usage, int months) {
  SchedulePosition position(terms.credit, terms.calendar.months());
  const int last = std::min(months, terms.calendar.months());
  while (position.closed_months() < last) {
    [[maybe_unused]] const Result<MonthRow> row =
        position.CloseNext(usage.Budgeted(position.closed_months() + 1));
    assert(row.ok() && "ledger: replaying a month of the schedule failed");
  }
  return position;
}

// Checks that `total` equals the sum of the users' vectors, month by month.
Status CheckSums(std::string_view account, std::string_view role,
                 const std::vector<GpuSeconds>& total,
                 const std::vector<const std::vector<GpuSeconds>*>& parts) {
  std::size_t months = total.size();
  for (const auto* part : parts) {
    months = std::max(months, part->size());
  }
  for (std::size_t m = 0; m < months; ++m) {
    GpuSeconds sum = 0;
    for (const auto* part : parts) {
      if (__builtin_add_overflow(sum, At(*part, static_cast<int>(m)), &sum)) {
        return Error{"project " + Quoted(account) + ": " + std::string(role) + " usage of month " +
                     std::to_string(m) + " overflows"};
      }
    }
    const GpuSeconds recorded = At(total, static_cast<int>(m));
    if (sum != recorded) {
      return Error{"project " + Quoted(account) + ": " + std::string(role) + " usage of month " +
                   std::to_string(m) + " is " + std::to_string(recorded) +
                   " GPU-seconds but its users sum to " + std::to_string(sum)};
    }
  }
  return Ok();
}

Status CheckUsage(const std::string& who, const Usage& usage) {
  for (const auto* v : {&usage.budgeted, &usage.low}) {
    for (std::size_t m = 0; m < v->size(); ++m) {
      if ((*v)[m] < 0) {
        return Error{who + ": negative usage " + std::to_string((*v)[m]) + " in month " +
                     std::to_string(m)};
      }
    }
  }
  if (!std::isfinite(usage.decayed) || usage.decayed < 0) {
    return Error{who + ": decayed usage must be finite and >= 0"};
  }
  return Ok();
}

}  // namespace

GpuSeconds ProjectTerms::MonthlyBudget() const { return credit / calendar.months(); }

GpuSeconds Usage::Budgeted(int month) const { return At(budgeted, month); }
GpuSeconds Usage::Low(int month) const { return At(low, month); }
GpuSeconds Usage::LowCharged() const { return Sum(low, 1); }
GpuSeconds Usage::Preparatory() const { return Budgeted(0) + Low(0); }
GpuSeconds Usage::Total() const { return Sum(budgeted, 0) + Sum(low, 0); }

Result<Ledger> Ledger::Restore(std::map<std::string, ProjectUsage, std::less<>> projects,
                               std::optional<UnixTime> decayed_at) {
  for (const auto& [account, project] : projects) {
    const std::string who = "project " + Quoted(account);
    if (project.closed_months < 0) {
      return Error{who + ": negative number of closed months"};
    }
    if (Status s = CheckUsage(who, project.total); !s.ok()) {
      return Error{s.error()};
    }
    std::vector<const std::vector<GpuSeconds>*> budgeted;
    std::vector<const std::vector<GpuSeconds>*> low;
    for (const auto& [name, user] : project.users) {
      const std::string user_who = who + " user " + Quoted(name);
      if (Status s = CheckUsage(user_who, user); !s.ok()) {
        return Error{s.error()};
      }
      for (const std::int64_t carry : user.carry_milli) {
        if (carry < 0 || carry >= kMilli) {
          return Error{user_who + ": carry " + std::to_string(carry) +
                       " thousandths is outside [0, 1000)"};
        }
      }
      budgeted.push_back(&user.budgeted);
      low.push_back(&user.low);
    }
    if (Status s = CheckSums(account, "budgeted", project.total.budgeted, budgeted); !s.ok()) {
      return Error{s.error()};
    }
    if (Status s = CheckSums(account, "low", project.total.low, low); !s.ok()) {
      return Error{s.error()};
    }
  }
  Ledger ledger;
  ledger.projects_ = std::move(projects);
  ledger.decayed_at_ = decayed_at;
  return ledger;
}

ProjectUsage& Ledger::ProjectOf(std::string_view account) {
  auto it = projects_.find(account);
  if (it == projects_.end()) {
    it = projects_.emplace(std::string(account), ProjectUsage{}).first;
  }
  return it->second;
}

UserUsage& Ledger::UserOf(ProjectUsage& project, std::string_view user) {
  auto it = project.users.find(user);
  if (it == project.users.end()) {
    it = project.users.emplace(std::string(user), UserUsage{}).first;
  }
  return it->second;
}

void Ledger::Charge(ProjectUsage& project, UserUsage& user, int month, PartitionRole role,
                    GpuSeconds amount) {
  assert(month >= 0 && "ledger: negative project month");
  assert(amount >= 0 && "ledger: negative usage");
  // Zero amounts leave the vectors as they are, so that a saved ledger and
  // its reload compare equal however many empty ticks were accrued.
  if (amount == 0) {
    return;
  }
  if (role == PartitionRole::kLow) {
    AddAt(project.total.low, month, amount);
    AddAt(user.low, month, amount);
  } else {
    AddAt(project.total.budgeted, month, amount);
    AddAt(user.budgeted, month, amount);
  }
}

namespace {

// Whether an accrual bills anything at all (Ledger::Accrue).
bool Bills(const PartitionRate& partition, std::int64_t nodes, UnixTime from, UnixTime to) {
  return nodes > 0 && to > from && partition.rate > 0;
}

}  // namespace

MonthRange Ledger::Accrue(const ProjectTerms& terms, const TimeZone& zone, std::string_view user,
                          const PartitionRate& partition, std::int64_t nodes, UnixTime from,
                          UnixTime to) {
  return Accrue(Find(terms.account), terms, zone, user, partition, nodes, from, to);
}

MonthRange Ledger::Accrue(const ProjectUsage* found, const ProjectTerms& terms,
                          const TimeZone& zone, std::string_view user,
                          const PartitionRate& partition, std::int64_t nodes, UnixTime from,
                          UnixTime to) {
  assert(Find(terms.account) == found && "ledger: Accrue into a record not the project's");
  if (!Bills(partition, nodes, from, to)) {
    return {};
  }
  // A found record is this ledger's own (a node of projects_), const only as
  // Find hands it out.
  ProjectUsage& project =
      found != nullptr ? const_cast<ProjectUsage&>(*found) : ProjectOf(terms.account);
  UserUsage& record = UserOf(project, user);
  std::int64_t& carry = record.carry_milli[RoleIndex(partition.role)];
  const std::vector<MonthSlice> slices = SplitByProjectMonth(terms.calendar, zone, from, to);
  for (const MonthSlice& slice : slices) {
    // In 128 bits: nodes x seconds x rate in thousandths can pass int64 for
    // long slices at extreme rates before it is divided back to GPU-seconds.
    const __int128 milli =
        static_cast<__int128>(nodes) * (slice.to - slice.from) * partition.rate + carry;
    const __int128 whole = milli / kMilli;
    carry = static_cast<std::int64_t>(milli % kMilli);
    assert(whole <= std::numeric_limits<GpuSeconds>::max() && "ledger: accrual overflows int64");
    const GpuSeconds charged = whole > std::numeric_limits<GpuSeconds>::max()
                                   ? std::numeric_limits<GpuSeconds>::max()
                                   : static_cast<GpuSeconds>(whole);
    Charge(project, record, slice.month, partition.role, charged);
    project.total.decayed += static_cast<double>(charged);
    record.decayed += static_cast<double>(charged);
  }
  // Slices come in time order, one a month: their months are consecutive.
  return MonthRange{.first = slices.front().month, .last = slices.back().month};
}

void Ledger::Record(std::string_view account, std::string_view user, int month, PartitionRole role,
                    GpuSeconds amount) {
  assert(amount >= 0 && "ledger: Record of a negative amount");
  assert(month >= 0 && "ledger: Record in a negative month");
  ProjectUsage& project = ProjectOf(account);
  Charge(project, UserOf(project, user), month, role, amount);
}

void Ledger::AddDecayed(std::string_view account, std::string_view user, double amount) {
  assert(amount >= 0 && std::isfinite(amount) && "ledger: AddDecayed of a bad amount");
  ProjectUsage& project = ProjectOf(account);
  UserOf(project, user).decayed += amount;
  project.total.decayed += amount;
}

void Ledger::DecayTo(UnixTime now, std::int64_t half_life_seconds) {
  if (!decayed_at_.has_value()) {
    decayed_at_ = now;
    return;
  }
  if (now <= *decayed_at_) {
    // The clock went back (or did not move): decaying now and again once it
    // has caught up would decay the same interval twice.
    return;
  }
  if (half_life_seconds > 0) {
    const double factor = std::exp2(-static_cast<double>(now - *decayed_at_) /
                                    static_cast<double>(half_life_seconds));
    for (auto& [account, project] : projects_) {
      project.total.decayed *= factor;
      for (auto& [name, user] : project.users) {
        user.decayed *= factor;
      }
    }
  }
  decayed_at_ = now;
}

std::vector<ClosedMonth> Ledger::CloseMonths(const std::vector<ProjectTerms>& projects,
                                             const TimeZone& zone, UnixTime now) {
  std::vector<ClosedMonth> closed;
  for (const ProjectTerms& terms : projects) {
    const int months = terms.calendar.months();
    const auto month_ended = [&](int m) {
      return zone.MidnightOf(terms.calendar.MonthStart(m + 1)) <= now;
    };
    const auto it = projects_.find(terms.account);
    const int already = it == projects_.end() ? 0 : it->second.closed_months;
    if (already >= months || !month_ended(already + 1)) {
      continue;  // nothing to close: leave unknown projects out of the ledger
    }
    ProjectUsage& project = ProjectOf(terms.account);
    Schedule schedule = Replay(terms, project.total, project.closed_months);
    for (int m = project.closed_months + 1; m <= months && month_ended(m); ++m) {
      [[maybe_unused]] const Status s = schedule.Close(m, project.total.Budgeted(m));
      assert(s.ok() && "ledger: closing the next month of the schedule failed");
      project.closed_months = m;
      closed.push_back(ClosedMonth{terms.account, m, schedule.closed().back()});
    }
  }
  return closed;
}

Schedule Ledger::ScheduleOf(const ProjectTerms& terms) const {
  const ProjectUsage* project = Find(terms.account);
  if (project == nullptr) {
    return Schedule(terms.credit, terms.calendar.months());
  }
  return Replay(terms, project->total, project->closed_months);
}

const ProjectUsage* Ledger::Find(std::string_view account) const {
  const auto it = projects_.find(account);
  return it == projects_.end() ? nullptr : &it->second;
}

ProjectStatus StatusOf(const Ledger& ledger, const ProjectTerms& terms, const TimeZone& zone,
                       UnixTime now) {
  return StatusOf(ledger.Find(terms.account), terms, zone, now);
}

ProjectStatus StatusOf(const ProjectUsage* project, const ProjectTerms& terms, const TimeZone& zone,
                       UnixTime now) {
  const int month = terms.calendar.MonthAt(zone.DateAt(now));
  return StatusOf(SummaryOf(project, terms, month), terms, project);
}

namespace {

// SummaryOf's fields read straight from the usage vectors, with `accounted`
// (the replay) as given.
UsageSummary ReadSummary(const Usage& usage, const ProjectTerms& terms, int month,
                         GpuSeconds accounted) {
  UsageSummary summary{
      .month = month,
      .low_used = usage.LowCharged(),
      .preparatory_used = usage.Preparatory(),
  };
  if (month <= 0) {
    return summary;
  }
  summary.accounted = accounted;
  if (month <= terms.calendar.months()) {
    summary.used_this_month = usage.Budgeted(month);
  }
  return summary;
}

}  // namespace

UsageSummary SummaryOf(const ProjectUsage* project, const ProjectTerms& terms, int month) {
  const Usage no_usage;
  const Usage& usage = project == nullptr ? no_usage : project->total;
  const GpuSeconds accounted = month <= 0 ? 0 : PositionAfter(terms, usage, month - 1).accounted();
  return ReadSummary(usage, terms, month, accounted);
}

std::optional<UsageSummary> SummaryAfterCharge(const UsageSummary& summary,
                                               const ProjectUsage& project,
                                               const ProjectTerms& terms, MonthRange charged) {
  // The months PositionAfter replayed for the summary.
  if (charged.Overlaps(1, std::min(summary.month - 1, terms.calendar.months()))) {
    return std::nullopt;
  }
  return ReadSummary(project.total, terms, summary.month, summary.accounted);
}

ProjectStatus StatusOf(const UsageSummary& summary, const ProjectTerms& terms,
                       const ProjectUsage* project) {
  const int months = terms.calendar.months();

  ProjectStatus status;
  status.month = summary.month;
  status.low_allowance = terms.MonthlyBudget();
  status.low_used = summary.low_used;
  status.preparatory_used = summary.preparatory_used;
  status.decayed_usage = project == nullptr ? 0.0 : project->total.decayed;
  status.remaining = summary.Remaining(terms.credit);

  if (status.month <= 0) {
    status.state = ProjectState::kPreparatory;
    return status;
  }
  if (status.month > months) {
    status.state = ProjectState::kEnded;
    return status;
  }
  const SchedulePosition position(terms.credit, months, status.month - 1, summary.accounted);
  status.open = position.Open();
  status.used_this_month = summary.used_this_month;
  status.outstanding = status.open.expected - status.used_this_month;
  if (status.remaining > 0) {
    status.state = ProjectState::kActive;
  } else if (status.low_used >= status.low_allowance) {
    status.state = ProjectState::kBlocked;
  } else {
    status.state = ProjectState::kLow;
  }
  return status;
}

}  // namespace budget
