// The ledger's state file: a checksummed text format, and its crash-safe save and load.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "budget/ledger.hpp"
#include "budget/result.hpp"
#include "budget/units.hpp"

namespace budget {

// The first line of every state file is `slurm-budget-ledger <version>`.
inline constexpr std::string_view kLedgerMagic = "slurm-budget-ledger";
// The format this build writes, and the newest it reads.
inline constexpr int kLedgerFormatVersion = 1;

// Format, version 1. Text, one record per line, '\n' line ends, so that an
// admin can read it (sbudget is the tool to change it):
//
//   slurm-budget-ledger 1
//   # comment lines (written by the encoder to explain the fields)
//   saved-at 1777593600
//   decayed-at 1777593600            ("decayed-at none" before any decay)
//   project chem closed=2 decayed=1234.5 budgeted=0,2700000,4500000 low=
//   user chem alice decayed=1000.25 carry=250,0 budgeted=0,2700000,3600000 low=
//   user chem bob decayed=234.25 carry=0,0 budgeted=0,0,900000 low=
//   checksum fnv1a64 89ab0123cdef4567
//
// - Amounts are GPU-seconds. budgeted= and low= list a project's (or user's)
//   usage by project month from month 0 (preparatory), comma-separated, empty
//   when there is none. closed= is Ledger closed months; carry= the user's
//   thousandths of a GPU-second not yet charged (budgeted, low).
// - decayed= is the fair-share usage, written in the shortest form that reads
//   back to the same double (std::to_chars), so a round trip is exact.
// - Each project line comes before the user lines of that project. Its
//   budgeted= and low= must equal the sum over its users (checked on load).
// - Account and user names are written with bytes outside [A-Za-z0-9._@+:-]
//   as %XX (hex); an empty name is written `-`, a name `-` as `%2D`.
// - The last line is the FNV-1a 64-bit hash of every byte before it, in 16
//   lowercase hex digits; the file ends with '\n' after it.
// - Blank lines and lines starting with '#' are ignored.

struct DecodedLedger {
  Ledger ledger;
  UnixTime saved_at = 0;  // the saved_at given to EncodeLedger
};

// FNV-1a, 64 bits, over `bytes` (the checksum of the state file).
std::uint64_t Fnv1a64(std::string_view bytes);

// The state file's bytes for `ledger`. Deterministic: projects and users in
// name order.
std::string EncodeLedger(const Ledger& ledger, UnixTime saved_at);

// Reads what EncodeLedger wrote; DecodeLedger(EncodeLedger(l, t)) gives back
// l == ledger and t exactly. Refuses, with a message that says why:
//   - an empty (zero-length) input;
//   - a first line that is not `slurm-budget-ledger <version>`;
//   - a version newer than kLedgerFormatVersion (the message names both);
//   - a missing or cut checksum line (truncated file), a checksum mismatch;
//   - a malformed line ("line N: ..."), a duplicate or missing record;
//   - records that break a ledger invariant (see Ledger::Restore).
Result<DecodedLedger> DecodeLedger(std::string_view bytes);

// Saves `ledger` to `path`, crash-safe:
//   1. writes `path.new` (mode 0600) and fsyncs it;
//   2. keeps the current `path`, if it is a valid state file, as `path.old`
//      (hard link, atomically replacing the previous `path.old`; a current
//      file that is not valid is left alone so that it never replaces a good
//      `path.old`);
//   3. renames `path.new` to `path`, and fsyncs the directory.
// At every instant `path` or `path.old` holds a complete ledger.
// A path of "/dev/null" writes nothing and succeeds. Errors name the file and
// the system's reason: `cannot write /var/spool/budget.ledger.new: No space left on device`.
Status SaveLedgerFile(const std::string& path, const Ledger& ledger, UnixTime saved_at);
// The same steps for bytes EncodeLedger gave: a caller can take its snapshot
// under its own lock and write it (fsyncs included) after releasing it.
Status SaveEncodedLedgerFile(const std::string& path, const std::string& encoded);

struct LoadedLedger {
  Ledger ledger;
  UnixTime saved_at = 0;
  // No state file at all: the first start. The ledger is empty.
  bool fresh = false;
  // The file actually read ("" when fresh): path, path.old or path.new.
  std::string source;
  // For the log: why the main copy was refused and which copy was used.
  std::vector<std::string> warnings;
};

// Loads the ledger SaveLedgerFile wrote to `path`:
//   - `path` valid: it, no warning;
//   - `path` missing, unreadable or refused: `path.old` if valid, with a
//     warning saying why `path` was refused and when `path.old` was saved;
//   - neither `path` nor `path.old` exists: `path.new` if it is a valid file
//     (a first save cut before its rename), with a warning; else an empty
//     ledger flagged `fresh` (with a warning when a broken `path.new` was
//     found);
//   - otherwise an error naming both files and both reasons: never a silent
//     reset of the usage.
// A path of "/dev/null" loads a fresh empty ledger.
Result<LoadedLedger> LoadLedgerFile(const std::string& path);

}  // namespace budget
