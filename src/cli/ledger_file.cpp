// The plugin's ledger file as sbudget's verbs read it (see ledger_file.hpp).
#include "ledger_file.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <utility>

#include "budget/state_file.hpp"
#include "cli_error.hpp"

namespace budget::cli {

Ledger ReadLedgerOrFail(const std::string& path, MissingLedger missing) {
  auto loaded = LoadLedgerFile(path);
  if (!loaded) {
    Fail(loaded.error());
  }
  for (const auto& warning : loaded.value().warnings) {
    fmt::print(stderr, "sbudget: {}\n", warning);
  }
  if (loaded.value().fresh && missing == MissingLedger::kFail && path != "/dev/null") {
    // The plugin, by contrast, starts empty: its first start has no ledger yet.
    Fail(
        fmt::format("no ledger at {} (nor {}.old): slurmctld's priority/budget saves it in its "
                    "StateSaveLocation after its first pass; --ledger names the file",
                    path, path));
  }
  return std::move(loaded.value().ledger);
}

}  // namespace budget::cli
