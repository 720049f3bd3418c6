// Renders replay results for people (aligned text), for scripts (JSON) and for tests (start order).
#include "replay_output.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "budget/calendar.hpp"
#include "budget/units.hpp"

namespace budget::cli {
namespace {

constexpr std::array<ProjectState, 5> kStates = {ProjectState::kPreparatory, ProjectState::kActive,
                                                 ProjectState::kLow, ProjectState::kBlocked,
                                                 ProjectState::kEnded};

// Each column as wide as its widest cell.
std::vector<std::size_t> Widths(const std::vector<std::vector<std::string>>& rows,
                                std::size_t columns) {
  std::vector<std::size_t> widths(columns, 0);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  return widths;
}

// Rows of cells in columns of `widths`, two spaces before each; `right[i]`
// aligns column i to the right (numbers).
std::string Table(const std::vector<std::vector<std::string>>& rows,
                  const std::vector<bool>& right) {
  const std::vector<std::size_t> widths = Widths(rows, right.size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      line += right[i] ? fmt::format("  {:>{}}", row[i], widths[i])
                       : fmt::format("  {:<{}}", row[i], widths[i]);
    }
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
    }
    out += line + "\n";
  }
  return out;
}

std::string Percent(double fraction) { return fmt::format("{:.1f}%", fraction * 100); }

std::string MonthText(const CivilDate& d) { return fmt::format("{:04d}-{:02d}", d.year, d.month); }

std::string StatesText(const ReplayProjectMonth& m) {
  std::string out;
  for (std::size_t i = 0; i < kStates.size(); ++i) {
    if (m.seconds_in_state[i] > 0) {
      // Days, or hours under a day (a replay may last only hours).
      const auto seconds = static_cast<double>(m.seconds_in_state[i]);
      out += seconds >= 86400 ? fmt::format("{}{} {:.1f}d", out.empty() ? "" : " ",
                                            ToString(kStates[i]), seconds / 86400)
                              : fmt::format("{}{} {:.1f}h", out.empty() ? "" : " ",
                                            ToString(kStates[i]), seconds / 3600);
    }
  }
  return out.empty() ? "-" : out;
}

std::size_t StartedJobs(const ReplayResult& r) { return r.start_order.size(); }

// Jobs that never started, by outcome, in a fixed order of outcomes.
std::map<std::string, std::size_t> NotStarted(const ReplayResult& r) {
  std::map<std::string, std::size_t> counts;
  for (const ReplayedJob& job : r.jobs) {
    if (job.start < 0) {
      ++counts[job.outcome.empty() ? "unknown" : job.outcome];
    }
  }
  return counts;
}

std::int64_t Requeues(const ReplayResult& r) {
  std::int64_t total = 0;
  for (const ReplayedJob& job : r.jobs) {
    total += job.requeues;
  }
  return total;
}

// The project months of all results, keyed so that results can be read side
// by side: accounts in the order the first result lists them (budget.conf
// order), accounts only a later result has after them; months ascending.
struct MonthKey {
  std::string account;
  CivilDate month;
};

std::vector<std::string> Accounts(const std::vector<ReplayResult>& results) {
  std::vector<std::string> accounts;
  for (const ReplayResult& r : results) {
    for (const ReplayProjectMonth& m : r.months) {
      if (std::find(accounts.begin(), accounts.end(), m.account) == accounts.end()) {
        accounts.push_back(m.account);
      }
    }
  }
  return accounts;
}

std::vector<CivilDate> MonthsOf(const std::vector<ReplayResult>& results,
                                const std::string& account) {
  std::vector<CivilDate> months;
  for (const ReplayResult& r : results) {
    for (const ReplayProjectMonth& m : r.months) {
      if (m.account == account &&
          std::find(months.begin(), months.end(), m.month) == months.end()) {
        months.push_back(m.month);
      }
    }
  }
  std::sort(months.begin(), months.end());
  return months;
}

const ReplayProjectMonth* Find(const ReplayResult& r, const std::string& account,
                               const CivilDate& month) {
  for (const ReplayProjectMonth& m : r.months) {
    if (m.account == account && m.month == month) {
      return &m;
    }
  }
  return nullptr;
}

}  // namespace

GpuSeconds OwedInReplay(const ReplayProjectMonth& m) {
  std::int64_t inside = 0;
  for (const std::int64_t seconds : m.seconds_in_state) {
    inside += seconds;
  }
  const std::int64_t length = std::int64_t{DaysInMonth(m.month.year, m.month.month)} * 86400;
  if (inside >= length) {
    return m.owed;
  }
  // owed x inside / length in two parts, so that no product leaves int64.
  return m.owed / length * inside + m.owed % length * inside / length;
}

