// A project's calendar (policy.md §1): start, months, end, storage, and its state.
#pragma once

#include <optional>

#include "budget/civil_date.hpp"
#include "budget/result.hpp"

namespace budget {

enum class ProjectKind { kSmall, kLarge };

inline constexpr int kSmallProjectMonths = 6;
inline constexpr int kLargeProjectMonths = 12;
inline constexpr int kMaxPostponementMonths = 3;
inline constexpr int kStorageDaysAfterEnd = 90;

class ProjectCalendar {
 public:
  // Small project: start defaults to the 1st of the month after `created`;
  // an explicit start must be the 1st of a month, not before that default and
  // not later than the 1st of the month 3 months after created's month
  // (created 15 March: 1 April .. 1 June). Errors say which rule failed.
  static Result<ProjectCalendar> Small(const CivilDate& created, std::optional<CivilDate> start);
  // Large project: start on 1 January or 1 July, no preparatory period.
  // `created`, when given, must not be after start.
  static Result<ProjectCalendar> Large(const CivilDate& start, std::optional<CivilDate> created);

  ProjectKind kind() const { return kind_; }
  int months() const { return months_; }
  // For large projects without a created date, created() == start().
  const CivilDate& created() const { return created_; }
  const CivilDate& start() const { return start_; }
  // First day after the last month (exclusive end): start + months.
  CivilDate end() const;
  // Last day of compute (end() - 1 day): "runs to 30 September".
  CivilDate last_day() const;
  // The first day storage is no longer readable: end() + 90 days. Between
  // end() and this day the project has storage only, no compute.
  CivilDate storage_until() const;

  // The first day of project month m, m in 1..months()+1 (months()+1 = end()).
  CivilDate MonthStart(int m) const;

  // 0 before the start (preparatory period), 1..months() during the project,
  // months()+1 from end() on.
  int MonthAt(const CivilDate& d) const;

  friend bool operator==(const ProjectCalendar&, const ProjectCalendar&) = default;

 private:
  ProjectCalendar(ProjectKind kind, CivilDate created, CivilDate start, int months)
      : kind_(kind), created_(created), start_(start), months_(months) {}
  ProjectKind kind_;
  CivilDate created_;
  CivilDate start_;
  int months_;
};

// Lifecycle states (policy.md §1, §4).
enum class ProjectState {
  kPreparatory,  // created, not started: runs at low priority, usage not charged
  kActive,       // started, credit remaining > 0
  kLow,          // credit used up: `low` partition only, up to the low allowance
  kBlocked,      // low allowance used up too: no job may start
  kEnded,        // past the end: no compute
};

const char* ToString(ProjectState s);  // "preparatory", "active", ...

}  // namespace budget
