// Whether a file the controller trusts (budget.conf, the ledger) could have been written by someone
// else.
#pragma once

#include <string>
#include <string_view>

#include "budget/result.hpp"

namespace budget {

// Checks that only a trusted user can change the file at `path`: budget.conf
// sets every project's credit, and the ledger holds its usage, so a file that
// any other user can write is a way to grant oneself GPU hours.
//
// Trusted means, for the file as stat(2) sees it (a symbolic link is followed:
// what matters is the file read):
//   - its owner is root or the process's effective user (slurmctld runs as
//     SlurmUser, so that is SlurmUser);
//   - its mode has neither the group- nor the others-write bit (0644, 0640,
//     0600 and 0400 are fine; 0664, 0666 and 0646 are not).
// A missing file is not an error here (the loader reports it, or starts a
// fresh ledger). Any other stat failure is an error.
//
// `what` names the file's role in the message, e.g. "budget.conf" or
// "ledger". Messages name the role, the path, the mode in octal and the fix:
//   refusing budget.conf /etc/slurm/budget.conf: mode 0664 lets group
//   members write it; run: chmod go-w /etc/slurm/budget.conf
//   refusing ledger /var/spool/slurm/budget_ledger: owned by uid 1001, not by
//   root or this process's user (uid 64030); run: chown 64030 ...
Status CheckTrustedFile(const std::string& path, std::string_view what);

}  // namespace budget
