// The multifactor job priority sum, arithmetic kept identical to priority/multifactor.
#include "budget/priority.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace budget {
namespace {

constexpr double kTwoTo32 = 4294967296.0;

double Clamp01(double x) {
  if (std::isnan(x) || x < 0.0) {
    return 0.0;
  }
  return x > 1.0 ? 1.0 : x;
}

// Any weighted term is at most 2^32, so x / quantum fits the 53-bit mantissa
// and the division back is exact: the result is a multiple of the quantum.
double Quantize(double x) { return std::round(x / kPriorityQuantum) * kPriorityQuantum; }

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
  return Quantize(Clamp01(factor) * static_cast<double>(weight));
}

}  // namespace

JobPriority ComputeJobPriority(const PriorityWeights& weights, const JobPriorityInputs& in) {
  JobPriority out;
  out.age = Weighted(AgeFactor(weights, in), weights.age);
  out.assoc = Weighted(in.assoc_norm, weights.assoc);
  out.fairshare = Weighted(in.fair_share, weights.fairshare);
  out.jobsize = Weighted(JobSizeFactor(weights, in), weights.jobsize);
  out.partition = Weighted(in.partition_norm, weights.partition);
  out.qos = Weighted(in.qos_norm, weights.qos);

  out.tres.resize(weights.tres.size());
  double tres_sum = 0.0;
  for (std::size_t i = 0; i < weights.tres.size(); ++i) {
    const double fraction = i < in.tres_fraction.size() ? Clamp01(in.tres_fraction[i]) : 0.0;
    out.tres[i] = Quantize(fraction * TresWeight(weights.tres[i]));
    tres_sum += out.tres[i];
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

}  // namespace budget
