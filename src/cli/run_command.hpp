// Runs a Slurm client command (sacct, sacctmgr, squeue, sprio, scontrol) and captures its output.
#pragma once

#include <string>
#include <vector>

namespace budget::cli {

struct CommandOutput {
  int exit_status = 0;  // 0..255, as the command exited
  std::string out;      // everything it printed on stdout
};

// Runs `argv` (argv[0] found on PATH, as a shell would) with sbudget's
// environment plus `overrides` ("NAME=value", replacing any NAME already set),
// and returns its exit status and standard output. Its standard error goes to
// ours, so Slurm's own messages reach the user. Fails (prints
// `sbudget: error: cannot run NAME: REASON (is it on PATH?)` or
// `sbudget: error: NAME was killed by signal N`, then throws
// ExitStatus(kExitFailure)) when the command cannot start or dies of a signal.
CommandOutput RunCommand(const std::vector<std::string>& argv,
                         const std::vector<std::string>& overrides = {});

// RunCommand, and fails with `sbudget: error: NAME failed with exit status N`
// unless the command exits with 0; returns its standard output.
std::string RunCapturing(const std::vector<std::string>& argv,
                         const std::vector<std::string>& overrides = {});

}  // namespace budget::cli
