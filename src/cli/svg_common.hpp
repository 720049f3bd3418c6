// What every SVG chart of sbudget shares: escaping text for XML, and axis ticks.
#pragma once

#include <string>
#include <string_view>

namespace budget::cli {

// `text` with &, <, > and " escaped, fit for SVG text and attribute values.
std::string EscapeXml(std::string_view text);

// A tick step of 1, 2, 2.5 or 5 x 10^k giving at most 8 ticks from 0 up to
// `top` (> 0; a smaller top is read as 1e-9).
double TickStep(double top);

}  // namespace budget::cli
