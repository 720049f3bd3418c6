// The monthly schedule of policy.md §3: grace, ideal, expected, minimal, lost, graced.
#pragma once

#include <cstdint>
#include <vector>

#include "budget/result.hpp"
#include "budget/units.hpp"

namespace budget {

// The grace fraction, exact: grace = numerator / denominator.
// 50% for C <= 10,000 GPUh, 15% for C >= 100,000 GPUh, linear in between:
// 50 - 35 * (C - 10,000) / 90,000 percent (C in GPUh, may be fractional).
struct Grace {
  std::int64_t numerator = 1;
  std::int64_t denominator = 2;

  double Percent() const;  // 42.222... for 30,000 GPUh
};

Grace GraceFor(GpuSeconds credit);

// (1 - grace) * expected, rounded to the nearest whole GPU-second (halves
// down, in the project's favour); 0 when expected <= 0 (ahead of the line:
// there is no minimal).
GpuSeconds MinimalOf(GpuSeconds expected, const Grace& grace);

// One month of a project's schedule. All amounts in GPU-seconds.
struct MonthRow {
  int month = 0;                    // 1..D
  GpuSeconds accounted_before = 0;  // accounted(m-1)
  GpuSeconds ideal = 0;             // C * m / D
  GpuSeconds expected = 0;          // ideal - accounted_before; <= 0 when ahead
  GpuSeconds minimal = 0;           // 0 when !has_minimal
  bool has_minimal = false;         // expected > 0
  bool closed = false;
  // Set when closed:
  GpuSeconds used = 0;
  GpuSeconds lost = 0;    // forfeited for good
  GpuSeconds graced = 0;  // rolled over into expected(m+1)
  // C - accounted(m) when closed; C - accounted(m-1) while open.
  GpuSeconds remaining = 0;
};

// Where a schedule stands after its closed months: the credit accounted so
// far, from which the open month follows. What a pass needs of a project
// every time it replays the project's usage, so it keeps no rows and
// allocates nothing; Schedule adds the closed rows.
// Invariant: credit() == accounted() + remaining() after every operation.
class SchedulePosition {
 public:
  // credit > 0 GPU-seconds, months 6 or 12 (any >= 1 is accepted).
  SchedulePosition(GpuSeconds credit, int months);
  // Where a replay ended that closed `closed_months` months (0..months) and
  // accounted `accounted` GPU-seconds: a position kept from an earlier
  // replay, taken up again (budget::UsageSummary).
  SchedulePosition(GpuSeconds credit, int months, int closed_months, GpuSeconds accounted);

  GpuSeconds credit() const { return credit_; }
  int months() const { return months_; }
  const Grace& grace() const { return grace_; }

  int closed_months() const { return closed_months_; }
  bool over() const { return closed_months_ >= months_; }
  GpuSeconds accounted() const { return accounted_; }
  GpuSeconds remaining() const { return credit_ - accounted_; }

  // The open month (closed_months() + 1): ideal, expected, minimal known.
  // Precondition: !over().
  MonthRow Open() const;

  // Closes the open month with its usage and returns its closed row.
  // Precondition: !over(). used < 0 is an error, and so is a usage that would
  // overflow accounted(); either leaves the position as it was.
  Result<MonthRow> CloseNext(GpuSeconds used);

 private:
  GpuSeconds credit_;
  int months_;
  Grace grace_;
  int closed_months_ = 0;
  GpuSeconds accounted_ = 0;
};

// A project's schedule: the closed months in order, and the open one.
// Invariant: credit() == accounted() + remaining() after every operation.
class Schedule {
 public:
  // credit > 0 GPU-seconds, months 6 or 12 (any >= 1 is accepted).
  Schedule(GpuSeconds credit, int months);

  GpuSeconds credit() const { return position_.credit(); }
  int months() const { return position_.months(); }
  const Grace& grace() const { return position_.grace(); }

  int closed_months() const { return position_.closed_months(); }
  bool over() const { return position_.over(); }
  GpuSeconds accounted() const { return position_.accounted(); }
  GpuSeconds remaining() const { return position_.remaining(); }

  const std::vector<MonthRow>& closed() const { return closed_; }

  // The open month (closed_months() + 1): ideal, expected, minimal known.
  // Precondition: !over().
  MonthRow Open() const { return position_.Open(); }

  // Closes month `month` with its usage. Closing an already closed month
  // changes nothing and succeeds (idempotent; the usage passed is ignored).
  // Months close in order: closing month k > closed_months() + 1, or a month
  // past D, is an error; used < 0 too, and so is a usage that would overflow
  // accounted().
  Status Close(int month, GpuSeconds used);

 private:
  SchedulePosition position_;
  std::vector<MonthRow> closed_;
};

}  // namespace budget