ReplayProjectMonth TotalOf(const ReplayResult& r, const std::string& account) {
  ReplayProjectMonth total;
  total.account = account;
  for (const ReplayProjectMonth& m : r.months) {
    if (m.account != account) {
      continue;
    }
    total.owed += OwedInReplay(m);
    total.delivered += m.delivered;
    total.delivered_low += m.delivered_low;
    total.lost += m.lost;
    total.waiting_seconds += m.waiting_seconds;
    total.owed_while_waiting += m.owed_while_waiting;
    total.delivered_while_waiting += m.delivered_while_waiting;
    for (std::size_t i = 0; i < total.seconds_in_state.size(); ++i) {
      total.seconds_in_state[i] += m.seconds_in_state[i];
    }
  }
  return total;
}

namespace {

constexpr std::size_t kCellsPerPolicy = 7;

// Delivered against owed while the project had work queued, or "-" when it
// was owed nothing then (it never waited, or it was ahead of its line).
std::string ServedText(const ReplayProjectMonth& m) {
  if (m.owed_while_waiting <= 0) {
    return "-";
  }
  return Percent(static_cast<double>(m.delivered_while_waiting) /
                 static_cast<double>(m.owed_while_waiting));
}

void AppendCells(std::vector<std::string>& row, const ReplayProjectMonth* m, bool total) {
  if (m == nullptr) {
    row.insert(row.end(), kCellsPerPolicy, "-");
    return;
  }
  row.push_back(FormatGpuHours(m->owed));
  row.push_back(FormatGpuHours(m->delivered));
  row.push_back(FormatGpuHours(m->delivered_low));
  row.push_back(FormatGpuHours(m->lost));
  row.push_back(FormatDuration(m->waiting_seconds));
  row.push_back(ServedText(*m));
  row.push_back(total ? "" : StatesText(*m));
}

nlohmann::ordered_json Gpuh(GpuSeconds s) { return ToGpuHours(s); }

// " (2 skipped: 1 without a run time, 1 without processors)", or "".
std::string SkippedText(const ReplayRun& run) {
  std::string reasons;
  for (const auto& [count, why] : {std::pair{run.skipped_no_submit, "without a submit time"},
                                   std::pair{run.skipped_no_run_time, "without a run time"},
                                   std::pair{run.skipped_no_nodes, "without processors"}}) {
    if (count > 0) {
      reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", count, why);
    }
  }
  const std::size_t total = run.skipped_no_submit + run.skipped_no_run_time + run.skipped_no_nodes;
  return total == 0 ? "" : fmt::format(" ({} skipped: {})", total, reasons);
}

}  // namespace

const char* PolicyName(ReplayPolicy policy) {
  switch (policy) {
    case ReplayPolicy::kBudget:
      return "budget";
    case ReplayPolicy::kBaseline:
      return "baseline";
  }
  return "unknown";
}

std::string FormatDuration(std::int64_t seconds) {
  seconds = std::max<std::int64_t>(seconds, 0);
  const std::int64_t days = seconds / 86400;
  const std::int64_t hours = seconds % 86400 / 3600;
  const std::int64_t minutes = seconds % 3600 / 60;
  const std::int64_t secs = seconds % 60;
  if (days > 0) {
    return fmt::format("{}-{:02d}:{:02d}:{:02d}", days, hours, minutes, secs);
  }
  if (hours > 0) {
    return fmt::format("{}:{:02d}:{:02d}", hours, minutes, secs);
  }
  return fmt::format("{}:{:02d}", minutes, secs);
}

std::string FormatMinute(UnixTime t, const TimeZone& zone) {
  if (t < 0) {
    return "-";
  }
  const CivilDate day = zone.DateAt(t);
  const std::int64_t into = t - zone.MidnightOf(day);
  return fmt::format("{} {:02d}:{:02d}", FormatCivilDate(day), into / 3600, into % 3600 / 60);
}

