// `sbudget why JOBID`: why a pending job waits: its priority, its project's budget, what is ahead.
#include <fmt/core.h>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "budget/civil_date.hpp"
#include "budget/fairshare.hpp"
#include "budget/text.hpp"
#include "budget/units.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "instant.hpp"
#include "report_output.hpp"
#include "run_command.hpp"
#include "view_context.hpp"

namespace budget::cli {
namespace {

// How many of the jobs ahead are listed.
constexpr std::size_t kMaxListed = 10;

struct WhyOptions {
  SourceOptions source;
  std::string job_id;
};

// The fields of a line squeue or sprio printed with '|' between them; empty ones are kept, so
// that each field stays at its place.
std::vector<std::string> Fields(std::string_view line) {
  std::vector<std::string> fields;
  std::size_t from = 0;
  while (true) {
    const std::size_t to = line.find('|', from);
    fields.emplace_back(line.substr(from, to == std::string_view::npos ? to : to - from));
    if (to == std::string_view::npos) {
      return fields;
    }
    from = to + 1;
  }
}

double Number(const std::string& text) {
  try {
    return std::stod(text);
  } catch (const std::exception&) {
    return 0;
  }
}

// 1234567.4 -> "1,234,567"
std::string Points(double value) {
  const auto rounded = static_cast<std::int64_t>(std::llround(value));
  std::string digits = std::to_string(rounded < 0 ? -rounded : rounded);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) {
      out += ',';
    }
    out += digits[i];
  }
  return (rounded < 0 ? "-" : "") + out;
}

// "3-04:05:06" style, for a wait.
std::string Span(std::int64_t seconds) {
  seconds = std::max<std::int64_t>(seconds, 0);
  return fmt::format("{}-{:02}:{:02}:{:02}", seconds / 86400, seconds / 3600 % 24,
                     seconds / 60 % 60, seconds % 60);
}

// The job as squeue shows it.
constexpr const char* kSqueueFormat = "%i|%T|%a|%u|%P|%Q|%r|%V";
struct QueuedJob {
  std::string id, state, account, user, partitions, priority, reason, submitted;
};

// One line of sprio: the job's priority in one partition and its weighted factors.
constexpr const char* kSprioFormat = "%i|%r|%u|%Y|%A|%F|%J|%P|%Q|%B|%N|%S|%T";
struct PrioLine {
  std::string id, partition, user;
  double priority = 0, age = 0, fairshare = 0, jobsize = 0, part = 0, qos = 0, assoc = 0, nice = 0,
         site = 0;
  std::string tres;
  std::string account;  // from squeue
};

std::vector<PrioLine> ParseSprio(const std::string& text) {
  std::vector<PrioLine> lines;
  for (const std::string& line : SplitLines(text)) {
    const std::vector<std::string> f = Fields(line);
    if (f.size() < 13) {
      Fail(fmt::format("sprio printed a line sbudget cannot read: \"{}\"", line));
    }
    PrioLine p;
    p.id = f[0];
    p.partition = f[1];
    p.user = f[2];
    p.priority = Number(f[3]);
    p.age = Number(f[4]);
    p.fairshare = Number(f[5]);
    p.jobsize = Number(f[6]);
    p.part = Number(f[7]);
    p.qos = Number(f[8]);
    p.assoc = Number(f[9]);
    p.nice = Number(f[10]);
    p.site = Number(f[11]);
    p.tres = f[12];
    lines.push_back(std::move(p));
  }
  return lines;
}

// What squeue's REASON means for a pending job, in words.
std::string ReasonText(const std::string& reason) {
  if (reason == "Priority") {
    return "jobs with a higher priority are ahead of it";
  }
  if (reason == "Resources") {
    return "it is first in line and waits for nodes to become free";
  }
  if (reason.starts_with("budget: ")) {
    return "held by priority/budget: its project may not start it now";
  }
  if (reason == "Dependency") {
    return "it waits for the jobs it depends on";
  }
  if (reason == "JobHeldUser" || reason == "JobHeldAdmin") {
    return "it is held (scontrol release)";
  }
  if (reason == "BeginTime") {
    return "its start time (--begin) has not come";
  }
  return "Slurm's reason, see squeue(1) JOB REASON CODES";
}

