// Billing: CHF prices of GPU-hours and the split of usage into project months.
#include "budget/billing.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace budget {

Centimes ChfOf(GpuSeconds usage, Centimes price_per_node_hour, MilliRate rate) {
  if (rate <= 0) {
    return 0;
  }
  // centimes = usage / 3600 GPUh / (rate / 1000) GPUh per node-hour * price,
  // as one fraction so that nothing is rounded before the end; the product
  // can exceed int64 for long-running large projects.
  const __int128 numerator = static_cast<__int128>(usage) * 1000 * price_per_node_hour;
  const __int128 denominator = static_cast<__int128>(kGpuSecondsPerGpuHour) * rate;
  const __int128 magnitude = numerator < 0 ? -numerator : numerator;
  const __int128 rounded = (magnitude * 2 + denominator) / (denominator * 2);
  return static_cast<Centimes>(numerator < 0 ? -rounded : rounded);
}

std::string FormatChf(Centimes amount) {
  const bool negative = amount < 0;
  const std::uint64_t magnitude = negative ? static_cast<std::uint64_t>(-(amount + 1)) + 1U
                                           : static_cast<std::uint64_t>(amount);
  const std::string francs = std::to_string(magnitude / 100);
  std::string out = negative ? "-" : "";
  const std::size_t lead = francs.size() % 3;
  for (std::size_t i = 0; i < francs.size(); ++i) {
    if (i != 0 && i % 3 == lead) {
      out.push_back(',');
    }
    out.push_back(francs[i]);
  }
  const std::uint64_t cents = magnitude % 100;
  out.push_back('.');
  out.push_back(static_cast<char>('0' + cents / 10));
  out.push_back(static_cast<char>('0' + cents % 10));
  return out;
}

std::vector<MonthSlice> SplitByProjectMonth(const ProjectCalendar& calendar, const TimeZone& zone,
                                            UnixTime from, UnixTime to) {
  std::vector<MonthSlice> slices;
  if (to <= from) {
    return slices;
  }
  // Boundary m (1..months()+1) is where project month m begins; month 0 is
  // everything before the first boundary.
  const int last = calendar.months() + 1;
  const auto boundary = [&](int m) { return zone.MidnightOf(calendar.MonthStart(m)); };
  // The month of from's local date, then checked against its boundaries: a
  // pass accrues at one `from`, whose date the zone remembers, where walking
  // up from month 1 took a midnight a month. The check keeps the split
  // exactly at the boundaries, wherever the zone puts a date's midnight.
  int month = calendar.MonthAt(zone.DateAt(from));
  while (month > 0 && boundary(month) > from) {
    --month;
  }
  // Where `month` ends: the next boundary, or never after the last.
  const auto end_of = [&](int m) {
    return m < last ? boundary(m + 1) : std::numeric_limits<UnixTime>::max();
  };
  UnixTime month_end = end_of(month);
  while (month_end <= from) {
    month_end = end_of(++month);
  }
  for (UnixTime cursor = from;;) {
    const UnixTime end = std::min(to, month_end);
    slices.push_back(MonthSlice{month, cursor, end});
    if (end == to) {
      return slices;
    }
    cursor = end;
    month_end = end_of(++month);
  }
}

}  // namespace budget
