// Reads workload traces, gives their jobs projects, and generates projects for them.
#include "budget/replay_trace.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <set>
#include <system_error>
#include <unordered_map>
#include <utility>

#include "budget/config.hpp"
#include "budget/text.hpp"

namespace budget {
namespace {

constexpr std::size_t kSwfFields = 18;
constexpr std::int64_t kSmallGuidelineGpuHours = 32'000;

// A whole decimal number with an optional leading '-', nothing else.
std::optional<std::int64_t> ParseInteger(std::string_view text) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  return value;
}

std::vector<std::string_view> SplitWords(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) {
      ++i;
    }
    const std::size_t from = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
      ++i;
    }
    if (i > from) {
      words.push_back(line.substr(from, i - from));
    }
  }
  return words;
}

class Diagnostics {
 public:
  explicit Diagnostics(std::string_view file) : file_(file) {}
  void Add(int line, std::string_view message) {
    lines_.push_back(file_ + ":" + std::to_string(line) + ": " + std::string(message));
  }
  bool empty() const { return lines_.empty(); }
  Error ToError() const { return Error{JoinLines(lines_)}; }

 private:
  std::string file_;
  std::vector<std::string> lines_;
};

// What the `; Key: value` header comments of SWF tell the replay.
struct SwfHeader {
  std::optional<UnixTime> unix_start_time;
  std::optional<std::uint32_t> max_nodes;
  std::optional<std::uint32_t> max_procs;
};

void ReadSwfHeader(std::string_view line, SwfHeader& header) {
  line.remove_prefix(1);
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    return;
  }
  const std::string_view key = Trim(line.substr(0, colon));
  const auto value = ParseInteger(Trim(line.substr(colon + 1)));
  if (!value) {
    return;
  }
  const bool fits_nodes = *value > 0 && *value <= std::numeric_limits<std::uint32_t>::max();
  if (key == "UnixStartTime") {
    header.unix_start_time = *value;
  } else if (key == "MaxNodes" && fits_nodes) {
    header.max_nodes = static_cast<std::uint32_t>(*value);
  } else if (key == "MaxProcs" && fits_nodes) {
    header.max_procs = static_cast<std::uint32_t>(*value);
  }
}

// SWF times are at most about a century of seconds; this bound keeps every
// sum of the replay (submit + limit, node-seconds x GPUs) far inside int64.
constexpr std::int64_t kMaxSeconds = std::int64_t{1} << 40;

}  // namespace

Result<Trace> ParseSwf(std::string_view text, std::string_view file_name) {
  Trace trace;
  Diagnostics diags(file_name);
  std::set<std::uint64_t> ids;
  SwfHeader header;
  LineCursor lines(text);
  while (lines.Next()) {
    const int number = lines.number();
    std::string_view line = lines.line();
    const std::string_view trimmed = Trim(line);
    if (trimmed.empty()) {
      continue;
    }
    if (trimmed.front() == ';') {
      ReadSwfHeader(trimmed, header);
      continue;
    }
    const std::vector<std::string_view> f = SplitWords(trimmed);
    if (f.size() != kSwfFields) {
      diags.Add(number, "expected 18 fields, got " + std::to_string(f.size()));
      continue;
    }
    bool ok = true;
    // Field `index` (1-based, as SWF numbers them) as a whole number >= -1.
    auto field = [&](std::size_t index, std::string_view name) -> std::int64_t {
      const std::string_view word = f[index - 1];
      const auto value = ParseInteger(word);
      if (!value || *value < -1 || *value > kMaxSeconds) {
        diags.Add(number, std::string(name) + ": must be a whole number from -1 to " +
                              std::to_string(kMaxSeconds) + ", got " + Quoted(word));
        ok = false;
        return -1;
      }
      return *value;
    };
    const std::int64_t id = field(1, "job number");
    const std::int64_t submit = field(2, "submit time");
    const std::int64_t run = field(4, "run time");
    const std::int64_t allocated = field(5, "allocated processors");
    const std::int64_t requested = field(8, "requested processors");
    const std::int64_t requested_time = field(9, "requested time");
    const std::int64_t user = field(12, "user id");
    const std::int64_t group = field(13, "group id");
    if (!ok) {
      continue;
    }
    if (id < 0) {
      diags.Add(number, "job number: must be a whole number >= 0, got " + Quoted(f[0]));
      continue;
    }
    if (!ids.insert(static_cast<std::uint64_t>(id)).second) {
      diags.Add(number, "job number: " + std::to_string(id) + " is given twice");
      continue;
    }
    const std::int64_t processors = allocated > 0 ? allocated : requested;
    if (submit < 0) {
      ++trace.skipped_no_submit;
      continue;
    }
    if (run < 0) {
      ++trace.skipped_no_run_time;
      continue;
    }
    if (processors <= 0) {
      ++trace.skipped_no_nodes;
      continue;
    }
    if (processors > std::numeric_limits<std::uint32_t>::max()) {
      diags.Add(number, "allocated processors: too many, got " + std::to_string(processors));
      continue;
    }
    TraceJob job;
    job.id = static_cast<std::uint64_t>(id);
    job.submit = submit;
    job.run_seconds = run;
    job.limit_seconds = std::max(run, requested_time);
    job.nodes = static_cast<std::uint32_t>(processors);
    job.user = user < 0 ? "" : std::to_string(user);
    job.group = group < 0 ? "" : std::to_string(group);
    trace.jobs.push_back(std::move(job));
  }
  if (!diags.empty()) {
    return diags.ToError();
  }
  trace.unix_start_time = header.unix_start_time;
  trace.max_nodes = header.max_nodes ? header.max_nodes : header.max_procs;
  return trace;
}