// The budget band a FAIRSHARE value falls in, under priority/budget (fairshare.hpp); "" when
// the plugin or the weight is not known.
std::string BandOf(double fairshare, const SlurmSettings& s) {
  if (s.priority_type != "priority/budget" || s.weight_fairshare <= 0) {
    return "";
  }
  const double factor = fairshare / static_cast<double>(s.weight_fairshare);
  for (const FairShareBandBounds& b : kFairShareBands) {
    if (factor > b.lo && factor <= b.hi) {
      return ToString(b.band);
    }
  }
  return ToString(FairShareBand::kNone);
}

std::string Components(const PrioLine& p, const SlurmSettings& s) {
  std::string out;
  const auto row = [&out](std::string_view name, double value, const std::string& note) {
    out +=
        fmt::format("    {:<11}{:>13}{}\n", name, Points(value), note.empty() ? "" : "  " + note);
  };
  row("fairshare", p.fairshare,
      s.weight_fairshare > 0 ? fmt::format("factor {:.6f} x weight {}{}",
                                           p.fairshare / static_cast<double>(s.weight_fairshare),
                                           Points(static_cast<double>(s.weight_fairshare)),
                                           BandOf(p.fairshare, s).empty()
                                               ? ""
                                               : fmt::format(": band '{}'", BandOf(p.fairshare, s)))
                             : "");
  row("age", p.age,
      s.weight_age > 0 && s.max_age_seconds > 0
          ? fmt::format("grows by {} a day, up to {} after {} days",
                        Points(static_cast<double>(s.weight_age) * kSecondsPerDay /
                               static_cast<double>(s.max_age_seconds)),
                        Points(static_cast<double>(s.weight_age)),
                        Points(static_cast<double>(s.max_age_seconds) / kSecondsPerDay))
          : "");
  row("qos", p.qos, "");
  row("partition", p.part, "");
  row("jobsize", p.jobsize, "");
  row("assoc", p.assoc, "");
  if (p.site != 0) {
    row("site", p.site, "");
  }
  if (p.nice != 0) {
    row("nice", -p.nice, "");
  }
  if (!p.tres.empty()) {
    out += fmt::format("    {:<11}{:>13}\n", "tres", p.tres);
  }
  return out;
}

// Why `ahead` ranks above `mine`, by the factors that differ most.
std::string GapText(const PrioLine& ahead, const PrioLine& mine) {
  struct Part {
    const char* name;
    double diff;
  };
  std::vector<Part> parts = {{"FAIRSHARE", ahead.fairshare - mine.fairshare},
                             {"AGE", ahead.age - mine.age},
                             {"QOS", ahead.qos - mine.qos},
                             {"PARTITION", ahead.part - mine.part},
                             {"JOBSIZE", ahead.jobsize - mine.jobsize},
                             {"ASSOC", ahead.assoc - mine.assoc},
                             {"NICE", mine.nice - ahead.nice}};
  std::sort(parts.begin(), parts.end(),
            [](const Part& a, const Part& b) { return std::abs(a.diff) > std::abs(b.diff); });
  std::vector<std::string> words;
  for (const Part& p : parts) {
    if (std::llround(p.diff) != 0 && words.size() < 3) {
      words.push_back(fmt::format("{} {}{}", p.name, p.diff > 0 ? "+" : "", Points(p.diff)));
    }
  }
  return words.empty() ? "the rest (TRES)" : fmt::format("{}", fmt::join(words, ", "));
}

