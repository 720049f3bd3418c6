// Multi-line error texts: every error of a file is one line of one message.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace budget {

// The lines joined with '\n' (no trailing newline); "" for none.
std::string JoinLines(const std::vector<std::string>& lines);

// The non-empty lines of `text`, without their '\n'.
std::vector<std::string> SplitLines(std::string_view text);

}  // namespace budget
