// The user verbs' shared start: Slurm settings, the caller, budget.conf, and reports they may see.
#include "view_context.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <utility>

#include "cli_error.hpp"
#include "commands.hpp"
#include "instant.hpp"

namespace budget::cli {
namespace {

constexpr std::string_view kOthers = "(others)";

}  // namespace

void AddSourceOptions(CLI::App& command, SourceOptions& options) {
  command.add_option("--config", options.config_path,
                     "budget.conf (default: the one slurmctld reads, from scontrol show config)");
  command.add_option("--ledger", options.ledger_path,
                     "read the plugin's ledger file (StateSaveLocation/budget_ledger) instead of "
                     "slurmdbd's job records");
  command.add_option("--at", options.at,
                     "evaluate at this time (YYYY-MM-DD[THH:MM:SS] or @EPOCH; default: now)");
}

ViewContext OpenViewContext(const SourceOptions& options) {
  ViewContext context;
  context.now = ParseInstant(options.at, context.zone);
  context.settings = ReadSlurmSettings();
  context.caller = IdentifyCaller();
  const std::string path =
      options.config_path.empty() ? context.settings.budget_conf : options.config_path;
  context.config = std::make_shared<const BudgetConfig>(ReadBudgetConfOrFail(path));
  context.ledger_path = options.ledger_path;
  return context;
}

const ProjectSpec& ViewContext::ProjectOrFail(const std::string& account) const {
  const ProjectSpec* project = config->FindProject(account);
  if (project == nullptr) {
    Fail(fmt::format("project {}: no such project in {}", account, config->path));
  }
  CheckMayView(caller, settings, account);
  return *project;
}

std::vector<const ProjectSpec*> ViewContext::CallerProjects() const {
  std::vector<const ProjectSpec*> projects;
  for (const ProjectSpec& p : config->projects) {
    if (caller.IsMember(p.account) || caller.Coordinates(p.account)) {
      projects.push_back(&p);
    }
  }
  return projects;
}

std::vector<ProjectReport> ViewContext::Reports(
    const std::vector<const ProjectSpec*>& projects) const {
  std::vector<ProjectReport> reports =
      LoadReports({config.get(), projects, now, zone, ledger_path});
  if (!settings.HidesUsage()) {
    return reports;
  }
  for (ProjectReport& r : reports) {
    if (caller.SeesUsersOf(r.account)) {
      continue;
    }
    // As sshare under PrivateData=usage: one's own usage, the rest as a sum.
    std::vector<ReportUser> shown;
    ReportUser others{std::string(kOthers)};
    bool any_other = false;
    for (const ReportUser& u : r.users) {
      if (u.user == caller.user) {
        shown.push_back(u);
        continue;
      }
      any_other = true;
      others.this_month += u.this_month;
      others.charged += u.charged;
      others.low += u.low;
      others.preparatory += u.preparatory;
    }
    if (any_other) {
      shown.push_back(others);
    }
    r.users = std::move(shown);
  }
  return reports;
}

}  // namespace budget::cli
