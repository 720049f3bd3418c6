// What the user verbs (the project view, plot, why) share: caller, Slurm settings, budget.conf.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "access.hpp"
#include "budget/civil_date.hpp"
#include "budget/config.hpp"
#include "budget/report.hpp"
#include "budget/units.hpp"
#include "report_source.hpp"

namespace budget::cli {

// The options every user verb takes.
struct SourceOptions {
  std::string config_path;  // empty: the one slurmctld uses (SlurmSettings::budget_conf)
  std::string ledger_path;  // empty: slurmdbd's job records (sacct)
  std::string at;           // empty: now
};

// Adds --config, --ledger and --at to `command`.
void AddSourceOptions(CLI::App& command, SourceOptions& options);

struct ViewContext {
  SlurmSettings settings;
  Caller caller;
  std::shared_ptr<const BudgetConfig> config;
  TimeZone zone = TimeZone::Local();
  UnixTime now = 0;
  std::string ledger_path;

  // The project of `account`. Fails (one line, exit 1) when budget.conf has no
  // such project, or the caller may not see it (CheckMayView).
  const ProjectSpec& ProjectOrFail(const std::string& account) const;
  // The projects of budget.conf the caller is a member or coordinator of, in
  // file order.
  std::vector<const ProjectSpec*> CallerProjects() const;
  // The reports of `projects` (LoadReports). With PrivateData=usage, a caller
  // who is neither an operator nor the project's coordinator sees their own
  // usage and the other users' summed up as one row "(others)".
  std::vector<ProjectReport> Reports(const std::vector<const ProjectSpec*>& projects) const;
};

// Reads Slurm's settings (scontrol), identifies the caller (sacctmgr) and
// loads budget.conf. Fails with one line when any of them fails.
ViewContext OpenViewContext(const SourceOptions& options);

}  // namespace budget::cli
