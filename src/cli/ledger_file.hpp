// The plugin's ledger file as sbudget's verbs read it.
#pragma once

#include <string>

#include "budget/ledger.hpp"

namespace budget::cli {

// What a verb does when no copy of the ledger exists (no path, path.old or path.new).
enum class MissingLedger {
  kFail,        // the views and `ledger show`: a mistyped --ledger must not read as no usage
  kStartEmpty,  // `ledger import`: it starts the ledger
};

// The ledger at `path` as the plugin loads it (LoadLedgerFile: the previous copy when the file
// is refused, with a warning, printed as `sbudget: WARNING`). Fails (cli_error.hpp) when it
// cannot be loaded, and when no copy exists unless `missing` is kStartEmpty. "/dev/null" is an
// empty ledger on purpose.
Ledger ReadLedgerOrFail(const std::string& path, MissingLedger missing);

}  // namespace budget::cli
