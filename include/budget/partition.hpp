// How a Slurm partition is billed and ranked, as budget.conf declares it.
#pragma once

#include <string>

#include "budget/units.hpp"

namespace budget {

enum class PartitionRole {
  kBudgeted,  // usage charged to the project's credit; budget fair-share applies
  kLow,       // usage charged to the low allowance (one month of budget)
};

struct PartitionRate {
  std::string name;  // the Slurm partition name
  PartitionRole role = PartitionRole::kBudgeted;
  MilliRate rate = kGh200MilliRate;  // GPUh per node-hour, in thousandths

  friend bool operator==(const PartitionRate&, const PartitionRate&) = default;
};

// Partitions not declared in budget.conf are not billed and carry no budget
// fair-share (documented in docs/design.md).

}  // namespace budget