// What would move the job, in plain words, from its project's budget.
std::vector<std::string> BudgetHints(const ProjectReport& r) {
  std::vector<std::string> hints;
  switch (r.band) {
    case FairShareBand::kBehind:
      hints.push_back(fmt::format(
          "{} ranks in the top band while it is behind its line: it has {} GPUh of this "
          "month's expected still to use. Its factor falls as it uses more (decayed usage); once "
          "it has used the expected it drops to the 'ahead' band, below every project behind its "
          "line.",
          r.account, FormatGpuHours(r.still_expected)));
      break;
    case FairShareBand::kAhead:
      hints.push_back(fmt::format(
          "{} is ahead of its line (used {} GPUh this month, expected {}): its jobs rank below "
          "those of every project behind its line{}.",
          r.account, FormatGpuHours(r.used_this_month), FormatGpuHours(r.expected),
          r.back_in_line_on
              ? fmt::format(". It returns to the 'behind' band on {}, when that month opens, if "
                            "it uses nothing more before",
                            FormatCivilDate(*r.back_in_line_on))
              : ""));
      break;
    case FairShareBand::kPreparatory:
      hints.push_back(fmt::format(
          "{} has not started: its jobs rank below those of every started project until {}, "
          "when its first month opens.",
          r.account, FormatCivilDate(r.start)));
      break;
    case FairShareBand::kLow:
      hints.push_back(fmt::format(
          "{} has used its credit: its jobs run only in the low partition, below every other "
          "project, when nodes are idle ({} of {} GPUh of low allowance used). More credit "
          "(budget.conf, by the administrators) would change that.",
          r.account, FormatGpuHours(r.low_used), FormatGpuHours(r.low_allowance)));
      break;
    case FairShareBand::kNone:
      hints.push_back(fmt::format("{}: {}: no job of it may start.", r.account, StateText(r)));
      break;
  }
  return hints;
}

