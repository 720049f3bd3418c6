// The budget fair-share factor of a project (policy.md §5): which band, and where inside it.
#pragma once

#include <array>
#include <cstddef>

#include "budget/calendar.hpp"
#include "budget/units.hpp"

namespace budget {

// The formula. All amounts in GPU-seconds; B = monthly_budget = C / D.
//
//   outstanding = expected - used_this_month
//   state       band          (lo,  hi ]  key x = 2^-r, r =        r is
//   active      kBehind       (0.6, 1.0]  decayed_usage / expected  outstanding > 0
//   active      kAhead        (0.4, 0.6]  -outstanding / B          outstanding <= 0
//   preparatory kPreparatory  (0.2, 0.4]  decayed_usage / B
//   low         kLow          (0.0, 0.2]  low_used / B
//   blocked, ended  kNone     factor 0    (these projects do not run)
//
//   key    = max(2^-r, kMinKey)            in (0, 1]
//   factor = lo + (hi - lo) * key          in (lo, hi]
//
// Because every band is half-open and key > 0, every factor of a band is
// strictly above every factor of the bands below it: active and behind >
// active and ahead > preparatory > low > blocked = ended = 0. Inside a band,
// more usage lowers the key and a larger expected raises it.
//
// The unit of fair share is the project: the inputs carry no user, so all the
// users of a project get the same factor (policy.md §5, ordering 4).

// The bands, lowest first; the enumerator order is the rank order.
enum class FairShareBand {
  kNone,         // blocked or ended: factor 0
  kLow,          // credit used up, running on the low allowance
  kPreparatory,  // created, not started
  kAhead,        // active, at or past this month's expected consumption
  kBehind,       // active, below this month's expected consumption
};

const char* ToString(FairShareBand band);  // "none", "low", "preparatory", "ahead", "behind"

struct FairShareBandBounds {
  FairShareBand band;
  double lo;  // exclusive (except kNone, whose only factor is 0)
  double hi;  // inclusive
};

// The single source of the band bounds, lowest band first, indexed by
// static_cast<int>(band). docs/design.md quotes this table.
inline constexpr std::array<FairShareBandBounds, 5> kFairShareBands = {{
    {FairShareBand::kNone, 0.0, 0.0},
    {FairShareBand::kLow, 0.0, 0.2},
    {FairShareBand::kPreparatory, 0.2, 0.4},
    {FairShareBand::kAhead, 0.4, 0.6},
    {FairShareBand::kBehind, 0.6, 1.0},
}};

constexpr const FairShareBandBounds& BoundsOf(FairShareBand band) {
  return kFairShareBands[static_cast<std::size_t>(band)];
}

// The smallest key: keeps every factor of a band strictly above the band's lo
// however large the usage is (2^-r underflows to 0 for large r).
inline constexpr double kMinKey = 1e-6;

struct FairShareInputs {
  ProjectState state = ProjectState::kBlocked;
  // This month's expected consumption, expected(m) of policy.md §3; <= 0 when
  // the project is ahead of its line. Read only when state is kActive.
  GpuSeconds expected = 0;
  // Charged usage of the open month so far. Negative is treated as 0.
  GpuSeconds used_this_month = 0;
  // C / D, > 0. A non-positive budget is treated as the limit B -> 0+: the key
  // is 1 with no usage and kMinKey with any.
  GpuSeconds monthly_budget = 0;
  // Usage in GPU-seconds decayed with PriorityDecayHalfLife. Negative or NaN
  // is treated as 0; +infinity gives kMinKey.
  double decayed_usage = 0.0;
  // Usage charged to the low allowance. Negative is treated as 0.
  GpuSeconds low_used = 0;
};

struct FairShare {
  double factor = 0.0;  // in [0, 1]; 0 only for kNone
  FairShareBand band = FairShareBand::kNone;
  double key = 0.0;          // in [kMinKey, 1]: position inside the band; 0 for kNone
  double usage_ratio = 0.0;  // r, the exponent fed into 2^-r; 0 for kNone
};

// The factor of one project. Pure: same inputs, same result, no error case.
FairShare ComputeFairShare(const FairShareInputs& in);

}  // namespace budget
