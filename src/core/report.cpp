// A project's budget as its users see it: replayed schedule, open month, pace and users.
#include "budget/report.hpp"

#include <algorithm>
#include <cassert>
#include <limits>

#include "budget/billing.hpp"

namespace budget {
namespace {

// A runway beyond this is "not running out": no date is computed for it, so
// that civil-date arithmetic stays far from overflow.
constexpr std::int64_t kMaxDatedRunwaySeconds = std::int64_t{100} * 366 * 24 * 3600;

GpuSeconds ChargedMonths(const Usage& usage, int months) {
  GpuSeconds sum = 0;
  for (int m = 1; m <= months; ++m) {
    sum += usage.Budgeted(m);
  }
  return sum;
}

// remaining x window / usage in 128 bits (the product of a large credit and a
// long window does not fit in 64), saturated.
std::int64_t Runway(GpuSeconds remaining, const Pace& pace) {
  const __int128 runway =
      static_cast<__int128>(remaining) * pace.window_seconds / static_cast<__int128>(pace.usage);
  return runway > std::numeric_limits<std::int64_t>::max()
             ? std::numeric_limits<std::int64_t>::max()
             : static_cast<std::int64_t>(runway);
}

}  // namespace

ProjectReport BuildReport(const Ledger& ledger, const ProjectSpec& spec, const TimeZone& zone,
                          UnixTime now, const Pace& pace) {
  const ProjectTerms terms{spec.account, spec.credit, spec.calendar};
  const ProjectStatus status = StatusOf(ledger, terms, zone, now);
  const ProjectUsage* project = ledger.Find(spec.account);
  const Usage no_usage;
  const Usage& usage = project == nullptr ? no_usage : project->total;
  const int months = spec.calendar.months();

  ProjectReport r;
  r.account = spec.account;
  r.title = spec.title;
  r.kind = spec.kind;
  r.state = status.state;
  r.created = spec.calendar.created();
  r.start = spec.calendar.start();
  r.last_day = spec.calendar.last_day();
  r.months = months;
  r.month = status.month;
  r.credit = spec.credit;
  r.price_per_node_hour = spec.price_per_node_hour;
  r.credit_chf = ChfOf(spec.credit, spec.price_per_node_hour);
  r.remaining = status.remaining;
  r.remaining_chf = status.remaining > 0 ? ChfOf(status.remaining, spec.price_per_node_hour) : 0;
  r.low_used = status.low_used;
  r.low_allowance = status.low_allowance;
  r.preparatory_used = status.preparatory_used;
  r.used = ChargedMonths(usage, months);
  r.pace = pace;

  // The closed months: the schedule replayed from the recorded usage, as
  // StatusOf does, so a ledger whose months are not closed yet reads the same.
  Schedule schedule(spec.credit, months);
  const int closed = std::clamp(status.month - 1, 0, months);
  for (int m = 1; m <= closed; ++m) {
    [[maybe_unused]] const Status s = schedule.Close(m, usage.Budgeted(m));
    assert(s.ok() && "report: replaying a month of the schedule failed");
  }
  r.grace = schedule.grace();
  for (const MonthRow& row : schedule.closed()) {
    r.history.push_back({row.month, spec.calendar.MonthStart(row.month), false, row});
    r.lost += row.lost;
  }
  if (!schedule.closed().empty()) {
    r.rolled_over = schedule.closed().back().graced;
  }

  if (status.month >= 1 && status.month <= months) {
    r.open_month = true;
    r.month_last_day = AddDays(spec.calendar.MonthStart(status.month + 1), -1);
    r.ideal = status.open.ideal;
    r.expected = status.open.expected;
    r.minimal = status.open.minimal;
    r.used_this_month = status.used_this_month;
    r.still_expected = std::max<GpuSeconds>(0, status.open.expected - status.used_this_month);
    r.still_minimal = std::max<GpuSeconds>(0, status.open.minimal - status.used_this_month);
    MonthRow open = status.open;
    open.used = status.used_this_month;
    r.history.push_back({status.month, spec.calendar.MonthStart(status.month), true, open});
  }

  r.band = ComputeFairShare({.state = status.state,
                             .expected = status.open.expected,
                             .used_this_month = status.used_this_month,
                             .monthly_budget = terms.MonthlyBudget(),
                             .decayed_usage = status.decayed_usage,
                             .low_used = status.low_used})
               .band;

  if (r.band == FairShareBand::kAhead) {
    // With no more usage, accounted stays at C - remaining and months ahead
    // have no minimal; expected(k) = C x k / D - (C - remaining).
    const GpuSeconds accounted = spec.credit - status.remaining;
    for (int k = status.month + 1; k <= months; ++k) {
      const __int128 ideal = static_cast<__int128>(spec.credit) * k / months;
      if (ideal > accounted) {
        r.back_in_line_on = spec.calendar.MonthStart(k);
        break;
      }
    }
  }

  if (status.state == ProjectState::kActive && pace.window_seconds > 0 && pace.usage > 0) {
    const std::int64_t runway = Runway(status.remaining, pace);
    r.runway_seconds = runway;
    const UnixTime end = zone.MidnightOf(spec.calendar.end());
    r.outlasts_project = runway >= end - now;
    if (runway <= kMaxDatedRunwaySeconds) {
      r.runs_out_on = zone.DateAt(now + runway);
    }
  }

  if (project != nullptr) {
    for (const auto& [name, u] : project->users) {
      ReportUser user;
      user.user = name;
      user.this_month = r.open_month ? u.Budgeted(status.month) : 0;
      user.charged = ChargedMonths(u, months);
      user.low = u.LowCharged();
      user.preparatory = u.Preparatory();
      r.users.push_back(std::move(user));
    }
  }
  return r;
}

}  // namespace budget