Result<Trace> ParseTraceCsv(std::string_view text, std::string_view file_name) {
  static constexpr std::array<std::string_view, 6> kColumns = {
      "submit", "nodes", "run_seconds", "limit_seconds", "account", "user"};
  Trace trace;
  Diagnostics diags(file_name);
  bool header_seen = false;
  std::uint64_t row = 0;
  LineCursor lines(text);
  while (lines.Next()) {
    const int number = lines.number();
    std::string_view line = lines.line();
    if (Trim(line).empty()) {
      continue;
    }
    std::vector<std::string_view> cells;
    std::size_t from = 0;
    while (true) {
      const std::size_t comma = line.find(',', from);
      cells.push_back(Trim(line.substr(from, comma - from)));
      if (comma == std::string_view::npos) {
        break;
      }
      from = comma + 1;
    }
    if (!header_seen) {
      header_seen = true;
      if (!std::equal(cells.begin(), cells.end(), kColumns.begin(), kColumns.end())) {
        diags.Add(number,
                  "the header must be \"submit,nodes,run_seconds,limit_seconds,account,"
                  "user\", got " +
                      Quoted(Trim(line)));
      }
      continue;
    }
    ++row;
    if (cells.size() != kColumns.size()) {
      diags.Add(number, "expected 6 comma-separated values, got " + std::to_string(cells.size()));
      continue;
    }
    bool ok = true;
    auto number_of = [&](std::size_t column, std::int64_t min) -> std::int64_t {
      const auto value = ParseInteger(cells[column]);
      if (!value || *value < min || *value > kMaxSeconds) {
        diags.Add(number, std::string(kColumns[column]) + ": must be a whole number >= " +
                              std::to_string(min) + ", got " + Quoted(cells[column]));
        ok = false;
        return 0;
      }
      return *value;
    };
    TraceJob job;
    job.id = row;
    job.submit = number_of(0, 0);
    const std::int64_t nodes = number_of(1, 1);
    job.run_seconds = number_of(2, 0);
    job.limit_seconds = cells[3].empty() ? job.run_seconds : number_of(3, 0);
    if (ok && job.limit_seconds < job.run_seconds) {
      diags.Add(number, "limit_seconds: must be at least run_seconds (" +
                            std::to_string(job.run_seconds) + "), got " + Quoted(cells[3]));
      ok = false;
    }
    if (ok && nodes > std::numeric_limits<std::uint32_t>::max()) {
      diags.Add(number, "nodes: too many, got " + Quoted(cells[1]));
      ok = false;
    }
    if (!cells[4].empty() && !IsSlurmAccountName(cells[4])) {
      diags.Add(number, "account: must be a Slurm account name (a-z, 0-9, _ and -), got " +
                            Quoted(cells[4]));
      ok = false;
    }
    if (!ok) {
      continue;
    }
    job.nodes = static_cast<std::uint32_t>(nodes);
    job.account = std::string(cells[4]);
    job.user = std::string(cells[5]);
    trace.jobs.push_back(std::move(job));
  }
  if (!header_seen) {
    diags.Add(1,
              "the header must be \"submit,nodes,run_seconds,limit_seconds,account,user\", "
              "got an empty file");
  }
  if (!diags.empty()) {
    return diags.ToError();
  }
  return trace;
}

