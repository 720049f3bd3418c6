// budget.conf's lookups by name, asked per job at run time. Apart from the
// parser in config.cpp, which runs only at start and on reconfigure and is
// built for size (src/core/CMakeLists.txt): these are built for speed.
#include "budget/config.hpp"
#include "budget/same_name.hpp"

namespace budget {

const ProjectSpec* BudgetConfig::FindProject(std::string_view account) const {
  for (const ProjectSpec& p : projects) {
    if (SameName(p.account, account)) {
      return &p;
    }
  }
  return nullptr;
}

[[gnu::hot]] const PartitionRate* BudgetConfig::FindPartition(std::string_view name) const {
  for (const PartitionRate& p : partitions) {
    if (SameName(p.name, name)) {
      return &p;
    }
  }
  return nullptr;
}

}  // namespace budget
