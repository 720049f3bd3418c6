// budget.conf's projects against the accounts Slurm has.
#include "budget/project_accounts.hpp"

#include <unordered_set>

namespace budget {

std::vector<std::string> ProjectsWithoutAccount(const BudgetConfig& config,
                                                std::span<const std::string_view> accounts,
                                                const TimeZone& zone, UnixTime now) {
  const std::unordered_set<std::string_view> known(accounts.begin(), accounts.end());
  std::vector<std::string> missing;
  for (const ProjectSpec& project : config.projects) {
    if (!known.contains(project.account) && zone.MidnightOf(project.calendar.end()) > now) {
      missing.push_back(project.account);
    }
  }
  return missing;
}

}  // namespace budget