Result<ProjectMap> ParseProjectMap(std::string_view text, std::string_view file_name) {
  ProjectMap map;
  Diagnostics diags(file_name);
  LineCursor lines(text);
  while (lines.Next()) {
    const int number = lines.number();
    std::string_view line = lines.line();
    line = line.substr(0, line.find('#'));
    if (Trim(line).empty()) {
      continue;
    }
    // "user 17=chem" and "user 17 = chem" alike: '=' is a word of its own.
    std::string spaced;
    for (const char c : line) {
      if (c == '=') {
        spaced += " = ";
      } else {
        spaced += c;
      }
    }
    const std::vector<std::string_view> w = SplitWords(spaced);
    std::string_view kind;
    std::string_view who;
    std::string_view account;
    if (w.size() == 3 && w[0] == "*" && w[1] == "=") {
      kind = "*";
      account = w[2];
    } else if (w.size() == 4 && (w[0] == "user" || w[0] == "group") && w[2] == "=") {
      kind = w[0];
      who = w[1];
      account = w[3];
    } else {
      diags.Add(number,
                "expected \"user ID = ACCOUNT\", \"group ID = ACCOUNT\" or \"* = "
                "ACCOUNT\", got " +
                    Quoted(Trim(line)));
      continue;
    }
    if (!IsSlurmAccountName(account)) {
      diags.Add(number, "the account must be a Slurm account name (a-z, 0-9, _ and -), got " +
                            Quoted(account));
      continue;
    }
    if (kind == "*") {
      if (!map.fallback.empty()) {
        diags.Add(number, "\"*\" is given twice");
        continue;
      }
      map.fallback = std::string(account);
      continue;
    }
    auto& rules = kind == "user" ? map.by_user : map.by_group;
    if (!rules.emplace(std::string(who), std::string(account)).second) {
      diags.Add(number, std::string(kind) + " " + std::string(who) + " is given twice");
    }
  }
  if (!diags.empty()) {
    return diags.ToError();
  }
  return map;
}

Status MapProjects(const ProjectMap& map, std::vector<TraceJob>& jobs) {
  const TraceJob* first_unmapped = nullptr;
  std::size_t unmapped = 0;
  for (TraceJob& job : jobs) {
    if (!job.account.empty()) {
      continue;
    }
    if (const auto user = map.by_user.find(job.user); user != map.by_user.end()) {
      job.account = user->second;
    } else if (const auto group = map.by_group.find(job.group); group != map.by_group.end()) {
      job.account = group->second;
    } else if (!map.fallback.empty()) {
      job.account = map.fallback;
    } else {
      if (first_unmapped == nullptr) {
        first_unmapped = &job;
      }
      ++unmapped;
    }
  }
  if (first_unmapped != nullptr) {
    const auto shown = [](const std::string& id) { return id.empty() ? std::string("-1") : id; };
    return Error{"no rule of the mapping gives a project to user " + shown(first_unmapped->user) +
                 " (group " + shown(first_unmapped->group) + "): " + std::to_string(unmapped) +
                 (unmapped == 1 ? " job" : " jobs") + " without a project; add \"* = ACCOUNT\""};
  }
  return Ok();
}

std::vector<std::string> AccountsOf(const std::vector<TraceJob>& jobs) {
  std::set<std::string> accounts;
  for (const TraceJob& job : jobs) {
    accounts.insert(job.account);
  }
  return {accounts.begin(), accounts.end()};
}