std::string ReplayText(const ReplayRun& run, const std::vector<ReplayResult>& results,
                       const TimeZone& zone) {
  std::string out = fmt::format(
      "Replay of {} ({}): {} jobs{}, {} nodes x {} GPUs, time 0 = {} 00:00 {}\nProjects: {}\n\n",
      run.trace, run.format, run.jobs, SkippedText(run), run.nodes, run.gpus_per_node,
      FormatCivilDate(run.start), run.utc ? "UTC" : "local time", run.projects);

  // Cluster: one row per measure, one column per policy.
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> heading{"Cluster"};
  for (const ReplayResult& r : results) {
    heading.emplace_back(PolicyName(r.policy));
  }
  rows.push_back(heading);
  const auto add = [&](const std::string& label, auto cell) {
    std::vector<std::string> row{label};
    for (const ReplayResult& r : results) {
      row.push_back(cell(r));
    }
    rows.push_back(std::move(row));
  };
  add("jobs started", [](const ReplayResult& r) { return fmt::format("{}", StartedJobs(r)); });
  std::vector<std::string> outcomes;
  for (const ReplayResult& r : results) {
    for (const auto& [outcome, count] : NotStarted(r)) {
      if (std::find(outcomes.begin(), outcomes.end(), outcome) == outcomes.end()) {
        outcomes.push_back(outcome);
      }
    }
  }
  std::sort(outcomes.begin(), outcomes.end());
  for (const std::string& outcome : outcomes) {
    add("not started: " + outcome, [&outcome](const ReplayResult& r) {
      const auto counts = NotStarted(r);
      const auto it = counts.find(outcome);
      return fmt::format("{}", it == counts.end() ? 0 : it->second);
    });
  }
  add("requeued (preempted)", [](const ReplayResult& r) { return fmt::format("{}", Requeues(r)); });
  add("mean occupancy", [](const ReplayResult& r) { return Percent(r.mean_occupancy); });
  add("first submission",
      [&zone](const ReplayResult& r) { return FormatMinute(r.first_submit, zone); });
  add("last job end",
      [&zone](const ReplayResult& r) { return FormatMinute(r.makespan_end, zone); });
  add("makespan",
      [](const ReplayResult& r) { return FormatDuration(r.makespan_end - r.first_submit); });
  std::vector<std::string> groups;
  for (const ReplayResult& r : results) {
    for (const WaitPercentiles& w : r.waits) {
      // A group without a job under any policy (no large project) says nothing.
      if (w.jobs > 0 && std::find(groups.begin(), groups.end(), w.group) == groups.end()) {
        groups.push_back(w.group);
      }
    }
  }
  for (const std::string& group : groups) {
    const auto wait_of = [&group](const ReplayResult& r) -> const WaitPercentiles* {
      for (const WaitPercentiles& w : r.waits) {
        if (w.group == group) {
          return &w;
        }
      }
      return nullptr;
    };
    add("wait, " + group + ": jobs", [&](const ReplayResult& r) {
      const WaitPercentiles* w = wait_of(r);
      return w == nullptr ? std::string("-") : fmt::format("{}", w->jobs);
    });
    const std::array<std::pair<const char*, std::int64_t WaitPercentiles::*>, 4> quantiles = {{
        {"p50", &WaitPercentiles::p50},
        {"p90", &WaitPercentiles::p90},
        {"p99", &WaitPercentiles::p99},
        {"max", &WaitPercentiles::max},
    }};
    for (const auto& [name, member] : quantiles) {
      add(fmt::format("wait, {}: {}", group, name), [&, member = member](const ReplayResult& r) {
        const WaitPercentiles* w = wait_of(r);
        return w == nullptr || w->jobs == 0 ? std::string("-") : FormatDuration(w->*member);
      });
    }
  }
  std::vector<bool> right(results.size() + 1, true);
  right[0] = false;
  out += Table(rows, right);

  // Projects: per project and month, the policies side by side.
  out +=
      "\nProjects (GPUh; waiting: time with a job pending; served: GPUh run while waiting / "
      "owed for that time; states: days (d) or hours (h) in each)\n";
  std::vector<std::vector<std::string>> project_rows;
  std::vector<std::string> columns{"project", "month"};
  for (std::size_t i = 0; i < results.size(); ++i) {
    for (const char* name : {"owed", "delivered", "low", "lost", "waiting", "served", "states"}) {
      columns.emplace_back(name);
    }
  }
  project_rows.push_back(columns);
  for (const std::string& account : Accounts(results)) {
    for (const CivilDate& month : MonthsOf(results, account)) {
      std::vector<std::string> row{account, MonthText(month)};
      for (const ReplayResult& r : results) {
        AppendCells(row, Find(r, account, month), false);
      }
      project_rows.push_back(std::move(row));
    }
    std::vector<std::string> row{account, "total"};
    for (const ReplayResult& r : results) {
      const ReplayProjectMonth total = TotalOf(r, account);
      AppendCells(row, &total, true);
    }
    project_rows.push_back(std::move(row));
  }
  std::vector<bool> project_right{false, false};
  for (std::size_t i = 0; i < results.size(); ++i) {
    project_right.insert(project_right.end(), {true, true, true, true, true, true, false});
  }
  // A line naming each policy above the first column of its group.
  const std::vector<std::size_t> widths = Widths(project_rows, project_right.size());
  std::string policy_line;
  std::size_t column = 0;
  for (const ReplayResult& r : results) {
    std::size_t at = 0;
    for (std::size_t i = 0; i < 2 + column * kCellsPerPolicy; ++i) {
      at += 2 + widths[i];
    }
    at += 2;
    policy_line.resize(std::max(policy_line.size() + 1, at), ' ');
    policy_line += PolicyName(r.policy);
    ++column;
  }
  out += policy_line + "\n" + Table(project_rows, project_right);
  return out;
}

