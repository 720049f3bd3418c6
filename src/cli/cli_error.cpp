// How sbudget's verbs fail (see cli_error.hpp).
#include "cli_error.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <utility>

#include "budget/read_file.hpp"

namespace budget::cli {

void Fail(const std::string& message) {
  fmt::print(stderr, "sbudget: error: {}\n", message);
  throw ExitStatus(kExitFailure);
}

void FailWithLines(const std::string& lines) {
  fmt::print(stderr, "{}\n", lines);
  throw ExitStatus(kExitFailure);
}

std::string ReadFileOrFail(const std::string& path) {
  Result<std::string> text = ReadTextFile(path);
  if (!text) {
    Fail(text.error());
  }
  return std::move(text).value();
}

BudgetConfig ReadBudgetConfOrFail(const std::string& path) {
  Result<BudgetConfig> config = ParseBudgetConfig(ReadFileOrFail(path), path);
  if (!config) {
    FailWithLines(config.error());
  }
  return std::move(config).value();
}

}  // namespace budget::cli
