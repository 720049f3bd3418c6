// How sbudget's verbs fail: one message on stderr, then the exit status kExitFailure.
#pragma once

#include <string>

#include "budget/config.hpp"

namespace budget::cli {

// Prints `sbudget: error: MESSAGE` on stderr and throws CLI::RuntimeError(kExitFailure), which
// main() turns into the exit status: the command ran and found a problem.
[[noreturn]] void Fail(const std::string& message);

// Prints `lines` (FILE:LINE: messages) bare on stderr, as a compiler does, so that editors can
// jump to them, and throws CLI::RuntimeError(kExitFailure).
[[noreturn]] void FailWithLines(const std::string& lines);

// The bytes of the file at `path` (ReadTextFile), or Fail with "cannot read PATH: reason".
std::string ReadFileOrFail(const std::string& path);

// The budget.conf at `path`, or fails: a file that cannot be read as ReadFileOrFail, one with
// errors with its FILE:LINE: lines (FailWithLines), as check-config prints them.
BudgetConfig ReadBudgetConfOrFail(const std::string& path);

}  // namespace budget::cli
