// How sbudget's verbs fail (see cli_error.hpp).
#include "cli_error.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "commands.hpp"

namespace budget::cli {

void Fail(const std::string& message) {
  fmt::print(stderr, "sbudget: error: {}\n", message);
  throw CLI::RuntimeError(kExitFailure);
}

}  // namespace budget::cli
