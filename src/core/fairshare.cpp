// The budget fair-share factor: bands by project state, 2^-r inside a band.
#include "budget/fairshare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace budget {
namespace {

constexpr bool BandTableIsIndexedByBand() {
  for (std::size_t i = 0; i < kFairShareBands.size(); ++i) {
    if (static_cast<std::size_t>(kFairShareBands[i].band) != i) {
      return false;
    }
    if (i > 0 && kFairShareBands[i].lo != kFairShareBands[i - 1].hi) {
      return false;
    }
  }
  return true;
}
static_assert(BandTableIsIndexedByBand(),
              "kFairShareBands must list every band once, lowest first, without gaps");

double NonNegative(double x) { return std::isnan(x) || x < 0.0 ? 0.0 : x; }
double NonNegative(GpuSeconds x) { return x < 0 ? 0.0 : static_cast<double>(x); }

// r = usage / scale, with the scale -> 0+ limit for a scale that is not
// positive, so that a malformed budget still orders projects sensibly.
double Ratio(double usage, double scale) {
  if (scale > 0.0) {
    return usage / scale;
  }
  return usage > 0.0 ? std::numeric_limits<double>::infinity() : 0.0;
}

FairShare InBand(FairShareBand band, double ratio) {
  const FairShareBandBounds& b = BoundsOf(band);
  // exp2(-inf) is 0, and the floor lifts it: a band never touches the one below.
  const double key = std::max(std::exp2(-ratio), kMinKey);
  return FairShare{b.lo + (b.hi - b.lo) * key, band, key, ratio};
}

}  // namespace

const char* ToString(FairShareBand band) {
  switch (band) {
    case FairShareBand::kNone:
      return "none";
    case FairShareBand::kLow:
      return "low";
    case FairShareBand::kPreparatory:
      return "preparatory";
    case FairShareBand::kAhead:
      return "ahead";
    case FairShareBand::kBehind:
      return "behind";
  }
  return "?";
}

FairShare ComputeFairShare(const FairShareInputs& in) {
  const double budget = static_cast<double>(in.monthly_budget);
  const double decayed = NonNegative(in.decayed_usage);
  switch (in.state) {
    case ProjectState::kActive: {
      const GpuSeconds used = std::max<GpuSeconds>(in.used_this_month, 0);
      // Compared in integers: the band boundary must not depend on rounding.
      if (in.expected > used) {
        // expected > used >= 0, so the shares S = expected are positive.
        return InBand(FairShareBand::kBehind, Ratio(decayed, static_cast<double>(in.expected)));
      }
      // How far past the line, in GPU-seconds; computed in double because
      // used - expected may not fit an int64 when expected is very negative.
      const double past = static_cast<double>(used) - static_cast<double>(in.expected);
      return InBand(FairShareBand::kAhead, Ratio(past, budget));
    }
    case ProjectState::kPreparatory:
      return InBand(FairShareBand::kPreparatory, Ratio(decayed, budget));
    case ProjectState::kLow:
      return InBand(FairShareBand::kLow, Ratio(NonNegative(in.low_used), budget));
    case ProjectState::kBlocked:
    case ProjectState::kEnded:
      break;
  }
  return FairShare{};
}

}  // namespace budget
