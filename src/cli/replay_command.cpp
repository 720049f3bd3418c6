// `sbudget replay`: a workload trace through the simulated controller, budget policy against
// baseline.
#include <fmt/core.h>
#include <zlib.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "budget/civil_date.hpp"
#include "budget/config.hpp"
#include "budget/engine.hpp"
#include "budget/ledger.hpp"
#include "budget/replay.hpp"
#include "budget/replay_trace.hpp"
#include "budget/units.hpp"
#include "budget/usage_import.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "duration.hpp"
#include "replay_output.hpp"
#include "replay_svg.hpp"

namespace budget::cli {
namespace {

// The default weights are the site's that policy.md §5 quotes: fair-share
// 10,000,000, age 2,000,000 reached over 30 days. No QoS or partition tiers in
// a trace.
constexpr std::uint32_t kFairshareWeight = 10'000'000;
constexpr std::uint32_t kAgeWeight = 2'000'000;
constexpr std::int64_t kMaxAgeDays = 30;

struct ReplayCliOptions {
  std::string trace;
  std::string format;
  std::string config;
  std::string map;
  int projects = 0;
  std::string write_config;
  std::uint32_t nodes = 0;
  std::uint32_t gpus_per_node = 4;
  std::string start;
  bool utc = false;
  std::string policy = "both";
  // Durations as given (duration.hpp), parsed once by CheckArguments.
  std::string calc_period = "300";
  std::string half_life = "7";
  std::uint32_t weight_fairshare = kFairshareWeight;
  std::uint32_t weight_age = kAgeWeight;
  std::string max_age = std::to_string(kMaxAgeDays);
  std::string usage;
  std::uint32_t backfill_depth = ReplayOptions{}.backfill_depth;
  std::int64_t backfill_interval = ReplayOptions{}.backfill_interval_seconds;
  bool preempt_low = false;
  bool json = false;
  std::string svg_dir;
  std::string starts;
};

// The whole file, decompressed when it is gzip: zlib's gzread passes plain
// files through unchanged, so one path reads both.
std::string ReadMaybeGzip(const std::string& path) {
  errno = 0;
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    Fail(fmt::format("cannot read {}: {}", path,
                     errno != 0 ? std::strerror(errno) : "out of memory"));
  }
  std::string text;
  std::vector<char> buffer(1 << 16);
  while (true) {
    const int got = gzread(file, buffer.data(), static_cast<unsigned>(buffer.size()));
    if (got < 0) {
      int code = 0;
      const std::string reason = gzerror(file, &code);
      gzclose(file);
      Fail(
          fmt::format("cannot read {}: {}", path, code == Z_ERRNO ? std::strerror(errno) : reason));
    }
    if (got == 0) {
      break;
    }
    text.append(buffer.data(), static_cast<std::size_t>(got));
  }
  gzclose(file);
  return text;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    Fail(fmt::format("cannot write {}", path));
  }
}

std::string FormatOf(const ReplayCliOptions& o) {
  if (!o.format.empty()) {
    return o.format;
  }
  std::string_view name = o.trace;
  if (name.ends_with(".gz")) {
    name.remove_suffix(3);
  }
  if (name.ends_with(".swf")) {
    return "swf";
  }
  if (name.ends_with(".csv")) {
    return "csv";
  }
  throw UsageError(fmt::format(
      "--format: cannot tell the format of \"{}\" from its name; give --format swf or csv",
      o.trace));
}

// The durations of the options, in seconds.
struct ReplayDurations {
  std::int64_t calc_period = 0;
  std::int64_t half_life = 0;
  std::int64_t max_age = 0;
};

