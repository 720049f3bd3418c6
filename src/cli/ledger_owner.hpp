// Gives the ledger files root wrote to the owner of their directory (SlurmUser), so slurmctld can
// read them.
#pragma once

#include <string>

#include "budget/result.hpp"

namespace budget::cli {

// Run after SaveLedgerFile(ledger_path, ...) by `sbudget ledger import`. SaveLedgerFile writes
// mode 0600 files owned by the process's user; run as root, that is a ledger slurmctld, running
// as SlurmUser, cannot read ("cannot load the usage ledger", and slurmctld stops). The directory
// holding the ledger is StateSaveLocation, which belongs to SlurmUser, so when this process runs
// as root and the directory belongs to another user, `ledger_path` and `ledger_path.old` (the
// previous copy SaveLedgerFile kept), if owned by root, get the directory's owner and group.
// The plugin's trust check (file_trust.hpp) accepts a file owned by its own user at mode 0600.
//
// Returns what was done, for the import's summary line, e.g.
//   budget_ledger and budget_ledger.old given to slurm:slurm, the owner of /var/spool/slurmctld
// or "" when nothing was changed: not root, a directory of root's, "/dev/null", or no file
// owned by root.
//
// The directory's owner can put anything in it, so a file is changed only if it is a regular
// file with one link, through a descriptor opened without following a symbolic link: a link to,
// say, /etc/shadow must not hand that file over. A root-owned file of another kind is an error
// naming it; a failed chown, one naming the command to run by hand.
Result<std::string> GiveLedgerToDirectoryOwner(const std::string& ledger_path);

}  // namespace budget::cli
