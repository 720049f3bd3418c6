// `sbudget plot`: one project's cumulative usage against its linear line, as an SVG file.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cli_error.hpp"
#include "commands.hpp"
#include "plot_svg.hpp"
#include "view_context.hpp"

namespace budget::cli {
namespace {

struct PlotOptions {
  SourceOptions source;
  std::string account;
  std::string output;
};

void RunPlot(const PlotOptions& o) {
  if (o.output != "-" && !o.output.ends_with(".svg")) {
    throw UsageError(fmt::format(
        "-o: sbudget writes SVG only: name the file *.svg (or - for standard output), got \"{}\"; "
        "for PNG, convert it with rsvg-convert (Debian package librsvg2-bin)",
        o.output));
  }
  const ViewContext context = OpenViewContext(o.source);
  const ProjectSpec* project = nullptr;
  if (!o.account.empty()) {
    project = &context.ProjectOrFail(o.account);
  } else {
    const std::vector<const ProjectSpec*> mine = context.CallerProjects();
    if (mine.size() != 1) {
      throw UsageError(
          fmt::format("plot: name the project with -A ACCOUNT (you have {} projects in {})",
                      mine.size(), context.config->path));
    }
    project = mine.front();
  }
  const std::vector<ProjectReport> reports = context.Reports({project});
  const std::string svg = PlotSvg(reports.front(), context.now, context.zone);
  if (o.output == "-") {
    fmt::print("{}", svg);
    return;
  }
  std::ofstream out(o.output, std::ios::binary | std::ios::trunc);
  out << svg;
  out.close();
  if (!out) {
    Fail(fmt::format("cannot write {}", o.output));
  }
  fmt::print("{}: wrote {}\n", project->account, o.output);
}

}  // namespace

void AddPlotCommand(CLI::App& app) {
  auto options = std::make_shared<PlotOptions>();
  CLI::App* plot =
      app.add_subcommand("plot", "Draw a project's cumulative usage against its linear line (SVG)");
  plot->add_option("-A,--account", options->account,
                   "the project (default: the caller's only project)");
  plot->add_option("-o,--output", options->output, "the SVG file to write, or - for stdout")
      ->required();
  AddSourceOptions(*plot, options->source);
  plot->callback([options] { RunPlot(*options); });
}

}  // namespace budget::cli
