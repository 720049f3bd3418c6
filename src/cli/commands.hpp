// The verbs of sbudget: each file adds one subcommand to the application.
#pragma once

#include <CLI/CLI.hpp>

#include "cli_error.hpp"

namespace budget::cli {

void AddSimulateCommand(CLI::App& app);     // simulate.cpp
void AddCheckConfigCommand(CLI::App& app);  // check_config.cpp
void AddLedgerCommand(CLI::App& app);       // ledger_command.cpp
// `sbudget` without a verb (options on the application itself): view_command.cpp.
void AddProjectView(CLI::App& app);
void AddPlotCommand(CLI::App& app);    // plot_command.cpp
void AddWhyCommand(CLI::App& app);     // why_command.cpp
void AddReplayCommand(CLI::App& app);  // replay_command.cpp

// The error for --config given to check-config, after the verb (check_config.cpp) or before it
// (view_command.cpp).
inline constexpr const char* kCheckConfigTakesTheFile =
    "check-config takes the file as its argument, not --config: sbudget check-config FILE";

}  // namespace budget::cli
