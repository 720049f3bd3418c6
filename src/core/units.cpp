// Display of GPU-second amounts as GPU hours.
#include "budget/units.hpp"

#include <cstdint>
#include <string>

namespace budget {

namespace {

// "1234567" -> "1,234,567".
std::string GroupThousands(std::uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  const std::size_t lead = digits.size() % 3;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (i % 3) == lead % 3) {
      out.push_back(',');
    }
    out.push_back(digits[i]);
  }
  return out;
}

}  // namespace

std::string FormatGpuHours(GpuSeconds s) {
  // Work on the magnitude in unsigned arithmetic so that INT64_MIN has one.
  const bool negative = s < 0;
  const std::uint64_t magnitude =
      negative ? static_cast<std::uint64_t>(-(s + 1)) + 1U : static_cast<std::uint64_t>(s);
  // Round once, to tenths of an hour (half away from zero), so that a value
  // that shows as whole is whole at the precision displayed.
  constexpr std::uint64_t kTenth = kGpuSecondsPerGpuHour / 10;
  const std::uint64_t tenths = magnitude / kTenth + ((magnitude % kTenth) * 2 >= kTenth ? 1U : 0U);
  if (tenths == 0) {
    return "0";  // never "-0"
  }
  std::string out = negative ? "-" : "";
  out += GroupThousands(tenths / 10);
  if (tenths % 10 != 0) {
    out.push_back('.');
    out.push_back(static_cast<char>('0' + tenths % 10));
  }
  return out;
}

}  // namespace budget
