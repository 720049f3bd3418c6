// How sbudget's verbs fail: one message on stderr, then the exit status kExitFailure.
#pragma once

#include <string>

namespace budget::cli {

// Prints `sbudget: error: MESSAGE` on stderr and throws CLI::RuntimeError(kExitFailure), which
// main() turns into the exit status: the command ran and found a problem.
[[noreturn]] void Fail(const std::string& message);

// The bytes of the file at `path` (ReadTextFile), or Fail with "cannot read PATH: reason".
std::string ReadFileOrFail(const std::string& path);

}  // namespace budget::cli
