// Runs a Slurm client command with posix_spawnp and captures its standard output.
#include "run_command.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "cli_error.hpp"

namespace budget::cli {
namespace {

// NULL-terminated pointers into `strings`, which must outlive them.
std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (std::string& s : strings) {
    pointers.push_back(s.data());
  }
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

CommandOutput RunCommand(const std::vector<std::string>& argv,
                         const std::vector<std::string>& overrides) {
  std::vector<std::string> env_strings = overrides;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const bool overridden = std::any_of(overrides.begin(), overrides.end(), [&](const auto& o) {
      return entry.starts_with(o.substr(0, o.find('=') + 1));
    });
    if (!overridden) {
      env_strings.emplace_back(entry);
    }
  }
  std::vector<char*> envp = Pointers(env_strings);
  std::vector<std::string> argv_strings = argv;
  std::vector<char*> args = Pointers(argv_strings);

  const std::string& name = argv.front();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    Fail(fmt::format("cannot run {}: {}", name, std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, name.c_str(), &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    Fail(fmt::format("cannot run {}: {} (is it on PATH?)", name, std::strerror(spawned)));
  }
  CommandOutput result;
  char buffer[65536];
  while (true) {
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n > 0) {
      result.out.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    Fail(fmt::format("{} was killed by signal {}", name, WTERMSIG(status)));
  }
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  return result;
}

std::string RunCapturing(const std::vector<std::string>& argv,
                         const std::vector<std::string>& overrides) {
  CommandOutput result = RunCommand(argv, overrides);
  if (result.exit_status != 0) {
    Fail(fmt::format("{} failed with exit status {}", argv.front(), result.exit_status));
  }
  return std::move(result.out);
}

}  // namespace budget::cli
