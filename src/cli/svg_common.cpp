// What every SVG chart of sbudget shares: escaping text for XML, and axis ticks.
#include "svg_common.hpp"

#include <algorithm>
#include <cmath>

namespace budget::cli {

std::string EscapeXml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

double TickStep(double top) {
  const double raw = top / 8;
  const double power = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-9))));
  for (const double f : {1.0, 2.0, 2.5, 5.0}) {
    if (f * power >= raw) {
      return f * power;
    }
  }
  return 10 * power;
}

}  // namespace budget::cli
