// How sbudget's verbs fail: one message on stderr, then an exit status. The verbs throw these
// two exceptions of sbudget's own, not CLI11's, so that only the files that build the command
// line include CLI11 (the largest header of the CLI to compile and to lint).
#pragma once

#include <stdexcept>
#include <string>

#include "budget/config.hpp"

namespace budget::cli {

// Exit codes shared by every verb.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // the command ran and found a problem
inline constexpr int kExitBadUsage = 2;  // bad arguments: one-line error

// Thrown once the verb has said why it stops: main() exits with `status`, printing nothing.
class ExitStatus : public std::exception {
 public:
  explicit ExitStatus(int status) : status_(status) {}
  int status() const { return status_; }
  const char* what() const noexcept override { return "sbudget: exit status"; }

 private:
  int status_;
};

// Bad arguments a verb finds itself, in one line: main() prints `sbudget: error: MESSAGE` and
// exits with kExitBadUsage, as for the errors CLI11 finds (unknown option, missing value).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Prints `sbudget: error: MESSAGE` on stderr and throws ExitStatus(kExitFailure): the command
// ran and found a problem.
[[noreturn]] void Fail(const std::string& message);

// Prints `lines` (FILE:LINE: messages) bare on stderr, as a compiler does, so that editors can
// jump to them, and throws ExitStatus(kExitFailure).
[[noreturn]] void FailWithLines(const std::string& lines);

// The bytes of the file at `path` (ReadTextFile), or Fail with "cannot read PATH: reason".
std::string ReadFileOrFail(const std::string& path);

// The budget.conf at `path`, or fails: a file that cannot be read as ReadFileOrFail, one with
// errors with its FILE:LINE: lines (FailWithLines), as check-config prints them.
BudgetConfig ReadBudgetConfOrFail(const std::string& path);

}  // namespace budget::cli