// Throws UsageError on options that do not go together or a bad value; returns
// the durations it parsed.
ReplayDurations CheckArguments(const ReplayCliOptions& o) {
  const bool generated = o.projects > 0;
  if (generated == !o.config.empty()) {
    throw UsageError(
        "give the projects either with --config FILE (and --map FILE) or with --projects N");
  }
  if (!o.map.empty() && generated) {
    throw UsageError("--map goes with --config, not with --projects");
  }
  if (!o.write_config.empty() && !generated) {
    throw UsageError("--write-config writes the projects --projects generates");
  }
  if (o.nodes == 0) {
    throw UsageError("--nodes must be at least 1");
  }
  if (o.gpus_per_node == 0) {
    throw UsageError("--gpus-per-node must be at least 1");
  }
  const ReplayDurations durations{
      .calc_period = ParseDurationOption(o.calc_period, 1, "--calc-period", "seconds"),
      .half_life = ParseDurationOption(o.half_life, kSecondsPerDay, "--half-life", "days"),
      .max_age = ParseDurationOption(o.max_age, kSecondsPerDay, "--max-age", "days"),
  };
  if (durations.calc_period == 0) {
    throw UsageError(
        fmt::format("--calc-period must be more than 0 seconds, got {}", o.calc_period));
  }
  if (!o.usage.empty() && o.projects > 0) {
    throw UsageError("--usage goes with --config, not with --projects");
  }
  return durations;
}

std::vector<ReplayPolicy> PoliciesOf(const std::string& policy) {
  if (policy == "budget") {
    return {ReplayPolicy::kBudget};
  }
  if (policy == "baseline") {
    return {ReplayPolicy::kBaseline};
  }
  return {ReplayPolicy::kBudget, ReplayPolicy::kBaseline};
}

// --start, else the 1st of the month of the trace's UnixStartTime (UTC).
CivilDate StartOf(const ReplayCliOptions& o, const Trace& trace) {
  if (!o.start.empty()) {
    const std::optional<CivilDate> date = ParseCivilDate(o.start);
    if (!date) {
      throw UsageError(fmt::format("--start: expected a date YYYY-MM-DD, got \"{}\"", o.start));
    }
    return *date;
  }
  if (!trace.unix_start_time) {
    throw UsageError(
        fmt::format("--start: {} does not say when it starts (no UnixStartTime); give --start "
                    "YYYY-MM-DD",
                    o.trace));
  }
  const CivilDate day = TimeZone::Utc().DateAt(*trace.unix_start_time);
  return CivilDate{day.year, day.month, 1};
}

// --usage: the usage before the trace, as `sbudget ledger import FILE --at
// FIRST_SUBMIT` would put it in a fresh ledger: recorded under the project
// months, and counted for fair share as if used evenly over each month up to
// the first submission.
Ledger LedgerFromUsage(const std::string& path, const BudgetConfig& config, const TimeZone& zone,
                       UnixTime now, std::int64_t half_life) {
  Result<std::vector<UsageImportRow>> rows = ParseUsageImport(ReadFileOrFail(path), path);
  if (!rows.ok()) {
    FailWithLines(rows.error());
  }
  Ledger ledger;
  ledger.DecayTo(now, half_life);
  if (const Status applied = ApplyUsageImport(ledger, TermsOf(config), rows.value());
      !applied.ok()) {
    FailWithLines(applied.error());
  }
  AddImportedDecay(ledger, rows.value(), zone, now, half_life);
  return ledger;
}

