// sbudget: the command line entry point; parses arguments and runs one verb.
//
// Contract for verbs (each file adding a subcommand): the verb's callback prints
// its own output. To end with a non-zero status after printing, it throws
// ExitStatus(code) (e.g. kExitFailure; Fail prints, then throws). Bad arguments
// it detects itself are thrown as UsageError("one-line message"): main prints
// "sbudget: error: <message>" on stderr and exits with kExitBadUsage, as for the
// errors CLI11 finds (unknown option, missing value). Both are in cli_error.hpp.
//
// Without a verb, sbudget shows the caller's projects (view_command.cpp): its
// options (-A, --all, --users, --json, ...) belong to the application itself.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "commands.hpp"

namespace {

// CLI11 messages are one line; keep that promise even if one is not.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n') {
      c = ' ';
    }
  }
  return text;
}

int Run(int argc, char** argv) {
  CLI::App app{"GPU-hour project budgets on Slurm: linear credits with grace", "sbudget"};
  app.require_subcommand(0, 1);
  // As Slurm's commands print "slurm 22.05.8" for -V: the version an admin reports with a bug.
  app.set_version_flag("-V,--version", "sbudget " SBUDGET_VERSION,
                       "print sbudget's version (that of the plugins it comes with) and exit");
  budget::cli::AddSimulateCommand(app);
  budget::cli::AddCheckConfigCommand(app);
  budget::cli::AddLedgerCommand(app);
  budget::cli::AddPlotCommand(app);
  budget::cli::AddWhyCommand(app);
  budget::cli::AddReplayCommand(app);
  budget::cli::AddProjectView(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help: CLI11 prints the help of the chosen verb on stdout
  } catch (const budget::cli::ExitStatus& e) {
    return e.status();  // the verb already said why
  } catch (const budget::cli::UsageError& e) {
    fmt::print(stderr, "sbudget: error: {}\n", OneLine(e.what()));
    return budget::cli::kExitBadUsage;
  } catch (const CLI::ParseError& e) {
    // CLI11 checks for a missing verb before unknown words, so a misspelt verb
    // would only read "A subcommand is required"; name the word instead.
    const std::vector<std::string> extra = app.remaining();
    if (app.get_subcommands().empty() && !extra.empty()) {
      fmt::print(stderr, "sbudget: error: unknown {} \"{}\"\n",
                 extra.front().starts_with('-') ? "option" : "command", extra.front());
    } else {
      fmt::print(stderr, "sbudget: error: {}\n", OneLine(e.what()));
    }
    return budget::cli::kExitBadUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "sbudget: error: {}\n", OneLine(e.what()));
    return budget::cli::kExitFailure;
  }
  return budget::cli::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (...) {
    // Even printing failed (out of memory, closed stderr): say little, safely.
    std::fputs("sbudget: error: unexpected failure\n", stderr);
    return budget::cli::kExitFailure;
  }
}
