// The monthly schedule: exact grace, linear ideal line, and in-order month closing.
#include "budget/schedule.hpp"

#include <algorithm>
#include <cassert>
#include <numeric>
#include <string>

namespace budget {

namespace {

constexpr GpuSeconds kFullGraceUpTo = GpuHours(10'000);    // 50% at or below
constexpr GpuSeconds kLeastGraceFrom = GpuHours(100'000);  // 15% at or above

Grace Reduced(std::int64_t numerator, std::int64_t denominator) {
  const std::int64_t g = std::gcd(numerator, denominator);
  return Grace{numerator / g, denominator / g};
}

}  // namespace

double Grace::Percent() const {
  return 100.0 * static_cast<double>(numerator) / static_cast<double>(denominator);
}

Grace GraceFor(GpuSeconds credit) {
  if (credit <= kFullGraceUpTo) {
    return Grace{1, 2};
  }
  if (credit >= kLeastGraceFrom) {
    return Grace{3, 20};
  }
  // 50 - 35 * (C - 10,000) / 90,000 percent with C = credit / 3600 GPUh, as one
  // fraction over 100 * 90,000 * 3600 so that nothing is rounded. Here credit
  // is below 3.6e8, so every product stays far inside int64.
  constexpr std::int64_t kSpan = 90'000 * kGpuSecondsPerGpuHour;  // 100,000 - 10,000 GPUh
  const std::int64_t numerator = 50 * kSpan - 35 * (credit - kFullGraceUpTo);
  return Reduced(numerator, 100 * kSpan);
}

GpuSeconds MinimalOf(GpuSeconds expected, const Grace& grace) {
  assert(grace.denominator > 0 && grace.numerator >= 0 && grace.numerator <= grace.denominator &&
         "grace must be a fraction in [0, 1]");
  if (expected <= 0) {
    return 0;
  }
  // expected * (denominator - numerator) overflows int64 for large credits.
  const __int128 product = static_cast<__int128>(expected) * (grace.denominator - grace.numerator);
  const __int128 quotient = product / grace.denominator;
  const __int128 remainder = product % grace.denominator;
  // Round to nearest; an exact half goes down, in the project's favour.
  const __int128 rounded = remainder * 2 > grace.denominator ? quotient + 1 : quotient;
  return static_cast<GpuSeconds>(rounded);
}

Schedule::Schedule(GpuSeconds credit, int months)
    : credit_(credit), months_(months), grace_(GraceFor(credit)) {
  assert(credit > 0 && "a schedule needs a positive credit");
  assert(months >= 1 && "a schedule needs at least one month");
  closed_.reserve(static_cast<std::size_t>(months));
}

MonthRow Schedule::Open() const {
  assert(!over() && "Schedule::Open() after the last month");
  MonthRow row;
  row.month = closed_months() + 1;
  row.accounted_before = accounted_;
  // credit * m overflows int64 for credits above ~2.5e5 GPU-years; integer
  // division makes ideal(D) == credit exactly.
  row.ideal = static_cast<GpuSeconds>(static_cast<__int128>(credit_) * row.month / months_);
  row.expected = row.ideal - accounted_;
  row.has_minimal = row.expected > 0;
  row.minimal = MinimalOf(row.expected, grace_);
  row.remaining = credit_ - accounted_;
  return row;
}

Status Schedule::Close(int month, GpuSeconds used) {
  if (used < 0) {
    return Error{"month " + std::to_string(month) + ": usage must not be negative, got " +
                 std::to_string(used) + " GPU-seconds"};
  }
  if (month < 1 || month > months_) {
    return Error{"month " + std::to_string(month) + " is outside the project's months 1.." +
                 std::to_string(months_)};
  }
  if (month <= closed_months()) {
    return Ok();  // already closed: a repeated close must not charge twice
  }
  if (month > closed_months() + 1) {
    return Error{"month " + std::to_string(month) + " cannot close before month " +
                 std::to_string(closed_months() + 1)};
  }
  MonthRow row = Open();
  const GpuSeconds charged = std::max(used, row.minimal);
  GpuSeconds accounted = 0;
  if (__builtin_add_overflow(accounted_, charged, &accounted)) {
    return Error{"month " + std::to_string(month) + ": usage " + std::to_string(used) +
                 " GPU-seconds is too large to account"};
  }
  row.closed = true;
  row.used = used;
  if (used >= row.minimal) {
    row.lost = 0;
    row.graced = std::max<GpuSeconds>(0, row.expected - used);
  } else {
    row.lost = row.minimal - used;
    row.graced = row.expected - row.minimal;
  }
  accounted_ = accounted;
  row.remaining = credit_ - accounted_;
  closed_.push_back(row);
  assert(credit_ == accounted_ + remaining() && "conservation of credit");
  return Ok();
}

}  // namespace budget
