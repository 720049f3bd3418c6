// libFuzzer target: budget.conf's parser (ParseBudgetConfig) on arbitrary bytes.
//
// Any input must give a configuration or an error, never a crash, a hang or
// undefined behaviour (built with -fsanitize=fuzzer,address,undefined). A
// configuration that parses must also keep the contract config.hpp states, so
// that a bug in validation shows up here, not in slurmctld.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "budget/config.hpp"

namespace {

void Require(bool holds, const char* what) {
  if (!holds) {
    std::fprintf(stderr, "config_fuzzer: broken contract: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  budget::Result<budget::BudgetConfig> parsed = budget::ParseBudgetConfig(text, "fuzz.conf");
  if (!parsed.ok()) {
    Require(!parsed.error().empty(), "an error has a message");
    Require(parsed.error().rfind("fuzz.conf:", 0) == 0, "an error names the file");
    return 0;
  }
  const budget::BudgetConfig& config = parsed.value();
  std::set<std::string_view> accounts;
  for (const budget::ProjectSpec& p : config.projects) {
    Require(budget::IsSlurmAccountName(p.account), "a project's account is a Slurm account name");
    Require(accounts.insert(p.account).second, "accounts are unique");
    Require(p.credit > 0 && p.credit % budget::kGpuSecondsPerGpuHour == 0,
            "credit is a whole positive number of GPU hours");
    Require(p.credit <= budget::GpuHours(budget::kMaxCreditGpuHours), "credit is bounded");
    Require(p.calendar.months() == 6 || p.calendar.months() == 12, "6 or 12 months");
    Require(p.MonthlyBudget() > 0, "a month of budget is positive");
    Require(!p.pis.empty(), "at least one PI");
    Require(p.price_per_node_hour > 0 && p.price_per_node_hour <= budget::kMaxNodeHourPrice,
            "price in range");
    Require(p.storage_tb > 0 && p.storage_inodes > 0, "storage is positive");
    Require(config.FindProject(p.account) == &p, "FindProject finds the project");
  }
  std::set<std::string_view> partitions;
  for (const budget::PartitionRate& r : config.partitions) {
    Require(partitions.insert(r.name).second, "partition names are unique");
    Require(r.rate > 0 && r.rate <= budget::kMaxMilliRate, "rate in range");
  }
  if (!config.partitions.empty()) {
    const budget::PartitionRate* low = config.FindPartition(config.low_partition);
    Require(low != nullptr && low->role == budget::PartitionRole::kLow,
            "the low partition is declared with Role=low");
  }
  return 0;
}
