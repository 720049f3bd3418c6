// The multifactor job priority sum, arithmetic kept identical to priority/multifactor.
#include "budget/priority.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <utility>

namespace budget {
namespace {

constexpr double kTwoTo32 = 4294967296.0;

double Clamp01(double x) {
  if (std::isnan(x) || x < 0.0) {
    return 0.0;
  }
  return x > 1.0 ? 1.0 : x;
}

// std::round, bit for bit, without the libm call (x86-64's baseline has no
// rounding instruction, and a pass rounds 16 terms per job): y - trunc(y) is
// exact in binary floating point, and copysign keeps round(-0.3) == -0.0.
double RoundHalfAway(double y) {
  constexpr double kTwoTo52 = 4503599627370496.0;  // from here on every double is whole
  if (!(std::fabs(y) < kTwoTo52)) {
    return y;  // whole already, or NaN or infinite: round returns it unchanged
  }
  const double whole = static_cast<double>(static_cast<std::int64_t>(y));
  const double fraction = y - whole;
  double rounded = whole;
  if (fraction >= 0.5) {
    rounded = whole + 1.0;
  } else if (fraction <= -0.5) {
    rounded = whole - 1.0;
  }
  return std::copysign(rounded, y);
}

// Any weighted term is at most 2^32, so x / quantum fits the 53-bit mantissa
// and the division back is exact: the result is a multiple of the quantum.
double Quantize(double x) { return RoundHalfAway(x / kPriorityQuantum) * kPriorityQuantum; }

double TresWeight(double w) {
  if (!std::isfinite(w) || w < 0.0) {
    return 0.0;
  }
  return std::min(w, static_cast<double>(kMaxPriority));
}

std::int64_t ClampToInt32(std::int64_t v) {
  return std::clamp<std::int64_t>(v, std::numeric_limits<std::int32_t>::min(),
                                  std::numeric_limits<std::int32_t>::max());
}

double AgeFactor(const PriorityWeights& w, const JobPriorityInputs& in) {
  if (w.age == 0 || in.accrue_time == 0) {
    return 0.0;
  }
  // multifactor holds the wait in a uint32; a saturating int64 differs only
  // for waits beyond 136 years, where it gives 1 instead of a wrapped value.
  const std::int64_t diff = in.now > in.accrue_time ? in.now - in.accrue_time : 0;
  if (diff < w.max_age_seconds) {
    return static_cast<double>(diff) / static_cast<double>(w.max_age_seconds);
  }
  return 1.0;
}

// Operation for operation as set_priority_factors, including the unsigned
// 32-bit differences, so that a site switching from multifactor sees the same
// JOBSIZE column. Only the divisions by zero are defined here.
double JobSizeFactor(const PriorityWeights& w, const JobPriorityInputs& in) {
  if (w.jobsize == 0 || in.cluster_nodes == 0 || in.cluster_cpus == 0) {
    return 0.0;
  }
  const double nodes = static_cast<double>(in.cluster_nodes);
  const double cpus = static_cast<double>(in.cluster_cpus);
  double js = 0.0;
  if (w.small_relative_to_time) {
    js = static_cast<double>(in.min_nodes) * cpus / nodes;
    if (static_cast<double>(in.cpus) > js) {
      js = static_cast<double>(in.cpus);
    }
    js /= static_cast<double>(std::max<std::uint32_t>(in.time_limit_minutes, 1));
    js /= cpus;
    if (w.favor_small) {
      js = 1.0 - js;
    }
  } else if (w.favor_small) {
    js = static_cast<double>(static_cast<std::uint32_t>(in.cluster_nodes - in.min_nodes)) / nodes;
    if (in.cpus != 0) {
      js += static_cast<double>(static_cast<std::uint32_t>(in.cluster_cpus - in.cpus)) / cpus;
      js /= 2;
    }
  } else {
    js = static_cast<double>(in.min_nodes) / nodes;
    if (in.cpus != 0) {
      js += static_cast<double>(in.cpus) / cpus;
      js /= 2;
    }
  }
  return Clamp01(js);
}

double Weighted(double factor, std::uint32_t weight) {
  if (weight == 0) {
    return 0.0;  // Clamp01 gives a finite factor >= 0, and +0 quantizes to +0
  }
  return Quantize(Clamp01(factor) * static_cast<double>(weight));
}

}  // namespace

[[gnu::hot]] JobPriority ComputeJobPriority(const PriorityWeights& weights,
                                            const JobPriorityInputs& in,
                                            std::span<const double> tres_fraction,
                                            std::span<double> tres_out) {
  JobPriority out;
  out.age = Weighted(AgeFactor(weights, in), weights.age);
  out.assoc = Weighted(in.assoc_norm, weights.assoc);
  out.fairshare = Weighted(in.fair_share, weights.fairshare);
  out.jobsize = Weighted(JobSizeFactor(weights, in), weights.jobsize);
  out.partition = Weighted(in.partition_norm, weights.partition);
  out.qos = Weighted(in.qos_norm, weights.qos);

  // Most TRES of a site carry no weight (0, or one TresWeight makes 0): their
  // term is +0, which changes neither tres_sum nor anything else.
  std::fill(tres_out.begin(), tres_out.end(), 0.0);
  double tres_sum = 0.0;
  for (std::size_t i = 0; i < weights.tres.size(); ++i) {
    if (!(weights.tres[i] > 0.0)) {
      continue;
    }
    const double weight = TresWeight(weights.tres[i]);
    const double fraction = i < tres_fraction.size() ? Clamp01(tres_fraction[i]) : 0.0;
    const double weighted = Quantize(fraction * weight);
    if (i < tres_out.size()) {
      tres_out[i] = weighted;
    }
    tres_sum += weighted;
  }

  out.site = ClampToInt32(in.site);
  out.nice = ClampToInt32(in.nice);

  // multifactor's order; with quantized terms any order gives this same double.
  out.sum = out.age + out.assoc + out.fairshare + out.jobsize + out.partition + out.qos + tres_sum +
            static_cast<double>(out.site) - static_cast<double>(out.nice);

  // multifactor: below 1 becomes 1, the (uint64_t) cast truncates, above
  // 0xffffffff is capped.
  if (!(out.sum >= 1.0)) {
    out.priority = 1;
  } else if (out.sum >= kTwoTo32) {
    out.priority = kMaxPriority;
  } else {
    out.priority = static_cast<std::uint32_t>(out.sum);
  }
  return out;
}

JobPriority ComputeJobPriority(const PriorityWeights& weights, const JobPriorityInputs& in) {
  std::vector<double> tres(weights.tres.size());
  JobPriority out = ComputeJobPriority(weights, in, in.tres_fraction, tres);
  out.tres = std::move(tres);
  return out;
}

}  // namespace budget
