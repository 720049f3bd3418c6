// A synthetic site for the benchmarks: M projects with U users, a year of usage, pending jobs.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "budget/budget.h"
#include "budget/engine.hpp"
#include "budget/ledger.hpp"

namespace budget::bench {

// The site's slurm.conf weights, as the local test cluster sets them
// (tests/integration/lib/cluster.sh): QOS 1e8, fair-share 1e7, age 2e6 over
// 30 days, partition 1000, TRES gres/gpu 1000 among kTresCount TRES.
inline constexpr std::uint32_t kTresCount = 10;
inline constexpr std::uint32_t kGpuTresIndex = 8;
PriorityWeights SiteWeights();

// The instant every benchmark runs at: 15 May 2026, 12:00 local time (month 5
// of the projects that started on 1 January).
UnixTime BenchNow();

// One usage sample, as the plugin passes it to Engine::Accrue.
struct Sample {
  int project = 0;
  std::string account;
  std::string user;
  std::string partition;
  std::int64_t nodes = 0;
  UnixTime from = 0;
  UnixTime to = 0;
};

// The site: `projects` projects (a mix of small and large, active, ahead,
// behind, used up, blocked and preparatory), each with `users` users and
// usage in every month up to now. Account names are 14 characters
// ("s00042-physics"), user names 8 ("u0004201"): typical of real sites, and
// both within std::string's inline buffer (15 characters): no copy of a name
// takes a heap block of its own.
struct SiteSpec {
  int projects = 500;
  int users = 4;
};

class Site {
 public:
  // Writes budget.conf to a temporary file, opens an Engine on it (no state
  // file, PriorityDecayHalfLife 7 days, local time), accrues the usage and
  // advances to BenchNow() (months 1..4 closed). Exits on any error: a
  // benchmark without its site means nothing.
  explicit Site(SiteSpec spec);
  ~Site();
  Site(const Site&) = delete;
  Site& operator=(const Site&) = delete;

  Engine& engine() { return *engine_; }
  // A new engine of the same site, built the same way (for memory counts).
  std::unique_ptr<Engine> OpenEngine() const;
  // The same site behind the C ABI, as the plugin sees it; opened on first use.
  budget_engine* c_engine();
  // The plugin's own copy of the weights c_engine() has, for
  // budget_job_priority_weighted.
  const budget_priority_weights* c_weights() {
    c_engine();
    return c_weights_;
  }

  const SiteSpec& spec() const { return spec_; }
  const std::string& account(int project) const {
    return accounts_[static_cast<std::size_t>(project)];
  }
  const std::string& user(int project, int user) const;
  // The terms and the ledger as Engine builds them, for Ledger-level benchmarks.
  const std::vector<ProjectTerms>& terms() const { return terms_; }
  const std::vector<Sample>& usage() const { return usage_; }

 private:
  SiteSpec spec_;
  std::string config_path_;
  std::vector<std::string> accounts_;
  std::vector<std::string> users_;  // project-major
  std::vector<ProjectTerms> terms_;
  std::vector<Sample> usage_;
  std::unique_ptr<Engine> engine_;
  budget_engine* c_engine_ = nullptr;
  budget_priority_weights* c_weights_ = nullptr;
};

// The budget.conf text of a site with `projects` projects.
std::string SiteBudgetConf(int projects);
std::string SiteAccount(int project);
std::string SiteUser(int project, int user);

// A pending job as the plugin sees it in a pass.
struct PendingJob {
  int project = 0;
  int partition = 0;         // index into kJobPartitions
  JobPriorityInputs inputs;  // inputs.tres_fraction left empty: see tres_fraction
  std::array<double, kTresCount> tres_fraction{};  // for the span forms (no allocation)
};
// normal and debug are budgeted, low is the low partition, scratch is not in
// budget.conf (fair-share 0).
inline constexpr const char* kJobPartitions[] = {"normal", "debug", "low", "scratch"};

// `count` pending jobs spread over the site's projects (deterministic): 80 %
// normal, 10 % low, 5 % debug, 5 % scratch; 1..4 nodes, waited 0..40 days.
std::vector<PendingJob> MakePendingJobs(const Site& site, std::size_t count);

}  // namespace budget::bench
