// Integer units for credit and usage, and the conversions used for display.
#pragma once

#include <cstdint>
#include <string>

namespace budget {

// Credit and usage are counted in GPU-seconds: one GPU busy for one second.
// Integers, so that `credit == accounted + remaining` holds exactly after any
// sequence of operations. 1 GPUh = 3600 GPU-seconds.
using GpuSeconds = std::int64_t;

inline constexpr GpuSeconds kGpuSecondsPerGpuHour = 3600;

// Unix time in seconds (UTC instant). The core never reads the clock itself:
// every function that depends on time takes `now` as an argument.
using UnixTime = std::int64_t;

// A UTC day: Unix time counts no leap seconds.
inline constexpr UnixTime kSecondsPerDay = 86400;

constexpr GpuSeconds GpuHours(std::int64_t gpu_hours) { return gpu_hours * kGpuSecondsPerGpuHour; }

constexpr double ToGpuHours(GpuSeconds s) {
  return static_cast<double>(s) / static_cast<double>(kGpuSecondsPerGpuHour);
}

// Money in hundredths of a Swiss franc (centimes), never a double.
using Centimes = std::int64_t;

// A billing rate: GPU hours charged for one node-hour in a partition, in
// thousandths (GH200: 4 GPUh per node-hour = 4000). Thousandths let an x86
// partition bill a fraction of a GPU hour per node-hour.
using MilliRate = std::int64_t;

inline constexpr MilliRate kGh200MilliRate = 4000;

// GPU-seconds billed for `node_seconds` in a partition of rate `rate`
// (rounded down to whole GPU-seconds).
constexpr GpuSeconds Bill(std::int64_t node_seconds, MilliRate rate) {
  return node_seconds * rate / 1000;
}

// "1,234" style rendering of whole GPU hours (rounded to nearest), and of
// GPU hours with one decimal when not whole ("1,234.5").
std::string FormatGpuHours(GpuSeconds s);

}  // namespace budget
