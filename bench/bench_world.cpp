// The benchmarks' synthetic site: budget.conf text, seeded usage, pending jobs.
#include "bench_world.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>

#include "budget/config.hpp"

namespace budget::bench {
namespace {

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "budget_bench: %s\n", message.c_str());
  std::exit(2);
}

constexpr int kYear = 2026;
constexpr std::int64_t kDay = 86'400;
constexpr std::int64_t kHalfLife = 7 * kDay;  // PriorityDecayHalfLife=7-0

// What project `i` is like; every rule is a pure function of i, so a site of
// M projects is always the same site.
bool IsSmall(int i) { return i % 4 == 3; }
bool IsPreparatory(int i) { return i % 20 == 19; }  // large, starts 1 July
std::int64_t CreditGpuHours(int i) {
  return IsSmall(i) ? 2'000 + (i % 13) * 1'000 : 20'000 + (i % 37) * 5'000;
}
// The share of its monthly budget B a project used in each past month: behind
// (< 1), on the line, ahead (> 1), or its whole credit (used up).
double MonthlyUseOfBudget(int i) {
  constexpr double kPattern[] = {0.3, 0.6, 0.8, 0.9, 1.0, 1.1, 1.3, 0.2, 0.7, 0.95};
  return kPattern[i % 10];
}
bool UsesUpCredit(int i) { return i % 10 == 7 || i % 10 == 8; }
bool IsBlocked(int i) { return i % 10 == 8; }

UnixTime MonthStart(const TimeZone& zone, int month) {
  return zone.MidnightOf(CivilDate{kYear, month, 1});
}

// Feeds the usage to an engine in time order, a month at a time, advancing
// (decay, month close) at each month's start and finally to BenchNow(), as a
// controller running since January would have.
template <typename AccrueFn, typename AdvanceFn>
void Replay(const std::vector<Sample>& usage, AccrueFn accrue, AdvanceFn advance) {
  const TimeZone zone = TimeZone::Local();
  for (int month = 1; month <= 5; ++month) {
    const UnixTime begin = MonthStart(zone, month);
    const UnixTime end = MonthStart(zone, month + 1);
    advance(begin);
    for (const Sample& s : usage) {
      if (s.from >= begin && s.from < end) {
        accrue(s);
      }
    }
  }
  advance(BenchNow());
}

}  // namespace

PriorityWeights SiteWeights() {
  PriorityWeights w;
  w.age = 2'000'000;
  w.fairshare = 10'000'000;
  w.partition = 1'000;
  w.qos = 100'000'000;
  w.tres.assign(kTresCount, 0.0);
  w.tres[kGpuTresIndex] = 1'000.0;
  w.max_age_seconds = 30 * kDay;
  return w;
}

UnixTime BenchNow() { return TimeZone::Local().MidnightOf(CivilDate{kYear, 5, 15}) + kDay / 2; }

std::string SiteAccount(int project) {
  char name[32];
  std::snprintf(name, sizeof(name), "s%05d-physics", project);
  return name;
}

std::string SiteUser(int project, int user) {
  char name[32];
  std::snprintf(name, sizeof(name), "u%05d%02d", project, user);
  return name;
}

std::string SiteBudgetConf(int projects) {
  std::string text =
      "# budget.conf of the benchmark site (bench/bench_world.cpp)\n"
      "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
      "PartitionName=debug Role=budgeted GpuhPerNodeHour=4\n"
      "PartitionName=low Role=low GpuhPerNodeHour=4\n";
  for (int i = 0; i < projects; ++i) {
    text += "Project=" + SiteAccount(i);
    if (IsSmall(i)) {
      text += " Kind=small Created=2025-12-10";
    } else {
      text += IsPreparatory(i) ? " Kind=large Start=2026-07-01" : " Kind=large Start=2026-01-01";
      text += " StorageTB=10 StorageInodes=5000000";
    }
    text += " Credit=" + std::to_string(CreditGpuHours(i)) + " Title=\"Benchmark project " +
            std::to_string(i) + "\" PIs=pi" + std::to_string(i) +
            "@uni.example.ch Fields=physics\n";
  }
  return text;
}

