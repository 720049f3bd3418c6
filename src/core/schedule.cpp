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

Error NegativeUsage(int month, GpuSeconds used) {
  return Error{"month " + std::to_string(month) + ": usage must not be negative, got " +
               std::to_string(used) + " GPU-seconds"};
}

// product / denominator rounded to nearest, an exact half down (in the
// project's favour). product >= 0, denominator > 0.
template <typename Wide>
Wide RoundedQuotient(Wide product, Wide denominator) {
  const Wide quotient = product / denominator;
  const Wide remainder = product % denominator;
  return remainder * 2 > denominator ? quotient + 1 : quotient;
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
  // The 128-bit division costs several times the 64-bit one, and a pass
  // computes a minimal for every closed month of every project: it is kept
  // for those.
  const std::int64_t kept = grace.denominator - grace.numerator;
  std::int64_t product = 0;
  if (!__builtin_mul_overflow(expected, kept, &product)) {
    return RoundedQuotient(product, grace.denominator);
  }
  return static_cast<GpuSeconds>(
      RoundedQuotient(static_cast<__int128>(expected) * kept, __int128{grace.denominator}));
}

SchedulePosition::SchedulePosition(GpuSeconds credit, int months)
    : credit_(credit), months_(months), grace_(GraceFor(credit)) {
  assert(credit > 0 && "a schedule needs a positive credit");
  assert(months >= 1 && "a schedule needs at least one month");
}

SchedulePosition::SchedulePosition(GpuSeconds credit, int months, int closed_months,
                                   GpuSeconds accounted)
    : SchedulePosition(credit, months) {
  assert(closed_months >= 0 && closed_months <= months && "closed months out of the schedule");
  closed_months_ = closed_months;
  accounted_ = accounted;
}

MonthRow SchedulePosition::Open() const {
  assert(!over() && "SchedulePosition::Open() after the last month");
  MonthRow row;
  row.month = closed_months_ + 1;
  row.accounted_before = accounted_;
  // credit * m / D, rounded down: integer division makes ideal(D) == credit
  // exactly. credit * m overflows int64 for credits above ~2.5e5 GPU-years;
  // only those pay for the 128-bit division.
  std::int64_t product = 0;
  row.ideal = __builtin_mul_overflow(credit_, row.month, &product)
                  ? static_cast<GpuSeconds>(static_cast<__int128>(credit_) * row.month / months_)
                  : product / months_;
  row.expected = row.ideal - accounted_;
  row.has_minimal = row.expected > 0;
  row.minimal = MinimalOf(row.expected, grace_);
  row.remaining = credit_ - accounted_;
  return row;
}

Result<MonthRow> SchedulePosition::CloseNext(GpuSeconds used) {
  MonthRow row = Open();
  if (used < 0) {
    return NegativeUsage(row.month, used);
  }
  const GpuSeconds charged = std::max(used, row.minimal);
  GpuSeconds accounted = 0;
  if (__builtin_add_overflow(accounted_, charged, &accounted)) {
    return Error{"month " + std::to_string(row.month) + ": usage " + std::to_string(used) +
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
  ++closed_months_;
  row.remaining = credit_ - accounted_;
  assert(credit_ == accounted_ + remaining() && "conservation of credit");
  return row;
}

Schedule::Schedule(GpuSeconds credit, int months) : position_(credit, months) {
  closed_.reserve(static_cast<std::size_t>(months));
}

Status Schedule::Close(int month, GpuSeconds used) {
  if (used < 0) {
    return NegativeUsage(month, used);
  }
  if (month < 1 || month > months()) {
    return Error{"month " + std::to_string(month) + " is outside the project's months 1.." +
                 std::to_string(months())};
  }
  if (month <= closed_months()) {
    return Ok();  // already closed: a repeated close must not charge twice
  }
  if (month > closed_months() + 1) {
    return Error{"month " + std::to_string(month) + " cannot close before month " +
                 std::to_string(closed_months() + 1)};
  }
  Result<MonthRow> row = position_.CloseNext(used);
  if (!row) {
    return Error{row.error()};
  }
  closed_.push_back(row.value());
  return Ok();
}

}  // namespace budget