void RunReplay(const ReplayCliOptions& o) {
  const ReplayDurations durations = CheckArguments(o);
  const std::string format = FormatOf(o);
  const TimeZone zone = o.utc ? TimeZone::Utc() : TimeZone::Local();

  const std::string text = ReadMaybeGzip(o.trace);
  Result<Trace> parsed = format == "swf" ? ParseSwf(text, o.trace) : ParseTraceCsv(text, o.trace);
  if (!parsed.ok()) {
    FailWithLines(parsed.error());
  }
  Trace trace = std::move(parsed).value();
  if (trace.jobs.empty()) {
    Fail(fmt::format("{}: no job to replay", o.trace));
  }
  const CivilDate start = StartOf(o, trace);

  ReplayRun run;
  run.trace = o.trace;
  run.format = format;
  run.jobs = trace.jobs.size();
  run.skipped_no_submit = trace.skipped_no_submit;
  run.skipped_no_run_time = trace.skipped_no_run_time;
  run.skipped_no_nodes = trace.skipped_no_nodes;
  run.nodes = o.nodes;
  run.gpus_per_node = o.gpus_per_node;
  run.start = start;
  run.utc = o.utc;

  std::optional<BudgetConfig> config;
  if (o.projects > 0) {
    GenerateOptions generate;
    generate.projects = o.projects;
    generate.start = start;
    generate.gpus_per_node = o.gpus_per_node;
    generate.max_nodes = o.nodes;
    generate.trace_name = std::filesystem::path(o.trace).filename().string();
    const Result<GeneratedProjects> generated = GenerateProjects(trace.jobs, generate);
    if (!generated.ok()) {
      throw UsageError("--projects: " + generated.error());
    }
    if (o.write_config == "-") {
      // For `> budget.conf`, to inspect and edit before replaying with --config.
      fmt::print("{}", generated.value().config_text);
      return;
    }
    if (!o.write_config.empty()) {
      WriteFile(o.write_config, generated.value().config_text);
    }
    Result<BudgetConfig> parsed_config =
        ParseBudgetConfig(generated.value().config_text, "generated budget.conf");
    if (!parsed_config.ok()) {
      FailWithLines(parsed_config.error());  // a bug of GenerateProjects: say what it was
    }
    config = std::move(parsed_config).value();
    run.projects =
        fmt::format("{} generated (credit: demand over {} trace month{})", o.projects,
                    generated.value().trace_months, generated.value().trace_months == 1 ? "" : "s");
  } else {
    config = ReadBudgetConfOrFail(o.config);
    run.projects = o.config;
    if (!o.map.empty()) {
      const Result<ProjectMap> map = ParseProjectMap(ReadFileOrFail(o.map), o.map);
      if (!map.ok()) {
        FailWithLines(map.error());
      }
      const Status mapped = MapProjects(map.value(), trace.jobs);
      if (!mapped.ok()) {
        Fail(o.map + ": " + mapped.error());
      }
      run.projects += ", users mapped by " + o.map;
    } else {
      const Status mapped = MapProjects(ProjectMap{}, trace.jobs);
      if (!mapped.ok()) {
        throw UsageError(fmt::format(
            "{} does not name every job's project: give --map FILE or --projects N", o.trace));
      }
    }
    for (const std::string& account : AccountsOf(trace.jobs)) {
      if (config->FindProject(account) == nullptr) {
        fmt::print(stderr, "sbudget: warning: {} has no project {}: its jobs run unbudgeted\n",
                   o.config, account);
      }
    }
  }
  ShiftTrace(trace.jobs, zone.MidnightOf(start));

  ReplayOptions options;
  options.nodes = o.nodes;
  options.gpus_per_node = o.gpus_per_node;
  options.calc_period_seconds = durations.calc_period;
  options.half_life_seconds = durations.half_life;
  options.weights.fairshare = o.weight_fairshare;
  options.weights.age = o.weight_age;
  options.weights.max_age_seconds = durations.max_age;
  if (!o.usage.empty()) {
    const auto first =
        std::min_element(trace.jobs.begin(), trace.jobs.end(),
                         [](const TraceJob& a, const TraceJob& b) { return a.submit < b.submit; });
    options.initial_ledger =
        LedgerFromUsage(o.usage, *config, zone, first->submit, options.half_life_seconds);
  }
  options.backfill_depth = o.backfill_depth;
  options.backfill_interval_seconds = o.backfill_interval;
  options.preempt_low = o.preempt_low;
  options.zone = zone;
  std::vector<ReplayResult> results;
  for (const ReplayPolicy policy : PoliciesOf(o.policy)) {
    options.policy = policy;
    Result<ReplayResult> result = Replay(*config, trace.jobs, options);
    if (!result.ok()) {
      Fail("replay: " + result.error());
    }
    results.push_back(std::move(result).value());
  }

  if (!o.starts.empty() && o.starts != "-") {
    WriteFile(o.starts, StartsCsv(results));
  }
  if (!o.svg_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(o.svg_dir, error);
    if (error) {
      Fail(fmt::format("cannot create {}: {}", o.svg_dir, error.message()));
    }
    const std::filesystem::path dir(o.svg_dir);
    WriteFile((dir / "delivered.svg").string(), DeliveredSvg(run, results));
    WriteFile((dir / "occupancy.svg").string(), OccupancySvg(run, results, zone));
  }
  if (o.starts == "-") {
    fmt::print("{}", StartsCsv(results));
  } else if (o.json) {
    fmt::print("{}", ReplayJson(run, results));
  } else {
    fmt::print("{}", ReplayText(run, results, zone));
  }
}

}  // namespace