Site::Site(SiteSpec spec) : spec_(spec) {
  char path[] = "/tmp/budget-bench-conf.XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    Die("cannot create a temporary budget.conf");
  }
  close(fd);
  config_path_ = path;
  {
    std::ofstream out(config_path_);
    out << SiteBudgetConf(spec_.projects);
    if (!out) {
      Die("cannot write " + config_path_);
    }
  }
  auto config = LoadBudgetConfig(config_path_);
  if (!config) {
    Die(config.error());
  }
  for (const ProjectSpec& p : config.value().projects) {
    terms_.push_back(ProjectTerms{p.account, p.credit, p.calendar});
  }

  for (int i = 0; i < spec_.projects; ++i) {
    accounts_.push_back(SiteAccount(i));
    for (int u = 0; u < spec_.users; ++u) {
      users_.push_back(SiteUser(i, u));
    }
  }

  // Usage: each past month of the project (and the first half of May) at the
  // project's pace, split evenly over its users; used-up projects burn their
  // whole credit in months 1..4 and then run in low; preparatory projects
  // test before their start.
  const TimeZone zone = TimeZone::Local();
  const UnixTime now = BenchNow();
  for (int i = 0; i < spec_.projects; ++i) {
    const ProjectTerms& t = terms_[static_cast<std::size_t>(i)];
    const double budget_gpuh = static_cast<double>(t.MonthlyBudget()) / 3600.0;
    for (int month = 1; month <= 5; ++month) {
      double gpuh = budget_gpuh * MonthlyUseOfBudget(i);
      if (UsesUpCredit(i)) {
        gpuh = month <= 4 ? budget_gpuh * static_cast<double>(t.calendar.months()) / 4.0 : 0.0;
      }
      if (month == 5) {
        gpuh /= 2.0;  // half of May has gone by
      }
      const char* partition = IsPreparatory(i) ? "debug" : "normal";
      const UnixTime from = MonthStart(zone, month) + 3600;
      const UnixTime limit = (month == 5 ? now : MonthStart(zone, month + 1)) - 3600;
      const double node_seconds = gpuh * 3600.0 / 4.0 / spec_.users;
      for (int u = 0; u < spec_.users && node_seconds >= 1.0; ++u) {
        const auto nodes =
            static_cast<std::int64_t>(std::ceil(node_seconds / static_cast<double>(limit - from)));
        const auto seconds = static_cast<UnixTime>(node_seconds / static_cast<double>(nodes));
        usage_.push_back(Sample{i, accounts_[static_cast<std::size_t>(i)], user(i, u), partition,
                                nodes, from, from + seconds});
      }
      if (UsesUpCredit(i) && month == 5) {
        // In low: a third of the allowance, or all of it (blocked).
        const double low_gpuh = budget_gpuh * (IsBlocked(i) ? 1.01 : 0.33);
        const UnixTime low_from = MonthStart(zone, 5) + 3600;
        const auto seconds = static_cast<UnixTime>(low_gpuh * 3600.0 / 4.0 / 4.0);
        usage_.push_back(Sample{i, accounts_[static_cast<std::size_t>(i)], user(i, 0), "low", 4,
                                low_from, low_from + seconds});
      }
    }
  }

  engine_ = OpenEngine();
}

std::unique_ptr<Engine> Site::OpenEngine() const {
  EngineOptions options;
  options.config_path = config_path_;
  options.half_life_seconds = kHalfLife;
  options.zone = TimeZone::Local();
  auto opened = Engine::Open(options, MonthStart(options.zone, 1) - kDay);
  if (!opened) {
    Die(opened.error());
  }
  std::unique_ptr<Engine> engine = std::move(opened).value();
  engine->SetWeights(SiteWeights());
  Replay(
      usage_,
      [&](const Sample& s) {
        engine->Accrue(s.account, s.user, s.partition, s.nodes, s.from, s.to);
      },
      [&](UnixTime t) { engine->Advance(t); });
  return engine;
}

