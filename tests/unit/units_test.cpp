// Tests of the integer units and their display (units.hpp).
#include "budget/units.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace budget {
namespace {

TEST(Units, GpuHoursConvertsToGpuSeconds) {
  EXPECT_EQ(GpuHours(1), 3600);
  EXPECT_EQ(GpuHours(6'000), 21'600'000);
  EXPECT_DOUBLE_EQ(ToGpuHours(5'400), 1.5);
}

TEST(Units, BillChargesFourGpuHoursPerGh200NodeHour) {
  // policy.md §2: 3 hours on 4 nodes = 12 node-hours = 48 GPUh.
  EXPECT_EQ(Bill(3 * 3600 * 4, kGh200MilliRate), GpuHours(48));
  // A fractional rate rounds down to whole GPU-seconds.
  EXPECT_EQ(Bill(3, 250), 0);
  EXPECT_EQ(Bill(4, 250), 1);
}

TEST(FormatGpuHours, WholeHoursGetThousandsSeparators) {
  EXPECT_EQ(FormatGpuHours(0), "0");
  EXPECT_EQ(FormatGpuHours(GpuHours(1)), "1");
  EXPECT_EQ(FormatGpuHours(GpuHours(999)), "999");
  EXPECT_EQ(FormatGpuHours(GpuHours(1'000)), "1,000");
  EXPECT_EQ(FormatGpuHours(GpuHours(6'000)), "6,000");
  EXPECT_EQ(FormatGpuHours(GpuHours(123'456)), "123,456");
  EXPECT_EQ(FormatGpuHours(GpuHours(1'234'567)), "1,234,567");
}

TEST(FormatGpuHours, FractionalHoursGetOneDecimal) {
  EXPECT_EQ(FormatGpuHours(GpuHours(1'234) + 1'800), "1,234.5");
  EXPECT_EQ(FormatGpuHours(360), "0.1");
  // 0.04 GPUh rounds to 0.0 and shows as whole.
  EXPECT_EQ(FormatGpuHours(GpuHours(12) + 144), "12");
  // 0.05 GPUh (180 GPU-seconds) is a half tenth: rounds away from zero.
  EXPECT_EQ(FormatGpuHours(180), "0.1");
  EXPECT_EQ(FormatGpuHours(179), "0");
  // 0.96 GPUh rounds up into the next whole hour.
  EXPECT_EQ(FormatGpuHours(GpuHours(999) + 3'456), "1,000");
}

TEST(FormatGpuHours, NegativeAmountsKeepTheirSign) {
  EXPECT_EQ(FormatGpuHours(-GpuHours(500)), "-500");
  EXPECT_EQ(FormatGpuHours(-GpuHours(1'500) - 1'800), "-1,500.5");
  EXPECT_EQ(FormatGpuHours(-100), "0");  // never "-0"
}

TEST(FormatGpuHours, ExtremesDoNotOverflow) {
  constexpr GpuSeconds kMax = std::numeric_limits<GpuSeconds>::max();
  constexpr GpuSeconds kMin = std::numeric_limits<GpuSeconds>::min();
  // 9,223,372,036,854,775,807 s = 2,562,047,788,015,215.5 GPUh.
  EXPECT_EQ(FormatGpuHours(kMax), "2,562,047,788,015,215.5");
  EXPECT_EQ(FormatGpuHours(kMin), "-2,562,047,788,015,215.5");
}

}  // namespace
}  // namespace budget