void AddReplayCommand(CLI::App& app) {
  auto o = std::make_shared<ReplayCliOptions>();
  CLI::App* cmd = app.add_subcommand(
      "replay",
      "What if: replay a workload trace through a simulated controller under the budget policy "
      "and a multifactor-style baseline");
  cmd->add_option("--trace", o->trace, "the trace: SWF or CSV, plain or gzip")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--format", o->format, "swf or csv (default: from the file name)")
      ->check(CLI::IsMember({"swf", "csv"}));
  cmd->add_option("--config", o->config, "budget.conf declaring the projects")->type_name("FILE");
  cmd->add_option("--map", o->map, "trace users and groups to projects (user ID = ACCOUNT ...)")
      ->type_name("FILE");
  cmd->add_option("--projects", o->projects,
                  "spread the trace's users over N generated projects instead of --config")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--write-config", o->write_config,
                  "with --projects: write the generated budget.conf to FILE (-: print it and stop)")
      ->type_name("FILE");
  cmd->add_option("--nodes", o->nodes, "nodes of the simulated cluster")->required();
  cmd->add_option("--gpus-per-node", o->gpus_per_node, "GPUs per node (GH200: 4)")
      ->capture_default_str();
  cmd->add_option("--start", o->start,
                  "the date of the trace's time 0 (default: the month of its UnixStartTime)")
      ->type_name("YYYY-MM-DD");
  cmd->add_flag("--utc", o->utc, "months and --start in UTC instead of the local time zone");
  cmd->add_option("--policy", o->policy, "budget, baseline or both")
      ->check(CLI::IsMember({"budget", "baseline", "both"}))
      ->capture_default_str();
  cmd->add_option("--calc-period", o->calc_period,
                  "PriorityCalcPeriod: the time between priority recomputations; a bare number "
                  "is seconds (slurm.conf's is minutes: write 5:00 or 5m for its 5)")
      ->type_name("DURATION")
      ->capture_default_str();
  cmd->add_option("--half-life", o->half_life,
                  "PriorityDecayHalfLife as slurm.conf writes it (7-0) or with a unit (14d, 12h); "
                  "a bare number is days (`ledger import`'s is seconds); 0: no decay")
      ->type_name("DURATION")
      ->capture_default_str();
  cmd->add_option("--weight-fairshare", o->weight_fairshare, "PriorityWeightFairshare")
      ->type_name("W")
      ->capture_default_str();
  cmd->add_option("--weight-age", o->weight_age, "PriorityWeightAge")
      ->type_name("W")
      ->capture_default_str();
  cmd->add_option("--max-age", o->max_age,
                  "PriorityMaxAge as slurm.conf writes it (30-0) or with a unit; a bare number "
                  "is days; 0: every job's age is 1")
      ->type_name("DURATION")
      ->capture_default_str();
  cmd->add_option("--usage", o->usage,
                  "with --config: the usage before the trace, the CSV of `sbudget ledger import` "
                  "(account,user,month,partition,gpu_hours; partition: budgeted or low)")
      ->type_name("FILE");
  cmd->add_option("--backfill-depth", o->backfill_depth,
                  "pending jobs after a blocked one that EASY backfill tries (bf_max_job_test); 0: "
                  "no backfill, strict priority order")
      ->type_name("N")
      ->capture_default_str();
  cmd->add_option("--backfill-interval", o->backfill_interval,
                  "seconds between backfill cycles (bf_interval); 0: backfill at every event")
      ->type_name("S")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--preempt-low", o->preempt_low,
                "requeue jobs of the low partition for budgeted jobs that cannot start");
  cmd->add_flag("--json", o->json, "print JSON instead of tables");
  cmd->add_option("--svg", o->svg_dir,
                  "write delivered.svg and occupancy.svg into DIR (created if missing)")
      ->type_name("DIR");
  cmd->add_option("--starts", o->starts,
                  "write the start order (CSV) to FILE (-: print it instead of the tables)")
      ->type_name("FILE");
  cmd->callback([o] { RunReplay(*o); });
}

}  // namespace budget::cli