void RunWhy(const WhyOptions& o) {
  const std::string& id = o.job_id;
  if (id.empty() || !std::all_of(id.begin(), id.end(),
                                 [](char c) { return (c >= '0' && c <= '9') || c == '_'; })) {
    throw UsageError(fmt::format("why: expected a job id (1234 or 1234_5), got \"{}\"", id));
  }
  const ViewContext context = OpenViewContext(o.source);
  // SLURM_TIME_FORMAT=standard: %V as YYYY-MM-DDTHH:MM:SS, whatever the user's setting.
  const CommandOutput queued =
      RunCommand({"squeue", "-h", "-j", id, "-o", kSqueueFormat}, {"SLURM_TIME_FORMAT=standard"});
  const std::vector<std::string> lines = SplitLines(queued.out);
  if (queued.exit_status != 0 || lines.empty()) {
    Fail(fmt::format("job {} is not in the queue (it has ended, or is not yours to see)", id));
  }
  const std::vector<std::string> f = Fields(lines.front());
  if (f.size() < 8) {
    Fail(fmt::format("squeue printed a line sbudget cannot read: \"{}\"", lines.front()));
  }
  const QueuedJob job{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]};
  const ProjectSpec* project = context.config->FindProject(job.account);
  const std::string who =
      fmt::format("job {} (user {}, account {})", job.id, job.user, job.account);
  if (job.state != "PENDING") {
    fmt::print("{} is {}, not waiting.\n", who, job.state);
    return;
  }
  std::string waited = "?";
  try {
    waited = Span(context.now - ParseInstant(job.submitted, context.zone, "squeue %V"));
  } catch (const UsageError&) {
    // An unexpected time format costs only the wait, not the explanation.
  }
  fmt::print("{} has waited {} in partition {}: {}\n  ({})\n", who, waited, job.partitions,
             job.reason, ReasonText(job.reason));

  std::vector<std::string> hints;
  if (project != nullptr) {
    CheckMayView(context.caller, context.settings, job.account);
    const ProjectReport report = context.Reports({project}).front();
    fmt::print("\nproject {}: {}\n  {}\n", report.account, StateText(report), BandText(report));
    if (report.state == ProjectState::kActive) {
      fmt::print(
          "  this month: used {} of expected {} GPUh (minimal {}); remaining credit {} GPUh\n",
          FormatGpuHours(report.used_this_month), FormatGpuHours(report.expected),
          FormatGpuHours(report.minimal), FormatGpuHours(report.remaining));
    }
    hints = BudgetHints(report);
  } else {
    fmt::print("\naccount {} has no budget (no Project= line in {}): FAIRSHARE 0\n", job.account,
               context.config->path);
    hints.push_back(fmt::format(
        "{} is not a project: its jobs get no budget fair-share and rank below those of every "
        "project; a project account (-A) would rank by that project's budget.",
        job.account));
  }

  // Every pending job's priority by partition, with its account (from squeue).
  std::vector<PrioLine> all = ParseSprio(RunCapturing({"sprio", "-h", "-o", kSprioFormat}));
  std::map<std::string, std::string> account_of;
  for (const std::string& line :
       SplitLines(RunCapturing({"squeue", "-h", "-t", "PENDING", "-o", "%i|%a"}))) {
    const std::vector<std::string> g = Fields(line);
    if (g.size() >= 2) {
      account_of[g[0]] = g[1];
    }
  }
  for (PrioLine& p : all) {
    p.account = account_of.count(p.id) != 0 ? account_of[p.id] : "?";
  }
  bool any = false;
  for (const PrioLine& mine : all) {
    if (mine.id != job.id) {
      continue;
    }
    any = true;
    fmt::print("\npriority in partition {}: {} (sprio)\n{}", mine.partition, Points(mine.priority),
               Components(mine, context.settings));
    std::vector<const PrioLine*> ahead;
    for (const PrioLine& p : all) {
      if (p.partition == mine.partition && p.id != mine.id && p.priority > mine.priority) {
        ahead.push_back(&p);
      }
    }
    std::sort(ahead.begin(), ahead.end(),
              [](const PrioLine* a, const PrioLine* b) { return a->priority > b->priority; });
    if (ahead.empty()) {
      fmt::print("  no pending job you can see in {} has a higher priority\n", mine.partition);
      continue;
    }
    fmt::print("  {} pending job{} in {} {} a higher priority:\n", ahead.size(),
               ahead.size() == 1 ? "" : "s", mine.partition, ahead.size() == 1 ? "has" : "have");
    fmt::print("    {:<10} {:<12} {:<10} {:>13} {:>13} {:<12} {:>11}\n", "JOBID", "ACCOUNT", "USER",
               "PRIORITY", "FAIRSHARE", "BAND", "AGE");
    for (std::size_t i = 0; i < ahead.size() && i < kMaxListed; ++i) {
      fmt::print("    {:<10} {:<12} {:<10} {:>13} {:>13} {:<12} {:>11}\n", ahead[i]->id,
                 ahead[i]->account, ahead[i]->user, Points(ahead[i]->priority),
                 Points(ahead[i]->fairshare), BandOf(ahead[i]->fairshare, context.settings),
                 Points(ahead[i]->age));
    }
    if (ahead.size() > kMaxListed) {
      fmt::print("    ... and {} more\n", ahead.size() - kMaxListed);
    }
    const PrioLine& next = *ahead.back();
    hints.insert(hints.begin(),
                 fmt::format("job {} ({}) is the nearest ahead in {}, by {} points: {}.", next.id,
                             next.account, mine.partition, Points(next.priority - mine.priority),
                             GapText(next, mine)));
  }
  if (!any) {
    fmt::print("\nsprio shows no priority for job {} (held, or its priority set by an operator)\n",
               job.id);
  }
  if (context.settings.HidesProjects() && !context.caller.IsOperator()) {
    hints.push_back(fmt::format(
        "PrivateData={}: only the jobs you may see are listed; others may be ahead too.",
        fmt::join(context.settings.private_data, ",")));
  }
  hints.push_back(
      "Waiting raises AGE alike for every pending job: it overtakes only jobs whose AGE has "
      "reached its maximum.");
  if (job.reason == "Resources" || job.reason == "Priority") {
    hints.push_back(
        "A shorter time limit (--time) lets the backfill scheduler start it in a gap before the "
        "jobs ahead need the nodes.");
  }
  fmt::print("\nwhat would change its position:\n");
  for (const std::string& hint : hints) {
    fmt::print("  - {}\n", hint);
  }
}

}  // namespace

void AddWhyCommand(CLI::App& app) {
  auto options = std::make_shared<WhyOptions>();
  CLI::App* why = app.add_subcommand(
      "why", "Why a pending job waits: its priority, its project's budget, the jobs ahead");
  why->add_option("job", options->job_id, "the job id")->required();
  AddSourceOptions(*why, options->source);
  why->callback([options] { RunWhy(*options); });
}

}  // namespace budget::cli
