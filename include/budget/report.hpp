// A project's budget as its users see it (sbudget): this month, the history, the pace, the users.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "budget/calendar.hpp"
#include "budget/civil_date.hpp"
#include "budget/config.hpp"
#include "budget/fairshare.hpp"
#include "budget/ledger.hpp"
#include "budget/schedule.hpp"
#include "budget/units.hpp"

namespace budget {

// The default window of the pace behind the runway: the last 14 days.
inline constexpr std::int64_t kDefaultPaceWindowSeconds = std::int64_t{14} * 24 * 3600;

// How fast the project has been using its credit lately: `usage` GPU-seconds
// charged to the credit (budgeted partitions, project months 1..D) during the
// `window_seconds` before `now`. window_seconds <= 0 or usage < 0: no pace known.
struct Pace {
  GpuSeconds usage = 0;
  std::int64_t window_seconds = 0;
};

// One month of the project's schedule, closed or open.
struct ReportMonth {
  int month = 0;        // 1..D
  CivilDate first_day;  // the 1st of the calendar month
  bool open = false;    // the month in progress: used so far, lost and graced not yet known
  MonthRow row;         // ideal, expected, minimal; closed: used, lost, graced, remaining
};

// A user's usage in the project, GPU-seconds.
struct ReportUser {
  std::string user;
  GpuSeconds this_month = 0;   // budgeted usage of the open month (0 when none is open)
  GpuSeconds charged = 0;      // budgeted usage of months 1..D: what came off the credit
  GpuSeconds low = 0;          // usage charged to the low allowance
  GpuSeconds preparatory = 0;  // before the start, both roles: recorded, not charged
};

// Everything `sbudget` shows of one project at `now`. Amounts in GPU-seconds,
// money in centimes.
struct ProjectReport {
  std::string account;
  std::string title;
  ProjectKind kind = ProjectKind::kSmall;
  ProjectState state = ProjectState::kPreparatory;
  CivilDate created;
  CivilDate start;
  CivilDate last_day;  // the last day of compute
  int months = 0;      // D
  int month = 0;       // 0 before the start, 1..D, D+1 from the end on

  GpuSeconds credit = 0;
  Centimes price_per_node_hour = 0;
  Centimes credit_chf = 0;  // the credit at 4 GPUh per node-hour (a GH200 node-hour)
  Grace grace;

  // The open month, when month is 1..D (otherwise all 0 and open_month is false).
  bool open_month = false;
  CivilDate month_last_day;        // its last day
  GpuSeconds ideal = 0;            // C x m / D: where the line is at the month's end
  GpuSeconds expected = 0;         // this month's expected; <= 0 when ahead of the line
  GpuSeconds minimal = 0;          // 0 when there is none (expected <= 0)
  GpuSeconds used_this_month = 0;  // budgeted usage so far
  GpuSeconds still_expected = 0;   // max(0, expected - used_this_month)
  GpuSeconds still_minimal = 0;    // max(0, minimal - used_this_month): below it, credit is lost
  GpuSeconds rolled_over = 0;      // graced by the previous month: already in `expected`

  GpuSeconds used = 0;         // budgeted usage of months 1..D so far
  GpuSeconds lost = 0;         // forfeited by the closed months
  GpuSeconds remaining = 0;    // as ProjectStatus::remaining; may be <= 0
  Centimes remaining_chf = 0;  // remaining at 4 GPUh per node-hour (0 when remaining <= 0)
  GpuSeconds low_used = 0;
  GpuSeconds low_allowance = 0;
  GpuSeconds preparatory_used = 0;
  FairShareBand band = FairShareBand::kNone;  // where the project ranks (fairshare.hpp)
  // Band kAhead: the first day of the first later month whose expected
  // consumption is > 0 if the project uses nothing more, i.e. the first month
  // k > month with C x k / D > C - remaining; from then on it ranks in the
  // behind band again (an active project always gets there by month D, whose
  // expected is all that remains). nullopt when not in the ahead band.
  std::optional<CivilDate> back_in_line_on;

  // The runway: how long the remaining credit lasts at the recent pace,
  //   runway = remaining / (pace.usage / pace.window_seconds)   (seconds, rounded down)
  // Known only for an active project (remaining > 0) whose pace is known and
  // > 0; otherwise nullopt (no recent usage: the credit is not running out).
  Pace pace;
  std::optional<std::int64_t> runway_seconds;
  std::optional<CivilDate> runs_out_on;  // the day (in the zone) now + runway falls on
  bool outlasts_project = false;         // runs_out_on is after last_day

  // Closed months in order, then the open month (open == true) if any.
  std::vector<ReportMonth> history;
  // Every user the ledger has for the project, by name.
  std::vector<ReportUser> users;
};

// The report of `spec`'s project from `ledger` at `now` (month boundaries at
// midnight in `zone`). The schedule is replayed from the recorded usage
// (as StatusOf does), so months the ledger has not closed yet are shown
// closed when they have ended. An account the ledger has never seen has no
// usage. Conservation holds: credit == accounted + remaining, where accounted
// = the closed months' max(used, minimal) + used_this_month.
ProjectReport BuildReport(const Ledger& ledger, const ProjectSpec& spec, const TimeZone& zone,
                          UnixTime now, const Pace& pace);

}  // namespace budget
