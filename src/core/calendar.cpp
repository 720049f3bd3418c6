// Project calendars: the start rules of small and large projects, months, end, storage.
#include "budget/calendar.hpp"

#include <cassert>
#include <string>

namespace budget {

Result<ProjectCalendar> ProjectCalendar::Small(const CivilDate& created,
                                               std::optional<CivilDate> start) {
  if (!IsValidCivilDate(created)) {
    return Error{"created " + FormatCivilDate(created) + " is not a real date"};
  }
  const CivilDate earliest = FirstOfMonthAfter(created, 1);
  const CivilDate latest = FirstOfMonthAfter(created, kMaxPostponementMonths);
  if (!start) {
    return ProjectCalendar(ProjectKind::kSmall, created, earliest, kSmallProjectMonths);
  }
  if (!IsValidCivilDate(*start)) {
    return Error{"start " + FormatCivilDate(*start) + " is not a real date"};
  }
  if (start->day != 1) {
    return Error{"start " + FormatCivilDate(*start) + " must be the 1st of a month"};
  }
  if (*start < earliest) {
    return Error{"start " + FormatCivilDate(*start) + " is before " + FormatCivilDate(earliest) +
                 ", the 1st of the month after created " + FormatCivilDate(created)};
  }
  if (*start > latest) {
    return Error{"start " + FormatCivilDate(*start) + " is after " + FormatCivilDate(latest) +
                 ": a small project may be postponed at most " +
                 std::to_string(kMaxPostponementMonths) + " months after created " +
                 FormatCivilDate(created)};
  }
  return ProjectCalendar(ProjectKind::kSmall, created, *start, kSmallProjectMonths);
}

Result<ProjectCalendar> ProjectCalendar::Large(const CivilDate& start,
                                               std::optional<CivilDate> created) {
  if (!IsValidCivilDate(start)) {
    return Error{"start " + FormatCivilDate(start) + " is not a real date"};
  }
  if (start.day != 1 || (start.month != 1 && start.month != 7)) {
    return Error{"start " + FormatCivilDate(start) +
                 " must be 1 January or 1 July for a large project"};
  }
  if (created && !IsValidCivilDate(*created)) {
    return Error{"created " + FormatCivilDate(*created) + " is not a real date"};
  }
  if (created && *created > start) {
    return Error{"created " + FormatCivilDate(*created) + " is after start " +
                 FormatCivilDate(start) + ": a large project has no preparatory period"};
  }
  return ProjectCalendar(ProjectKind::kLarge, created.value_or(start), start, kLargeProjectMonths);
}

CivilDate ProjectCalendar::end() const { return FirstOfMonthAfter(start_, months_); }

CivilDate ProjectCalendar::last_day() const { return AddDays(end(), -1); }

CivilDate ProjectCalendar::storage_until() const { return AddDays(end(), kStorageDaysAfterEnd); }

CivilDate ProjectCalendar::MonthStart(int m) const {
  assert(m >= 1 && m <= months_ + 1 && "project month out of range");
  return FirstOfMonthAfter(start_, m - 1);
}

int ProjectCalendar::MonthAt(const CivilDate& d) const {
  if (d < start_) {
    return 0;
  }
  // start_ is always a 1st, so the month index alone decides.
  const int m = (d.year - start_.year) * 12 + (d.month - start_.month) + 1;
  return m > months_ ? months_ + 1 : m;
}

const char* ToString(ProjectState s) {
  switch (s) {
    case ProjectState::kPreparatory:
      return "preparatory";
    case ProjectState::kActive:
      return "active";
    case ProjectState::kLow:
      return "low";
    case ProjectState::kBlocked:
      return "blocked";
    case ProjectState::kEnded:
      return "ended";
  }
  return "unknown";
}

}  // namespace budget
