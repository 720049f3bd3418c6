// `sbudget` with no verb: the budget of the caller's projects, one project (-A) or all (--all).
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "report_output.hpp"
#include "view_context.hpp"

namespace budget::cli {
namespace {

struct ViewOptions {
  SourceOptions source;
  std::string account;
  bool all = false;
  bool users = false;
  bool json = false;
};

void RunView(const ViewOptions& o) {
  const ViewContext context = OpenViewContext(o.source);
  std::vector<const ProjectSpec*> projects;
  if (!o.account.empty()) {
    projects.push_back(&context.ProjectOrFail(o.account));
  } else if (o.all) {
    if (!context.caller.IsOperator()) {
      fmt::print(stderr,
                 "sbudget: error: --all is for operators and administrators; {} may see their own "
                 "projects (sbudget) or one of them (sbudget -A ACCOUNT)\n",
                 context.caller.user);
      throw ExitStatus(kExitFailure);
    }
    for (const ProjectSpec& p : context.config->projects) {
      projects.push_back(&p);
    }
  } else {
    projects = context.CallerProjects();
  }

  const std::vector<ProjectReport> reports = context.Reports(projects);
  if (o.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const ProjectReport& r : reports) {
      out.push_back(ReportJson(r, o.users));
    }
    fmt::print("{}\n", out.dump(2));
    return;
  }
  if (reports.empty()) {
    fmt::print("you are a member or coordinator of no project in {}{}\n", context.config->path,
               context.caller.IsOperator() ? " (every project: sbudget --all)" : "");
    return;
  }
  for (const ProjectReport& r : reports) {
    fmt::print("{}", ReportText(r, o.users));
  }
}

}  // namespace

void AddProjectView(CLI::App& app) {
  auto options = std::make_shared<ViewOptions>();
  CLI::Option* account =
      app.add_option("-A,--account", options->account, "show this project (a Slurm account)");
  app.add_flag("--all", options->all, "show every project (operators and administrators)")
      ->excludes(account);
  app.add_flag("--users", options->users, "add each user's usage");
  app.add_flag("--json", options->json, "print JSON, one object per project");
  AddSourceOptions(app, options->source);
  // Checked once parsing is done, before any verb runs: the view's options
  // belong to no verb.
  app.parse_complete_callback([&app] {
    if (app.get_subcommands().empty()) {
      return;
    }
    for (const char* name :
         {"--account", "--all", "--users", "--json", "--config", "--ledger", "--at"}) {
      if (app.count(name) > 0) {
        // check-config has no --config: its file is its argument.
        if (std::string_view(name) == "--config" &&
            app.get_subcommands().front()->get_name() == "check-config") {
          throw UsageError(kCheckConfigTakesTheFile);
        }
        throw UsageError(
            fmt::format("{} goes after the verb, or without one for the project view", name));
      }
    }
  });
  // Runs after every verb's callback: the view runs when there was no verb.
  app.final_callback([&app, options] {
    if (app.get_subcommands().empty()) {
      RunView(*options);
    }
  });
}

}  // namespace budget::cli