Site::~Site() {
  budget_priority_weights_free(c_weights_);
  budget_engine_close(c_engine_);
  std::remove(config_path_.c_str());
}

budget_engine* Site::c_engine() {
  if (c_engine_ != nullptr) {
    return c_engine_;
  }
  const budget_engine_options options = {
      .config_path = config_path_.c_str(),
      .state_path = nullptr,
      .half_life_seconds = kHalfLife,
      .use_utc = 0,
      .log = nullptr,
  };
  budget_error err;
  const TimeZone zone = TimeZone::Local();
  if (budget_engine_open(&options, MonthStart(zone, 1) - kDay, &c_engine_, &err) != BUDGET_OK) {
    Die(err.text);
  }
  const PriorityWeights w = SiteWeights();
  const budget_weights weights = {
      .age = w.age,
      .assoc = w.assoc,
      .fairshare = w.fairshare,
      .jobsize = w.jobsize,
      .partition = w.partition,
      .qos = w.qos,
      .max_age_seconds = w.max_age_seconds,
      .favor_small = 0,
      .small_relative_to_time = 0,
      .tres_count = kTresCount,
      .tres = w.tres.data(),
  };
  if (budget_engine_set_weights(c_engine_, &weights, &err) != BUDGET_OK ||
      budget_priority_weights_new(&weights, &c_weights_, &err) != BUDGET_OK) {
    Die(err.text);
  }
  Replay(
      usage_,
      [&](const Sample& s) {
        const budget_usage_sample sample = {
            .account = s.account.c_str(),
            .user = s.user.c_str(),
            .partition = s.partition.c_str(),
            .nodes = static_cast<std::uint32_t>(s.nodes),
            .from = s.from,
            .to = s.to,
        };
        if (budget_engine_accrue(c_engine_, &sample, &err) != BUDGET_OK) {
          Die(err.text);
        }
      },
      [&](UnixTime t) {
        if (budget_engine_advance(c_engine_, t, &err) != BUDGET_OK) {
          Die(err.text);
        }
      });
  return c_engine_;
}

const std::string& Site::user(int project, int user) const {
  return users_[static_cast<std::size_t>(project) * static_cast<std::size_t>(spec_.users) +
                static_cast<std::size_t>(user)];
}

std::vector<PendingJob> MakePendingJobs(const Site& site, std::size_t count) {
  std::mt19937_64 random(42);
  std::uniform_int_distribution<int> project(0, site.spec().projects - 1);
  std::uniform_int_distribution<int> percent(0, 99);
  std::uniform_int_distribution<std::uint32_t> nodes(1, 4);
  std::uniform_int_distribution<UnixTime> waited(0, 40 * kDay);
  const UnixTime now = BenchNow();
  std::vector<PendingJob> jobs(count);
  for (PendingJob& job : jobs) {
    job.project = project(random);
    const int p = percent(random);
    job.partition = p < 80 ? 0 : p < 90 ? 2 : p < 95 ? 1 : 3;
    JobPriorityInputs& in = job.inputs;
    in.now = now;
    in.accrue_time = now - waited(random);
    in.qos_norm = percent(random) < 10 ? 1.0 : 0.5;
    in.partition_norm = job.partition == 2 ? 0.1 : 1.0;
    in.min_nodes = nodes(random);
    in.cpus = in.min_nodes * 288;
    in.cluster_nodes = 4;
    in.cluster_cpus = 4 * 288;
    in.time_limit_minutes = 1440;
    job.tres_fraction[kGpuTresIndex] = static_cast<double>(in.min_nodes) / 4.0;
  }
  return jobs;
}

}  // namespace budget::bench