std::string ReplayJson(const ReplayRun& run, const std::vector<ReplayResult>& results) {
  nlohmann::ordered_json out;
  out["trace"] = {
      {"file", run.trace},
      {"format", run.format},
      {"jobs", run.jobs},
      {"skipped",
       {{"no_submit", run.skipped_no_submit},
        {"no_run_time", run.skipped_no_run_time},
        {"no_processors", run.skipped_no_nodes}}},
      {"nodes", run.nodes},
      {"gpus_per_node", run.gpus_per_node},
      {"start", FormatCivilDate(run.start)},
      {"zone", run.utc ? "UTC" : "local"},
      {"projects", run.projects},
  };
  out["policies"] = nlohmann::ordered_json::array();
  for (const ReplayResult& r : results) {
    nlohmann::ordered_json p;
    p["policy"] = PolicyName(r.policy);
    p["jobs_started"] = StartedJobs(r);
    p["not_started"] = nlohmann::ordered_json::object();
    for (const auto& [outcome, count] : NotStarted(r)) {
      p["not_started"][outcome] = count;
    }
    p["requeues"] = Requeues(r);
    p["mean_occupancy"] = r.mean_occupancy;
    p["first_submit"] = r.first_submit;
    p["makespan_end"] = r.makespan_end;
    p["makespan_seconds"] = r.makespan_end - r.first_submit;
    p["priority_passes"] = r.priority_passes;
    p["scheduler_passes"] = r.scheduler_passes;
    p["waits"] = nlohmann::ordered_json::array();
    for (const WaitPercentiles& w : r.waits) {
      p["waits"].push_back({{"group", w.group},
                            {"jobs", w.jobs},
                            {"p50", w.p50},
                            {"p90", w.p90},
                            {"p99", w.p99},
                            {"max", w.max}});
    }
    p["projects"] = nlohmann::ordered_json::array();
    for (const std::string& account : Accounts({r})) {
      nlohmann::ordered_json months = nlohmann::ordered_json::array();
      for (const ReplayProjectMonth& m : r.months) {
        if (m.account != account) {
          continue;
        }
        nlohmann::ordered_json states = nlohmann::ordered_json::object();
        for (std::size_t i = 0; i < kStates.size(); ++i) {
          states[ToString(kStates[i])] = m.seconds_in_state[i];
        }
        months.push_back({{"month", MonthText(m.month)},
                          {"owed", Gpuh(m.owed)},
                          {"delivered", Gpuh(m.delivered)},
                          {"delivered_low", Gpuh(m.delivered_low)},
                          {"lost", Gpuh(m.lost)},
                          {"waiting_seconds", m.waiting_seconds},
                          {"owed_while_waiting", Gpuh(m.owed_while_waiting)},
                          {"delivered_while_waiting", Gpuh(m.delivered_while_waiting)},
                          {"seconds_in_state", states}});
      }
      const ReplayProjectMonth total = TotalOf(r, account);
      p["projects"].push_back({{"project", account},
                               {"months", months},
                               {"owed", Gpuh(total.owed)},
                               {"delivered", Gpuh(total.delivered)},
                               {"lost", Gpuh(total.lost)},
                               {"owed_while_waiting", Gpuh(total.owed_while_waiting)},
                               {"delivered_while_waiting", Gpuh(total.delivered_while_waiting)}});
    }
    out["policies"].push_back(std::move(p));
  }
  return out.dump(2) + "\n";
}

std::string StartsCsv(const std::vector<ReplayResult>& results) {
  std::string out = "policy,order,job_id,start\n";
  for (const ReplayResult& r : results) {
    std::unordered_map<std::uint64_t, UnixTime> start_of;
    for (const ReplayedJob& job : r.jobs) {
      start_of[job.id] = job.start;
    }
    std::size_t order = 0;
    for (const std::uint64_t id : r.start_order) {
      const auto it = start_of.find(id);
      out += fmt::format("{},{},{},{}\n", PolicyName(r.policy), ++order, id,
                         it == start_of.end() ? -1 : it->second);
    }
  }
  return out;
}

}  // namespace budget::cli
