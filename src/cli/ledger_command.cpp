// `sbudget ledger import|show`: prepare a ledger from past usage, and read one, offline.
//
// Both work on the files slurmctld uses (budget.conf and StateSaveLocation/budget_ledger)
// with the same core code as the plugin. `import` must run while slurmctld is stopped:
// the plugin owns the ledger while it runs.
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "budget/config.hpp"
#include "budget/fairshare.hpp"
#include "budget/ledger.hpp"
#include "budget/state_file.hpp"
#include "budget/usage_import.hpp"
#include "commands.hpp"

namespace budget::cli {
namespace {

constexpr std::int64_t kDefaultHalfLifeSeconds = std::int64_t{7} * 24 * 3600;

struct LedgerOptions {
  std::string config_path{kDefaultBudgetConfPath};
  std::string ledger_path = "/var/spool/slurmctld/budget_ledger";
  std::string at;  // "YYYY-MM-DD", "YYYY-MM-DDTHH:MM:SS" or "@EPOCH"; empty: now
  std::int64_t half_life_seconds = kDefaultHalfLifeSeconds;
  std::string import_file;
  bool json = false;
  bool users = false;
};

[[noreturn]] void Fail(const std::string& message) {
  fmt::print(stderr, "sbudget: error: {}\n", message);
  throw CLI::RuntimeError(kExitFailure);
}

UnixTime ParseInstant(const std::string& text, const TimeZone& zone) {
  if (text.empty()) {
    return static_cast<UnixTime>(std::time(nullptr));
  }
  if (text.front() == '@') {
    try {
      return std::stoll(text.substr(1));
    } catch (const std::exception&) {
      throw CLI::ValidationError(fmt::format("--at: not a Unix time: \"{}\"", text));
    }
  }
  const auto date = ParseCivilDate(text.substr(0, 10));
  int h = 0, m = 0, s = 0;
  if (!date || (text.size() > 10 && std::sscanf(text.c_str() + 10, "T%d:%d:%d", &h, &m, &s) != 3)) {
    throw CLI::ValidationError(
        fmt::format("--at: expected YYYY-MM-DD[THH:MM:SS] or @EPOCH, got \"{}\"", text));
  }
  return zone.MidnightOf(*date) + UnixTime{h} * 3600 + UnixTime{m} * 60 + s;
}

std::shared_ptr<const BudgetConfig> LoadConfigOrFail(const std::string& path) {
  auto config = LoadBudgetConfig(path);
  if (!config) {
    Fail(config.error());
  }
  return std::make_shared<const BudgetConfig>(std::move(config).value());
}

std::vector<ProjectTerms> TermsOf(const BudgetConfig& config) {
  std::vector<ProjectTerms> terms;
  for (const ProjectSpec& p : config.projects) {
    terms.push_back({p.account, p.credit, p.calendar});
  }
  return terms;
}

// The fair-share (decayed) usage that `amount` GPU-seconds have at `now` if
// they were used evenly over [from, to): the integral of 2^-(now - t)/h.
double DecayedAt(GpuSeconds amount, UnixTime from, UnixTime to, UnixTime now,
                 std::int64_t half_life) {
  if (half_life <= 0 || to <= from) {
    return static_cast<double>(amount);
  }
  const double h = static_cast<double>(half_life);
  const double span = static_cast<double>(to - from);
  const double late = std::exp2(-static_cast<double>(now - to) / h);
  const double early = std::exp2(-static_cast<double>(now - from) / h);
  return static_cast<double>(amount) * h / (span * std::log(2.0)) * (late - early);
}

void RunImport(const LedgerOptions& o) {
  const TimeZone zone = TimeZone::Local();
  const UnixTime now = ParseInstant(o.at, zone);
  const auto config = LoadConfigOrFail(o.config_path);
  const auto terms = TermsOf(*config);

  std::ifstream in(o.import_file);
  if (!in) {
    Fail(fmt::format("cannot read {}", o.import_file));
  }
  std::stringstream text;
  text << in.rdbuf();
  auto rows = ParseUsageImport(text.str(), o.import_file);
  if (!rows) {
    Fail(rows.error());
  }

  auto loaded = LoadLedgerFile(o.ledger_path);
  if (!loaded) {
    Fail(loaded.error());
  }
  for (const auto& warning : loaded.value().warnings) {
    fmt::print(stderr, "sbudget: {}\n", warning);
  }
  Ledger ledger = std::move(loaded.value().ledger);
  ledger.DecayTo(now, o.half_life_seconds);

  if (auto applied = ApplyUsageImport(ledger, terms, rows.value()); !applied) {
    Fail(applied.error());
  }
  // Imported months count for fair share as if used evenly over the month
  // (up to `now`), decayed with the half-life, as the plugin would have.
  for (const UsageImportRow& row : rows.value()) {
    const UnixTime from = zone.MidnightOf(row.month);
    const UnixTime to = std::min(now, zone.MidnightOf(FirstOfMonthAfter(row.month, 1)));
    ledger.AddDecayed(row.account, row.user,
                      DecayedAt(row.amount, from, to, now, o.half_life_seconds));
  }
  if (auto saved = SaveLedgerFile(o.ledger_path, ledger, now); !saved) {
    Fail(saved.error());
  }
  fmt::print("imported {} rows into {} (usage accounted up to {})\n", rows.value().size(),
             o.ledger_path, now);
}

const char* StateName(ProjectState s) { return ToString(s); }

void RunShow(const LedgerOptions& o) {
  const TimeZone zone = TimeZone::Local();
  const UnixTime now = ParseInstant(o.at, zone);
  const auto config = LoadConfigOrFail(o.config_path);
  auto loaded = LoadLedgerFile(o.ledger_path);
  if (!loaded) {
    Fail(loaded.error());
  }
  for (const auto& warning : loaded.value().warnings) {
    fmt::print(stderr, "sbudget: {}\n", warning);
  }
  const Ledger& ledger = loaded.value().ledger;

  nlohmann::json out = nlohmann::json::array();
  if (!o.json) {
    fmt::print("{:<14} {:<12} {:>5} {:>12} {:>12} {:>12} {:>12} {:>10} {:>9} {}\n", "project",
               "state", "month", "credit", "expected", "used_month", "remaining", "low_used",
               "fairshare", "band");
  }
  for (const ProjectSpec& p : config->projects) {
    const ProjectTerms terms{p.account, p.credit, p.calendar};
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

}  // namespace

void AddLedgerCommand(CLI::App& app) {
  auto options = std::make_shared<LedgerOptions>();
  CLI::App* ledger = app.add_subcommand("ledger", "Prepare or read the plugin's usage ledger");
  ledger->require_subcommand(1);

  CLI::App* import_command = ledger->add_subcommand(
      "import",
      "Add past usage (CSV: account,user,month,partition,gpu_hours) to a ledger; "
      "run it while slurmctld is stopped");
  import_command->add_option("--config", options->config_path, "budget.conf");
  import_command->add_option("--ledger", options->ledger_path,
                             "the ledger file (StateSaveLocation/budget_ledger)");
  import_command->add_option("--at", options->at,
                             "the time the usage is accounted up to (default: now)");
  import_command->add_option("--half-life", options->half_life_seconds,
                             "PriorityDecayHalfLife in seconds, for fair-share usage");
  import_command->add_option("file", options->import_file, "usage CSV")->required();
  import_command->callback([options] { RunImport(*options); });

  CLI::App* show_command = ledger->add_subcommand("show", "Every project's state from a ledger");
  show_command->add_option("--config", options->config_path, "budget.conf");
  show_command->add_option("--ledger", options->ledger_path, "the ledger file");
  show_command->add_option("--at", options->at, "the time to evaluate at (default: now)");
  show_command->add_flag("--json", options->json, "JSON array, one object per project");
  show_command->add_flag("--users", options->users, "per-user totals");
  show_command->callback([options] { RunShow(*options); });
}

}  // namespace budget::cli