Result<GeneratedProjects> GenerateProjects(std::vector<TraceJob>& jobs,
                                           const GenerateOptions& options) {
  if (options.projects < 1) {
    return Error{"the number of projects must be at least 1, got " +
                 std::to_string(options.projects)};
  }
  if (options.gpus_per_node == 0) {
    return Error{"GPUs per node must be at least 1"};
  }
  if (jobs.empty()) {
    return Error{"the trace has no job to give a project"};
  }
  // Users in order of first appearance, with their demand.
  struct UserDemand {
    std::string user;
    std::int64_t node_seconds = 0;
  };
  std::vector<UserDemand> users;
  std::unordered_map<std::string, std::size_t> index_of;
  UnixTime first_submit = jobs.front().submit;
  UnixTime last_submit = jobs.front().submit;
  for (const TraceJob& job : jobs) {
    const auto [it, added] = index_of.emplace(job.user, users.size());
    if (added) {
      users.push_back({job.user, 0});
    }
    // A job wider than the cluster never runs: it asks for nothing it can get.
    if (options.max_nodes == 0 || job.nodes <= options.max_nodes) {
      users[it->second].node_seconds += job.run_seconds * static_cast<std::int64_t>(job.nodes);
    }
    first_submit = std::min(first_submit, job.submit);
    last_submit = std::max(last_submit, job.submit);
  }
  const auto count = static_cast<std::size_t>(options.projects);
  if (count > users.size()) {
    return Error{"cannot spread " + std::to_string(users.size()) +
                 (users.size() == 1 ? " user" : " users") + " over " +
                 std::to_string(options.projects) + " projects: at most one project per user"};
  }
  std::stable_sort(users.begin(), users.end(), [](const UserDemand& a, const UserDemand& b) {
    return a.node_seconds > b.node_seconds;
  });

  GeneratedProjects out;
  const CivilDate start{options.start.year, options.start.month, 1};
  // Months of 30.436875 days (365.2425 / 12), to the nearest: a three-month
  // trace that ends a few minutes into a fourth month (an hour of daylight
  // saving time, a late job) still counts three.
  constexpr std::int64_t kMonthSeconds = 2'629'746;
  out.trace_months = static_cast<int>(
      std::max<std::int64_t>(1, (last_submit - first_submit + kMonthSeconds / 2) / kMonthSeconds));
  const bool large_possible = start.month == 1 || start.month == 7;

  std::size_t digits = std::to_string(count).size();
  digits = std::max<std::size_t>(digits, 2);
  out.projects.resize(count);
  for (std::size_t p = 0; p < count; ++p) {
    std::string number = std::to_string(p + 1);
    out.projects[p].account = "p" + std::string(digits - number.size(), '0') + number;
  }
  std::unordered_map<std::string, std::size_t> project_of;
  for (std::size_t k = 0; k < users.size(); ++k) {
    GeneratedProject& project = out.projects[k % count];
    project.users.push_back(users[k].user);
    project.demand_node_seconds += users[k].node_seconds;
    project_of[users[k].user] = k % count;
  }
  for (TraceJob& job : jobs) {
    job.account = out.projects[project_of.at(job.user)].account;
  }

  const std::int64_t gpus = options.gpus_per_node;
  const auto credit_for = [&](std::int64_t node_seconds, int months) {
    // ceil(node_seconds x gpus x months / (3600 x trace_months)), at least 1.
    const std::int64_t numerator = node_seconds * gpus * months;
    const std::int64_t denominator = kGpuSecondsPerGpuHour * out.trace_months;
    return std::max<std::int64_t>(1, (numerator + denominator - 1) / denominator);
  };
  const std::string start_text = FormatCivilDate(start);
  std::string& conf = out.config_text;
  conf += "# budget.conf generated by `sbudget replay --projects " +
          std::to_string(options.projects) + "`" +
          (options.trace_name.empty() ? "" : " for " + options.trace_name) + "\n";
  conf += "# " + std::to_string(users.size()) +
          " trace users dealt out round-robin, largest "
          "first; each credit is the\n# project's demand over the trace's " +
          std::to_string(out.trace_months) + (out.trace_months == 1 ? " month" : " months") +
          ", scaled to its duration (6 or 12 months).\n";
  conf += "NodeHourPrice=" + std::to_string(start.year) + ":2.69\n";
  conf += "PartitionName=normal Role=budgeted GpuhPerNodeHour=" + std::to_string(gpus) + "\n";
  conf += "PartitionName=low Role=low GpuhPerNodeHour=" + std::to_string(gpus) + "\n";
  const std::string created = FormatCivilDate(AddDays(start, -1));
  for (GeneratedProject& project : out.projects) {
    project.credit_gpu_hours = credit_for(project.demand_node_seconds, kSmallProjectMonths);
    if (large_possible && project.credit_gpu_hours > kSmallGuidelineGpuHours) {
      project.kind = ProjectKind::kLarge;
      project.credit_gpu_hours = credit_for(project.demand_node_seconds, kLargeProjectMonths);
    }
    std::string user_list;
    for (const std::string& user : project.users) {
      user_list += (user_list.empty() ? "" : " ") + (user.empty() ? std::string("-1") : user);
    }
    conf += "# users ";
    conf += user_list;
    conf += ": ";
    conf += FormatGpuHours(project.demand_node_seconds * gpus);
    conf += " GPUh in the trace\nProject=";
    conf += project.account;
    if (project.kind == ProjectKind::kLarge) {
      conf += " Kind=large Credit=";
      conf += std::to_string(project.credit_gpu_hours);
      conf += " StorageTB=1 StorageInodes=1000000";
    } else {
      conf += " Kind=small Credit=";
      conf += std::to_string(project.credit_gpu_hours);
      conf += " Created=";
      conf += created;
    }
    conf += " Start=";
    conf += start_text;
    conf += " PIs=replay@example.org\n";
  }
  return out;
}

void ShiftTrace(std::vector<TraceJob>& jobs, UnixTime origin) {
  for (TraceJob& job : jobs) {
    job.submit += origin;
  }
}

}  // namespace budget
