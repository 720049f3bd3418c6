// `sbudget ledger import|show`: prepare a ledger from past usage, and read one, offline.
//
// Both work on the files slurmctld uses (budget.conf and StateSaveLocation/budget_ledger)
// with the same core code as the plugin. `import` must run while slurmctld is stopped:
// the plugin owns the ledger while it runs. Past usage comes from the admin's CSV or
// from slurmdbd's job records (`--from-sacct`), billed by the core as the plugin bills.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "budget/config.hpp"
#include "budget/engine.hpp"
#include "budget/fairshare.hpp"
#include "budget/job_records.hpp"
#include "budget/ledger.hpp"
#include "budget/state_file.hpp"
#include "budget/usage_import.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "duration.hpp"
#include "instant.hpp"
#include "ledger_file.hpp"
#include "ledger_owner.hpp"
#include "plugin_paths.hpp"
#include "run_command.hpp"

namespace budget::cli {
namespace {

constexpr std::int64_t kDefaultHalfLifeSeconds = 7 * kSecondsPerDay;

struct LedgerOptions {
  std::string config_path;  // empty: the plugins' (plugin_paths.hpp)
  std::string ledger_path;  // empty: priority/budget's
  std::string at;           // "YYYY-MM-DD", "YYYY-MM-DDTHH:MM:SS" or "@EPOCH"; empty: now
  std::string half_life = std::to_string(kDefaultHalfLifeSeconds);  // duration.hpp
  std::string import_file;
  bool from_sacct = false;
  std::string since;  // as `at`; empty: the earliest Created of budget.conf's projects
  std::string until;  // as `at`, or "now"; empty: the instant of `at`
  bool dry_run = false;
  bool json = false;
  bool users = false;
};

std::vector<UsageImportRow> RowsFromCsv(const std::string& path) {
  auto rows = ParseUsageImport(ReadFileOrFail(path), path);
  if (!rows) {
    Fail(rows.error());
  }
  return std::move(rows).value();
}

// slurmdbd's job records over [--since, --until), billed as the plugin bills.
std::vector<UsageImportRow> RowsFromSacct(const LedgerOptions& o, const BudgetConfig& config,
                                          const TimeZone& zone, UnixTime now) {
  UnixTime since = 0;
  if (!o.since.empty()) {
    since = ParseInstant(o.since, zone, "--since");
  } else if (config.projects.empty()) {
    Fail(fmt::format("{} declares no project: no usage to import", config.path));
  } else {
    // Nothing is billed before the first project exists.
    CivilDate first = config.projects.front().calendar.created();
    for (const ProjectSpec& p : config.projects) {
      first = std::min(first, p.calendar.created());
    }
    since = zone.MidnightOf(first);
  }
  const UnixTime until =
      o.until.empty() || o.until == "now" ? now : ParseInstant(o.until, zone, "--until");
  if (until > now) {
    throw UsageError("--until: after the time the usage is accounted up to (--at, default now)");
  }
  if (since >= until) {
    throw UsageError("--since: must be before --until");
  }

  // TZ=UTC: sacct then reads -S/-E and prints Start/End in UTC, which is
  // unambiguous on the days the clocks change. -D: every run of a requeued
  // job, as the plugin billed each one (without it sacct shows the last run).
  const std::string output =
      RunCapturing({"sacct", "-a", "-D", "-X", "-n", "-P", "--noconvert", "-o",
                    std::string(kSacctJobFields), "-S", FormatUtc(since), "-E", FormatUtc(until)},
                   {"TZ=UTC", "SLURM_TIME_FORMAT=standard"});
  auto jobs = ParseJobRecords(output, "sacct");
  if (!jobs) {
    Fail(jobs.error());
  }
  JobRecordsSummary summary;
  std::vector<UsageImportRow> rows =
      BillJobRecords(jobs.value(), config, zone, since, until, &summary);
  fmt::print(stderr,
             "sbudget: sacct: {} jobs from {} to {} UTC: {} billed, {} never started, {} outside "
             "that time, {} of accounts without Project=, {} in partitions not in {}\n",
             summary.jobs, FormatUtc(since), FormatUtc(until), summary.billed, summary.not_started,
             summary.outside_window, summary.unbudgeted_account, summary.unbilled_partition,
             config.path);
  if (summary.past_end != 0) {
    fmt::print(stderr,
               "sbudget: sacct: {} jobs ran on past their project's end; that time is charged to "
               "no month and is not imported\n",
               summary.past_end);
  }
  return rows;
}

// GPU-seconds as the CSV's gpu_hours: whole hours, or 6 decimals with the
// trailing zeros dropped; ParseUsageImport reads it back to the same GPU-second.
std::string CsvGpuHours(GpuSeconds amount) {
  const GpuSeconds rest = amount % kGpuSecondsPerGpuHour;
  std::string text = std::to_string(amount / kGpuSecondsPerGpuHour);
  if (rest != 0) {
    // Millionths of an hour, to the nearest (a second is 277.7 of them).
    const std::int64_t micro =
        (rest * 2'000'000 + kGpuSecondsPerGpuHour) / (2 * kGpuSecondsPerGpuHour);
    std::string decimals = fmt::format("{:06}", micro);
    decimals.erase(decimals.find_last_not_of('0') + 1);
    text += "." + decimals;
  }
  return text;
}

void PrintUsageCsv(const std::vector<UsageImportRow>& rows) {
  fmt::print("account,user,month,partition,gpu_hours\n");
  for (const UsageImportRow& row : rows) {
    fmt::print("{},{},{},{},{}\n", row.account, row.user, FormatCivilDate(row.month).substr(0, 7),
               row.role == PartitionRole::kLow ? "low" : "budgeted", CsvGpuHours(row.amount));
  }
}

void RunImport(const LedgerOptions& o) {
  // Checked here rather than with CLI11's excludes(), whose message names the positional by its
  // internal name ("file excludes --from-sacct").
  if (o.from_sacct && !o.import_file.empty()) {
    throw UsageError("import: give a usage CSV file or --from-sacct, not both");
  }
  if (!o.from_sacct && o.import_file.empty()) {
    throw UsageError("import: give either a usage CSV file or --from-sacct");
  }
  const TimeZone zone = TimeZone::Local();
  const UnixTime now = ParseInstant(o.at, zone);
  const std::int64_t half_life_seconds =
      ParseDurationOption(o.half_life, 1, "--half-life", "seconds");
  const BudgetConfig config = ReadBudgetConfOrFail(o.config_path);
  const auto terms = TermsOf(config);
  const std::vector<UsageImportRow> rows =
      o.from_sacct ? RowsFromSacct(o, config, zone, now) : RowsFromCsv(o.import_file);

  Ledger ledger = ReadLedgerOrFail(o.ledger_path, MissingLedger::kStartEmpty);
  ledger.DecayTo(now, half_life_seconds);

  // A dry run checks the rows against the ledger too, so that it fails where
  // the real import would.
  if (auto applied = ApplyUsageImport(ledger, terms, rows); !applied) {
    Fail(applied.error());
  }
  if (o.dry_run) {
    PrintUsageCsv(rows);
    return;
  }
  // Imported months count for fair share as if used evenly over the month
  // (up to `now`), decayed with the half-life, as the plugin would have.
  AddImportedDecay(ledger, rows, zone, now, half_life_seconds);
  if (auto saved = SaveLedgerFile(o.ledger_path, ledger, now); !saved) {
    Fail(saved.error());
  }
  // Run as root, the files are root's, and slurmctld (SlurmUser) could not read them. Changing
  // the owner before the rename would leave no instant with a root-owned ledger in place, but
  // SaveLedgerFile, which the plugin shares, does the rename. After it is safe as well: the
  // import runs while slurmctld is stopped, so nothing reads the ledger in between.
  const Result<std::string> given = GiveLedgerToDirectoryOwner(o.ledger_path);
  if (!given) {
    Fail(fmt::format("{} written, but {}", o.ledger_path, given.error()));
  }
  // The time in local time as the admin gave it, and as @EPOCH as slurmctld's log shows it.
  fmt::print("imported {} rows into {} (usage accounted up to {}, @{}){}\n", rows.size(),
             o.ledger_path, FormatLocal(now), now,
             given.value().empty() ? "" : "; " + given.value());
}

const char* StateName(ProjectState s) { return ToString(s); }

void RunShow(const LedgerOptions& o) {
  const TimeZone zone = TimeZone::Local();
  const UnixTime now = ParseInstant(o.at, zone);
  const BudgetConfig config = ReadBudgetConfOrFail(o.config_path);
  const Ledger ledger = ReadLedgerOrFail(o.ledger_path, MissingLedger::kFail);

  nlohmann::json out = nlohmann::json::array();
  if (!o.json) {
    fmt::print("{:<14} {:<12} {:>5} {:>12} {:>12} {:>12} {:>12} {:>10} {:>9} {}\n", "project",
               "state", "month", "credit", "expected", "used_month", "remaining", "low_used",
               "fairshare", "band");
  }
  for (const ProjectSpec& p : config.projects) {
    const ProjectTerms terms = TermsOf(p);
    const ProjectStatus st = StatusOf(ledger, terms, zone, now);
    const FairShare fs = ComputeFairShare({.state = st.state,
                                           .expected = st.open.expected,
                                           .used_this_month = st.used_this_month,
                                           .monthly_budget = terms.MonthlyBudget(),
                                           .decayed_usage = st.decayed_usage,
                                           .low_used = st.low_used});
    nlohmann::json users = nlohmann::json::object();
    if (const ProjectUsage* usage = ledger.Find(p.account)) {
      for (const auto& [name, u] : usage->users) {
        users[name] = ToGpuHours(u.Total());
      }
    }
    out.push_back({{"project", p.account},
                   {"state", StateName(st.state)},
                   {"month", st.month},
                   {"credit", ToGpuHours(p.credit)},
                   {"expected", ToGpuHours(st.open.expected)},
                   {"used_this_month", ToGpuHours(st.used_this_month)},
                   {"remaining", ToGpuHours(st.remaining)},
                   {"low_used", ToGpuHours(st.low_used)},
                   {"decayed_usage", st.decayed_usage / kGpuSecondsPerGpuHour},
                   {"fairshare", fs.factor},
                   {"band", ToString(fs.band)},
                   {"users", users}});
    if (!o.json) {
      fmt::print("{:<14} {:<12} {:>5} {:>12} {:>12} {:>12} {:>12} {:>10} {:>9.6f} {}\n", p.account,
                 StateName(st.state), st.month, FormatGpuHours(p.credit),
                 FormatGpuHours(st.open.expected), FormatGpuHours(st.used_this_month),
                 FormatGpuHours(st.remaining), FormatGpuHours(st.low_used), fs.factor,
                 ToString(fs.band));
      if (o.users) {
        for (const auto& [name, gpuh] : users.items()) {
          fmt::print("  {:<12} {:>12} GPUh in all\n", name,
                     FormatGpuHours(static_cast<GpuSeconds>(
                         std::llround(gpuh.get<double>() * kGpuSecondsPerGpuHour))));
        }
      }
    }
  }
  if (o.json) {
    fmt::print("{}\n", out.dump(2));
  }
}

// The options with --config and --ledger filled in where the plugins find them.
LedgerOptions WithPaths(LedgerOptions o) {
  o.config_path = BudgetConfOr(o.config_path, "--config");
  o.ledger_path = LedgerOr(o.ledger_path);
  return o;
}

}  // namespace

void AddLedgerCommand(CLI::App& app) {
  auto options = std::make_shared<LedgerOptions>();
  CLI::App* ledger = app.add_subcommand("ledger", "Prepare or read the plugin's usage ledger");
  ledger->require_subcommand(1);

  CLI::App* import_command = ledger->add_subcommand(
      "import",
      "Add past usage (CSV: account,user,month,partition,gpu_hours, or slurmdbd's job "
      "records with --from-sacct) to a ledger; run it while slurmctld is stopped");
  import_command->add_option("--config", options->config_path,
                             fmt::format("budget.conf ({})", kBudgetConfDefaultHelp));
  import_command->add_option("--ledger", options->ledger_path,
                             fmt::format("the ledger file ({})", kLedgerDefaultHelp));
  import_command->add_option("--at", options->at,
                             "the time the usage is accounted up to (default: now)");
  import_command
      ->add_option("--half-life", options->half_life,
                   "PriorityDecayHalfLife, for fair-share usage: as slurm.conf writes it (7-0) or "
                   "with a unit (14d, 12h); a bare number is seconds (replay's is days)")
      ->type_name("DURATION")
      ->capture_default_str();
  import_command->add_option("file", options->import_file, "usage CSV");
  CLI::Option* from_sacct = import_command->add_flag(
      "--from-sacct", options->from_sacct,
      "bill slurmdbd's job records (sacct on PATH) as the plugin does, instead of a CSV");
  import_command
      ->add_option("--since", options->since,
                   "with --from-sacct: usage from this time on (YYYY-MM-DD[THH:MM:SS] or @EPOCH; "
                   "default: the earliest Created in budget.conf)")
      ->needs(from_sacct);
  import_command
      ->add_option("--until", options->until,
                   "with --from-sacct: usage before this time, running jobs end here "
                   "(as --since, or now; default: --at)")
      ->needs(from_sacct);
  import_command->add_flag("--dry-run", options->dry_run,
                           "check the rows and print them as CSV; the ledger is not written");
  import_command->callback([options] { RunImport(WithPaths(*options)); });

  CLI::App* show_command = ledger->add_subcommand("show", "Every project's state from a ledger");
  show_command->add_option("--config", options->config_path,
                           fmt::format("budget.conf ({})", kBudgetConfDefaultHelp));
  show_command->add_option("--ledger", options->ledger_path,
                           fmt::format("the ledger file ({})", kLedgerDefaultHelp));
  show_command->add_option("--at", options->at, "the time to evaluate at (default: now)");
  show_command->add_flag("--json", options->json, "JSON array, one object per project");
  show_command->add_flag("--users", options->users, "per-user totals");
  show_command->callback([options] { RunShow(WithPaths(*options)); });
}

}  // namespace budget::cli
