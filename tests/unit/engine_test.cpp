// Tests of the engine's lifecycle bookkeeping: state changes logged by Advance with an injected
// clock, Admit answering from the configuration and ledger in force, and robustness (clock
// going back or jumping, file permissions, concurrent callers) (engine.hpp).
#include "budget/engine.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "budget/state_file.hpp"
#include "scoped_tz.hpp"

namespace budget {
namespace {

constexpr std::int64_t kHour = 3600;

UnixTime At(int year, int month, int day, std::int64_t hour = 0, std::int64_t minute = 0,
            std::int64_t second = 0) {
  return TimeZone::Utc().MidnightOf(CivilDate{year, month, day}) + hour * kHour + minute * 60 +
         second;
}

// chem: small, 6,000 GPUh, preparatory until 1 April 2026, last day 30 September.
constexpr std::string_view kConf =
    "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
    "PartitionName=low Role=low GpuhPerNodeHour=4\n"
    "Project=chem Kind=small Credit=6000 Created=2026-03-15 PIs=ana.muster@unibe.ch\n";

class EngineLifecycle : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("budget-engine-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    conf_ = (dir_ / "budget.conf").string();
    Write(conf_, kConf);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static void Write(const std::string& path, std::string_view text) {
    std::ofstream(path, std::ios::trunc) << text;
  }

  std::unique_ptr<Engine> Open(UnixTime now, TimeZone zone = TimeZone::Utc()) {
    EngineOptions options;
    options.config_path = conf_;
    options.zone = std::move(zone);
    options.log = [this](LogLevel level, const std::string& line) {
      if (level == LogLevel::kInfo && line.starts_with("project ")) {
        logged_.push_back(line);
      }
    };
    auto engine = Engine::Open(std::move(options), now);
    EXPECT_TRUE(engine.ok()) << engine.error();
    return engine.ok() ? std::move(engine).value() : nullptr;
  }

  // The single state change of the last Advance, as "from -> to".
  static std::string OnlyChange(const Engine& engine) {
    const std::vector<StateChange> changes = engine.last_state_changes();
    if (changes.size() != 1) {
      return std::to_string(changes.size()) + " changes";
    }
    return std::string(ToString(changes[0].from)) + " -> " + ToString(changes[0].to);
  }

  std::filesystem::path dir_;
  std::string conf_;
  std::vector<std::string> logged_;
};

TEST_F(EngineLifecycle, OpeningRecordsTheStatesWithoutReportingAChange) {
  auto engine = Open(At(2026, 3, 20));
  ASSERT_NE(engine, nullptr);
  EXPECT_TRUE(engine->last_state_changes().empty());
  EXPECT_TRUE(logged_.empty());
}

TEST_F(EngineLifecycle, LogsEveryTransitionAtTheInstantItHappens) {
  auto engine = Open(At(2026, 3, 31, 23, 59, 59));
  ASSERT_NE(engine, nullptr);
  engine->Advance(At(2026, 3, 31, 23, 59, 59));
  EXPECT_TRUE(engine->last_state_changes().empty());

  // preparatory -> active at midnight of the start, with no job in sight.
  engine->Advance(At(2026, 4, 1));
  EXPECT_EQ(OnlyChange(*engine), "preparatory -> active");
  ASSERT_EQ(logged_.size(), 1U);
  EXPECT_EQ(logged_.back(),
            "project chem: preparatory -> active (month 1 of 6, 6,000 GPUh remaining)");

  // active -> low when the remaining credit reaches 0: 5,400,000 node-seconds.
  const UnixTime t = At(2026, 4, 10);
  engine->Accrue("chem", "alice", "normal", 1000, t, t + 5'399);
  engine->Accrue("chem", "alice", "normal", 1000, t + 10'000, t + 10'000 + 1);
  engine->Advance(t + 20'000);
  EXPECT_EQ(OnlyChange(*engine), "active -> low");
  EXPECT_EQ(logged_.back(),
            "project chem: active -> low (credit used up: jobs in the low partition only, 0 of "
            "1,000 GPUh of low allowance used)");
  EXPECT_EQ(engine->Admit(AdmissionRequest{"chem", {"normal"}, 3}, t + 20'000).action,
            AdmissionAction::kRedirect);

  // low -> blocked once the low allowance (1,000 GPUh = 900,000 node-seconds) is used.
  engine->Accrue("chem", "bob", "low", 1000, t + 30'000, t + 30'000 + 899);
  engine->Accrue("chem", "bob", "low", 999, t + 35'000, t + 35'000 + 1);
  engine->Advance(t + 40'000);
  EXPECT_TRUE(engine->last_state_changes().empty());  // 4 GPU-seconds short
  engine->Accrue("chem", "bob", "low", 1, t + 50'000, t + 50'000 + 1);
  engine->Advance(t + 60'000);
  EXPECT_EQ(OnlyChange(*engine), "low -> blocked");
  EXPECT_EQ(engine->Admit(AdmissionRequest{"chem", {"low"}, 0}, t + 60'000).cause,
            AdmissionCause::kLowAllowanceUsed);

  // -> ended at midnight of the end.
  engine->Advance(At(2026, 9, 30, 23, 59, 59));
  EXPECT_TRUE(engine->last_state_changes().empty());
  engine->Advance(At(2026, 10, 1));
  EXPECT_EQ(OnlyChange(*engine), "blocked -> ended");
  EXPECT_EQ(logged_.back(),
            "project chem: blocked -> ended (last day of compute was 2026-09-30: no job may "
            "start)");
  EXPECT_EQ(engine->Admit(AdmissionRequest{"chem", {"low"}, 0}, At(2026, 10, 1)).cause,
            AdmissionCause::kEnded);
  EXPECT_EQ(logged_.size(), 4U);
}

TEST_F(EngineLifecycle, AReloadedConfigurationChangesTheStateAtTheNextAdvance) {
  auto engine = Open(At(2026, 5, 10));
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->Admit(AdmissionRequest{"chem", {"normal"}, 0}, At(2026, 5, 10)).action,
            AdmissionAction::kAllow);
  // The admins move the project back by six months: it has ended.
  Write(conf_,
        "NodeHourPrice=2025:2.50,2026:2.69\n"
        "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
        "PartitionName=low Role=low GpuhPerNodeHour=4\n"
        "Project=chem Kind=small Credit=6000 Created=2025-09-15 PIs=ana.muster@unibe.ch\n");
  ASSERT_TRUE(engine->Reload(conf_).ok());
  EXPECT_EQ(engine->Admit(AdmissionRequest{"chem", {"normal"}, 0}, At(2026, 5, 10)).cause,
            AdmissionCause::kEnded);
  engine->Advance(At(2026, 5, 10, 0, 1));
  EXPECT_EQ(OnlyChange(*engine), "active -> ended");
}

TEST_F(EngineLifecycle, AdmitTreatsAnAccountWithoutProjectAsUnbudgeted) {
  Write(conf_, std::string("UnbudgetedAccounts=reject\n") + std::string(kConf));
  auto engine = Open(At(2026, 5, 10));
  ASSERT_NE(engine, nullptr);
  const Admission a = engine->Admit(AdmissionRequest{"ops", {"normal"}, 0}, At(2026, 5, 10));
  EXPECT_EQ(a.action, AdmissionAction::kReject);
  EXPECT_EQ(a.cause, AdmissionCause::kUnbudgetedAccount);
}

TEST_F(EngineLifecycle, StateOfFollowsTheLifecycleAndKnowsNoUnbudgetedAccount) {
  auto engine = Open(At(2026, 3, 20));
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->StateOf("chem", At(2026, 3, 20)), ProjectState::kPreparatory);
  EXPECT_EQ(engine->StateOf("chem", At(2026, 4, 1)), ProjectState::kActive);
  EXPECT_EQ(engine->StateOf("chem", At(2026, 10, 1)), ProjectState::kEnded);
  EXPECT_EQ(engine->StateOf("ops", At(2026, 4, 1)), std::nullopt);
  // The whole credit (6,000 GPUh = 5,400,000 node-seconds at 4 GPUh a node-hour).
  engine->Accrue("chem", "alice", "normal", 1000, At(2026, 4, 2), At(2026, 4, 2) + 5'400);
  EXPECT_EQ(engine->StateOf("chem", At(2026, 4, 3)), ProjectState::kLow);
}

TEST_F(EngineLifecycle, ProjectsWithoutAccountAreThoseSlurmLacksUntilTheyEnd) {
  Write(conf_,
        std::string(kConf) +
            "Project=phys Kind=large Credit=120000 Start=2026-01-01 PIs=a@uni.ch StorageTB=1 "
            "StorageInodes=1000\n");
  auto engine = Open(At(2026, 3, 20));
  ASSERT_NE(engine, nullptr);
  const std::vector<std::string_view> slurm = {"root", "phys", "ops"};
  using Names = std::vector<std::string>;
  // chem is preparatory until 1 April: its users may already run, at low priority.
  EXPECT_EQ(engine->ProjectsWithoutAccount(slurm, At(2026, 3, 20)), Names{"chem"});
  EXPECT_EQ(engine->ProjectsWithoutAccount({}, At(2026, 3, 20)), (Names{"chem", "phys"}));
  // Its six months end on 1 October; then only its storage is left.
  EXPECT_EQ(engine->ProjectsWithoutAccount({}, At(2026, 9, 30, 23, 59, 59)),
            (Names{"chem", "phys"}));
  EXPECT_EQ(engine->ProjectsWithoutAccount({}, At(2026, 10, 1)), Names{"phys"});
}

TEST_F(EngineLifecycle, CreateWorksOnAParsedConfigurationWithoutFiles) {
  auto config = ParseBudgetConfig(kConf, "inline.conf");
  ASSERT_TRUE(config.ok()) << config.error();
  EngineOptions options;
  options.config_path = (dir_ / "never-read.conf").string();
  options.state_path = (dir_ / "never-written.state").string();
  options.zone = TimeZone::Utc();
  auto engine = Engine::Create(std::move(config).value(), options, At(2026, 4, 1));
  engine->Accrue("chem", "alice", "normal", 1, At(2026, 4, 1), At(2026, 4, 1) + 3600);
  EXPECT_EQ(engine->ledger().Find("chem")->total.Budgeted(1), 4 * 3600);
  EXPECT_TRUE(engine->Save(At(2026, 4, 2)).ok());
  EXPECT_FALSE(std::filesystem::exists(options.state_path));
  // April closed at the 1st of May: the active project of 6,000 GPUh, 1,000 a
  // month, used 4 GPUh of its expected 1,000 and kept its grace.
  const std::vector<ClosedMonth> closed = engine->Advance(At(2026, 5, 1));
  ASSERT_EQ(closed.size(), 1U);
  EXPECT_EQ(closed[0].month, 1);
}

TEST_F(EngineLifecycle, CreateStartsFromTheLedgerItIsGiven) {
  auto config = ParseBudgetConfig(kConf, "inline.conf");
  ASSERT_TRUE(config.ok()) << config.error();
  EngineOptions options;
  options.zone = TimeZone::Utc();
  auto first = Engine::Create(config.value(), options, At(2026, 4, 1));
  first->Accrue("chem", "alice", "normal", 2, At(2026, 4, 1), At(2026, 4, 1) + 3600);
  auto second = Engine::Create(std::move(config).value(), options, At(2026, 4, 2), first->ledger());
  // The same charges; only the instant usage was last decayed to moved on.
  EXPECT_EQ(second->ledger().Find("chem")->users, first->ledger().Find("chem")->users);
  EXPECT_EQ(second->Project("chem", At(2026, 4, 2))->status.used_this_month, 8 * 3600);
}

// The views and factors a pass reuses (engine.hpp: one computation per
// project per `now`) never outlive a change of the ledger or the projects.
using EngineCache = EngineLifecycle;

constexpr std::string_view kTwoProjects =
    "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
    "PartitionName=low Role=low GpuhPerNodeHour=4\n"
    "Project=chem Kind=small Credit=6000 Created=2026-03-15 PIs=ana.muster@unibe.ch\n"
    "Project=phys Kind=small Credit=6000 Created=2026-03-15 PIs=ben.muster@unibe.ch\n";

// kTwoProjects without chem: a reload that removes a project.
constexpr std::string_view kPhysOnly =
    "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
    "PartitionName=low Role=low GpuhPerNodeHour=4\n"
    "Project=phys Kind=small Credit=6000 Created=2026-03-15 PIs=ben.muster@unibe.ch\n";

PriorityWeights FairShareOnly() {
  PriorityWeights w;
  w.fairshare = 10'000'000;
  return w;
}

double FairShareColumn(Engine& engine, std::string_view account, std::string_view partition,
                       UnixTime now) {
  JobPriorityInputs in;
  in.now = now;
  return engine.Priority(account, partition, in).fairshare;
}

TEST_F(EngineCache, UsageAccruedAtTheSameInstantIsSeenAtOnce) {
  const UnixTime now = At(2026, 4, 15);
  auto engine = Open(now);
  ASSERT_NE(engine, nullptr);
  engine->SetWeights(FairShareOnly());
  const double before = engine->Project("chem", now)->fair_share.factor;
  EXPECT_EQ(FairShareColumn(*engine, "chem", "normal", now),
            std::round(before * 10'000'000 / kPriorityQuantum) * kPriorityQuantum);
  const double low_before = FairShareColumn(*engine, "chem", "low", now);

  engine->Accrue("chem", "alice", "normal", 10, now - 7200, now);  // 80 GPUh
  engine->Accrue("chem", "alice", "low", 10, now - 7200, now);
  const double after = engine->Project("chem", now)->fair_share.factor;
  EXPECT_LT(after, before);
  EXPECT_LT(FairShareColumn(*engine, "chem", "normal", now),
            before * 10'000'000 - kPriorityQuantum);
  EXPECT_LT(FairShareColumn(*engine, "chem", "low", now), low_before);
}

// An accrual that bills nothing creates no ledger record: the engine must
// keep the summary of a project that has none as it was.
TEST_F(EngineCache, AnAccrualBillingNothingLeavesAProjectWithoutUsageAsItWas) {
  const UnixTime now = At(2026, 4, 15);
  auto engine = Open(now);
  ASSERT_NE(engine, nullptr);
  const ProjectView before = *engine->Project("chem", now);  // its summary read
  engine->Accrue("chem", "alice", "normal", 0, now - 7200, now);
  engine->Accrue("chem", "alice", "normal", 4, now, now);
  engine->Accrue("chem", "alice", "normal", 4, now, now - 60);
  EXPECT_EQ(engine->ledger().Find("chem"), nullptr);
  const ProjectView after = *engine->Project("chem", now + 1);
  EXPECT_EQ(after.status.remaining, before.status.remaining);
  EXPECT_EQ(after.status.state, ProjectState::kActive);
  engine->Accrue("chem", "alice", "normal", 4, now, now + 3600);  // 16 GPUh
  EXPECT_EQ(engine->Project("chem", now + 3600)->status.used_this_month, GpuHours(16));
}

TEST_F(EngineCache, EachProjectKeepsItsOwnViewWhenAskedInTurn) {
  Write(conf_, kTwoProjects);
  const UnixTime now = At(2026, 4, 15);
  auto engine = Open(now);
  ASSERT_NE(engine, nullptr);
  engine->SetWeights(FairShareOnly());
  engine->Accrue("phys", "bob", "normal", 100, now - 36'000, now);  // 4,000 GPUh: ahead
  engine->Advance(now);
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(engine->Project("chem", now)->fair_share.band, FairShareBand::kBehind);
    EXPECT_EQ(engine->Project("phys", now)->fair_share.band, FairShareBand::kAhead);
  }
  EXPECT_FALSE(engine->Project("nobody", now).has_value());
  EXPECT_GT(FairShareColumn(*engine, "chem", "normal", now),
            FairShareColumn(*engine, "phys", "normal", now));
  EXPECT_EQ(FairShareColumn(*engine, "nobody", "normal", now), 0.0);
  EXPECT_EQ(FairShareColumn(*engine, "chem", "scratch", now), 0.0);  // not in budget.conf
}

TEST_F(EngineCache, AReloadReplacesTheViewsOfTheSameInstant) {
  const UnixTime now = At(2026, 5, 10);
  auto engine = Open(now);
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->Project("chem", now)->status.state, ProjectState::kActive);
  Write(conf_, kTwoProjects);
  ASSERT_TRUE(engine->Reload(conf_).ok());
  EXPECT_TRUE(engine->Project("phys", now).has_value());
  Write(conf_, kPhysOnly);
  ASSERT_TRUE(engine->Reload(conf_).ok());
  EXPECT_FALSE(engine->Project("chem", now).has_value());
  EXPECT_EQ(engine->Project("phys", now)->status.state, ProjectState::kActive);
}

// UserUsage finds a project of budget.conf through the engine's own index and
// record cache; the usage of an account a reload removed stays in the ledger.
TEST_F(EngineCache, UserUsageFollowsNewUsersAndReloads) {
  Write(conf_, kTwoProjects);
  const UnixTime now = At(2026, 4, 15);
  auto engine = Open(now);
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->UserUsage("chem", "alice"), std::nullopt);  // no record yet
  engine->Accrue("chem", "alice", "normal", 1, now - 3600, now);
  const double alice = engine->UserUsage("chem", "alice").value_or(0.0);
  EXPECT_EQ(alice, 4.0 * 3600);
  EXPECT_EQ(engine->UserUsage("chem", "carol"), std::nullopt);
  engine->Accrue("chem", "carol", "normal", 2, now - 3600, now);  // a user after the lookup
  EXPECT_EQ(engine->UserUsage("chem", "carol"), 8.0 * 3600);

  Write(conf_, kPhysOnly);
  ASSERT_TRUE(engine->Reload(conf_).ok());
  EXPECT_EQ(engine->UserUsage("chem", "alice"), alice);  // no longer a project: the ledger's
  Write(conf_, kTwoProjects);
  ASSERT_TRUE(engine->Reload(conf_).ok());
  EXPECT_EQ(engine->UserUsage("chem", "alice"), alice);
  EXPECT_EQ(engine->UserUsage("phys", "alice"), std::nullopt);
}

// A view reads the local date, never the instant: the factors computed at one
// instant serve the whole date, and the first question on the next date, with
// no pass in between, gets that date's answer.
TEST_F(EngineCache, TheFirstQuestionOfADateGetsItsAnswerWithoutAPass) {
  auto engine = Open(At(2026, 3, 31, 12));
  ASSERT_NE(engine, nullptr);
  engine->SetWeights(FairShareOnly());
  const double preparatory = FairShareColumn(*engine, "chem", "normal", At(2026, 3, 31, 12));
  EXPECT_EQ(FairShareColumn(*engine, "chem", "normal", At(2026, 3, 31, 23, 59, 59)), preparatory);
  EXPECT_EQ(engine->StateOf("chem", At(2026, 3, 31, 23, 59, 59)), ProjectState::kPreparatory);

  EXPECT_EQ(engine->StateOf("chem", At(2026, 4, 1)), ProjectState::kActive);
  const double active = FairShareColumn(*engine, "chem", "normal", At(2026, 4, 1));
  EXPECT_GT(active, preparatory);
  auto fresh = Open(At(2026, 4, 1));
  ASSERT_NE(fresh, nullptr);
  fresh->SetWeights(FairShareOnly());
  EXPECT_EQ(active, FairShareColumn(*fresh, "chem", "normal", At(2026, 4, 1)));

  EXPECT_EQ(engine->Project("chem", At(2026, 9, 30, 23, 59, 59))->status.month, 6);
  EXPECT_EQ(engine->StateOf("chem", At(2026, 10, 1)), ProjectState::kEnded);
  EXPECT_EQ(FairShareColumn(*engine, "chem", "normal", At(2026, 10, 1)), 0.0);
}

// Where DST falls back across midnight, a date comes back after the next one
// has begun: the answer follows the date, not the instants the first date's
// midnights bound. TZ set for this test only (ScopedTz): DST (UTC-2) ends at 00:30 on
// 1 June 2026, back to 23:30 of 31 May (UTC-3).
TEST_F(EngineCache, ADateThatComesBackGetsItsOwnAnswer) {
  const ScopedTz tz("AAA3BBB,M3.2.0,M6.1.1/0:30");
  const TimeZone zone = TimeZone::Local();
  const UnixTime june = At(2026, 6, 1, 2, 15);  // 00:15 on 1 June, DST
  const UnixTime may = At(2026, 6, 1, 2, 45);   // 23:45 on 31 May, after it
  ASSERT_EQ(zone.DateAt(june), (CivilDate{2026, 6, 1}));
  ASSERT_EQ(zone.DateAt(may), (CivilDate{2026, 5, 31}));
  auto engine = Open(june, zone);
  ASSERT_NE(engine, nullptr);
  const std::optional<ProjectView> in_june = engine->Project("chem", june);
  const std::optional<ProjectView> in_may = engine->Project("chem", may);
  ASSERT_TRUE(in_june.has_value() && in_may.has_value());
  EXPECT_EQ(in_june->status.month, 3);  // chem's months: April, May, June
  EXPECT_EQ(in_may->status.month, 2);
}

// Slurm reconfigures at every start and every `scontrol reconfigure`: the
// same budget.conf is not installed again, so the views, factors and usage
// summaries cached for it stay; a changed one replaces them.
TEST_F(EngineCache, AReloadOfTheSameBudgetsKeepsTheInstalledOnes) {
  const UnixTime now = At(2026, 5, 10);
  auto engine = Open(now);
  ASSERT_NE(engine, nullptr);
  const std::shared_ptr<const BudgetConfig> installed = engine->config();
  const GpuSeconds remaining = engine->Project("chem", now)->status.remaining;
  ASSERT_TRUE(engine->Reload(conf_).ok());
  EXPECT_EQ(engine->config(), installed);
  EXPECT_EQ(engine->Project("chem", now)->status.remaining, remaining);

  std::string more(kConf);
  more.replace(more.find("Credit=6000"), 11, "Credit=6600");
  Write(conf_, more);
  ASSERT_TRUE(engine->Reload(conf_).ok());
  EXPECT_NE(engine->config(), installed);
  EXPECT_EQ(engine->config()->projects.at(0).credit, GpuHours(6600));
  EXPECT_NE(engine->Project("chem", now)->status.remaining, remaining);
}

// A submission between two passes ranks on the pass's factors while the
// engine's generation is theirs: every change their view reads (a charge,
// budget.conf, the date, a pass's decay) starts a new one, and nothing else
// does.
TEST_F(EngineCache, TheSteadyGenerationIsTheRankingsUntilSomethingItReadsChanges) {
  Write(conf_, kTwoProjects);
  const UnixTime now = At(2026, 4, 15, 10);
  auto engine = Open(now);
  ASSERT_NE(engine, nullptr);
  const ProjectRanking first = *engine->RankingOf("chem", now);
  ASSERT_NE(first.generation, 0U);
  EXPECT_EQ(engine->SteadyGeneration(now), first.generation);
  EXPECT_EQ(engine->SteadyGeneration(At(2026, 4, 15)), first.generation);  // same date
  EXPECT_EQ(engine->SteadyGeneration(At(2026, 4, 15, 23, 59, 59)), first.generation);
  EXPECT_EQ(engine->SteadyGeneration(At(2026, 4, 16)), 0U);  // the next date: ask by name
  EXPECT_EQ(engine->SteadyGeneration(At(2026, 4, 14, 23, 59, 59)), 0U);
  EXPECT_EQ(engine->RankingOf("phys", now)->generation, first.generation);

  engine->Accrue("chem", "ana", "scratch", 4, now - 3600, now);  // not billed: no change
  EXPECT_EQ(engine->SteadyGeneration(now), first.generation);
  ASSERT_TRUE(engine->Reload(conf_).ok());  // the same budgets
  EXPECT_EQ(engine->SteadyGeneration(now), first.generation);

  engine->Accrue("chem", "ana", "normal", 4, now - 3600, now);
  const std::uint64_t charged = engine->SteadyGeneration(now);
  EXPECT_NE(charged, first.generation);
  EXPECT_NE(charged, 0U);
  const ProjectRanking after_charge = *engine->RankingOf("chem", now);
  EXPECT_EQ(after_charge.generation, charged);
  EXPECT_LT(after_charge.budgeted, first.budgeted);

  engine->Advance(now + 60);
  EXPECT_NE(engine->SteadyGeneration(now + 60), charged);

  std::string more(kTwoProjects);
  more.replace(more.find("Credit=6000"), 11, "Credit=6600");
  Write(conf_, more);
  const std::uint64_t before_reload = engine->SteadyGeneration(now);
  ASSERT_TRUE(engine->Reload(conf_).ok());
  EXPECT_NE(engine->SteadyGeneration(now), before_reload);

  const UnixTime tomorrow = At(2026, 4, 16, 1);
  const ProjectRanking next_day = *engine->RankingOf("chem", tomorrow);
  EXPECT_EQ(engine->SteadyGeneration(tomorrow), next_day.generation);
  EXPECT_EQ(engine->SteadyGeneration(now), 0U);  // today is tomorrow's yesterday
}

// On a day the clock changes, its instants are no one range between two
// midnights: the engine then has no steady generation, and a submission asks
// by name. Where DST falls back across midnight a date comes back after the
// next one began; an instant of it never gets the next date's generation.
TEST_F(EngineCache, ADayWithAClockChangeHasNoSteadyGeneration) {
  const ScopedTz tz("AAA3BBB,M3.2.0,M6.1.1/0:30");  // back to 23:30 on 31 May at 00:30
  const TimeZone zone = TimeZone::Local();
  const UnixTime june_first = At(2026, 6, 1, 12);
  const UnixTime may_again = At(2026, 6, 1, 2, 45);  // 23:45 on 31 May, after it
  const UnixTime june_second = At(2026, 6, 2, 12);
  const UnixTime march_eighth = At(2026, 3, 8, 12);  // DST begins at 02:00: 23 hours
  ASSERT_EQ(zone.DateAt(june_first), (CivilDate{2026, 6, 1}));
  ASSERT_EQ(zone.DateAt(may_again), (CivilDate{2026, 5, 31}));
  auto engine = Open(june_first, zone);
  ASSERT_NE(engine, nullptr);
  const std::uint64_t june = engine->RankingOf("chem", june_first)->generation;
  EXPECT_EQ(engine->SteadyGeneration(may_again), 0U);
  const std::uint64_t at_noon = engine->SteadyGeneration(june_first);
  EXPECT_TRUE(at_noon == 0 || at_noon == june) << at_noon;  // mktime picks 1 June's midnight

  const std::uint64_t generation = engine->RankingOf("chem", june_second)->generation;
  EXPECT_NE(generation, 0U);
  EXPECT_EQ(engine->SteadyGeneration(june_second), generation);

  ASSERT_TRUE(engine->RankingOf("chem", march_eighth).has_value());
  EXPECT_EQ(engine->SteadyGeneration(march_eighth), 0U);
  EXPECT_EQ(engine->SteadyGeneration(march_eighth + 3 * kHour), 0U);
}

// SteadyGeneration takes no lock: read while another thread charges and
// moves the date, it answers 0 or a generation whose date holds `now`,
// never one of the other date.
TEST_F(EngineCache, TheSteadyGenerationIsReadWhileTheEngineChanges) {
  Write(conf_, kTwoProjects);
  const UnixTime day1 = At(2026, 4, 15, 10);
  const UnixTime day2 = At(2026, 4, 16, 10);
  auto engine = Open(day1);
  ASSERT_NE(engine, nullptr);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < 20'000; ++i) {
      const UnixTime now = i % 2 == 0 ? day1 : day2;
      engine->Accrue("chem", "ana", "normal", 1, now - 1, now);
      (void)engine->RankingOf("phys", now);
    }
    done = true;
  });
  while (!done) {
    const std::uint64_t generation = engine->SteadyGeneration(day1);
    EXPECT_EQ(generation % 2, 0U);  // never one caught while the date changes
    if (generation != 0) {
      EXPECT_NE(engine->SteadyGeneration(day2), generation);  // day 1's is not day 2's
    }
  }
  writer.join();
  EXPECT_NE(engine->SteadyGeneration(day2), 0U);  // the writer's last date
}

TEST_F(EngineCache, BothPriorityFormsAgree) {
  Write(conf_, kTwoProjects);
  const UnixTime now = At(2026, 4, 15);
  auto engine = Open(now);
  ASSERT_NE(engine, nullptr);
  PriorityWeights w = FairShareOnly();
  w.qos = 1000;
  w.tres = {0.0, 250.0, 0.0};
  engine->SetWeights(w);
  engine->Accrue("phys", "bob", "low", 3, now - 3600, now);
  for (const char* account : {"chem", "phys", "nobody"}) {
    for (const char* partition : {"normal", "low", "scratch"}) {
      JobPriorityInputs in;
      in.now = now;
      in.qos_norm = 0.5;
      in.tres_fraction = {1.0, 0.75, 1.0};
      const JobPriority want = engine->Priority(account, partition, in);
      const std::vector<double> fractions = in.tres_fraction;
      in.tres_fraction.clear();
      std::vector<double> tres(4, -1.0);
      const JobPriority got = engine->Priority(account, partition, in, fractions, tres);
      EXPECT_EQ(got.priority, want.priority) << account << " " << partition;
      EXPECT_EQ(got.fairshare, want.fairshare) << account << " " << partition;
      EXPECT_EQ(tres, (std::vector<double>{0.0, 187.5, 0.0, 0.0}));
    }
  }
}

// A pass resolves each project once (RankingOf) and ranks its jobs from that:
// the same priority as the by-name form, in every kind of partition and state.
TEST_F(EngineCache, RankingOfGivesTheFactorsPriorityUses) {
  Write(conf_, kTwoProjects);
  const UnixTime now = At(2026, 4, 15);
  auto engine = Open(now);
  ASSERT_NE(engine, nullptr);
  PriorityWeights w = FairShareOnly();
  w.tres = {0.0, 250.0};
  engine->SetWeights(w);
  engine->Accrue("phys", "bob", "low", 3, now - 3600, now);
  engine->Accrue("chem", "ana", "normal", 1000, now - 5'400, now);  // the whole credit: low
  EXPECT_EQ(engine->RankingOf("nobody", now), std::nullopt);
  for (const char* account : {"chem", "phys"}) {
    const std::optional<ProjectRanking> ranking = engine->RankingOf(account, now);
    ASSERT_TRUE(ranking.has_value()) << account;
    EXPECT_EQ(ranking->state, engine->StateOf(account, now)) << account;
    EXPECT_EQ(ranking->budgeted, engine->Project(account, now)->fair_share.factor) << account;
    for (const char* partition : {"normal", "low", "scratch"}) {
      const PartitionKind kind = engine->KindOfPartition(partition);
      JobPriorityInputs in;
      in.now = now;
      in.fair_share = kind == PartitionKind::kBudgeted ? ranking->budgeted
                      : kind == PartitionKind::kLow    ? ranking->low
                                                       : 0.0;
      const std::vector<double> fractions = {1.0, 0.5};
      std::vector<double> want_tres(2), got_tres(2);
      const JobPriority want = engine->Priority(account, partition, in, fractions, want_tres);
      const JobPriority got = ComputeJobPriority(w, in, fractions, got_tres);
      EXPECT_EQ(got.priority, want.priority) << account << " " << partition;
      EXPECT_EQ(got.fairshare, want.fairshare) << account << " " << partition;
      EXPECT_EQ(got_tres, want_tres) << account << " " << partition;
    }
  }
  EXPECT_EQ(engine->RankingOf("chem", now)->state, ProjectState::kLow);
  EXPECT_GT(engine->RankingOf("chem", now)->low, 0.0);
}

// One lookup a row of Slurm's association table gives what three did: the
// project's view, its ranking and the user's usage; and a charge made at the
// same instant after the views were computed (by Advance) is seen at once.
TEST_F(EngineCache, AssociationIsTheViewTheRankingAndTheUsersUsage) {
  Write(conf_, kTwoProjects);
  const UnixTime now = At(2026, 4, 15);
  auto engine = Open(now);
  ASSERT_NE(engine, nullptr);
  engine->Accrue("phys", "bob", "normal", 100, now - 36'000, now);  // 4,000 GPUh: ahead
  engine->Accrue("chem", "ana", "low", 2, now - 3600, now);
  engine->Advance(now);
  EXPECT_EQ(engine->Association("nobody", "ana", now), std::nullopt);
  for (const char* account : {"chem", "phys"}) {
    for (const char* user : {"", "ana", "bob", "never-charged"}) {
      const std::optional<AssociationView> row = engine->Association(account, user, now);
      ASSERT_TRUE(row.has_value()) << account;
      const ProjectView view = *engine->Project(account, now);
      const ProjectRanking ranking = *engine->RankingOf(account, now);
      EXPECT_EQ(row->project.status.state, view.status.state) << account;
      EXPECT_EQ(row->project.status.decayed_usage, view.status.decayed_usage) << account;
      EXPECT_EQ(row->project.fair_share.factor, view.fair_share.factor) << account;
      EXPECT_EQ(row->project.fair_share.usage_ratio, view.fair_share.usage_ratio) << account;
      EXPECT_EQ(row->project.shares_gpu_hours, view.shares_gpu_hours) << account;
      EXPECT_EQ(row->ranking.state, ranking.state) << account;
      EXPECT_EQ(row->ranking.budgeted, ranking.budgeted) << account;
      EXPECT_EQ(row->ranking.low, ranking.low) << account;
      EXPECT_EQ(row->user_usage, engine->UserUsage(account, user).value_or(0.0))
          << account << " " << user;
    }
  }
  EXPECT_GT(engine->Association("phys", "bob", now)->user_usage, 0.0);
  EXPECT_EQ(engine->Association("phys", "ana", now)->user_usage, 0.0);

  const AssociationView before = *engine->Association("chem", "ana", now);
  engine->Accrue("chem", "ana", "normal", 10, now - 7200, now);  // 80 GPUh, same instant
  const AssociationView after = *engine->Association("chem", "ana", now);
  EXPECT_GT(after.project.status.decayed_usage, before.project.status.decayed_usage);
  EXPECT_GT(after.user_usage, before.user_usage);
  EXPECT_LT(after.ranking.budgeted, before.ranking.budgeted);
  EXPECT_EQ(after.project.fair_share.factor, after.ranking.budgeted);
}

// Associations answers every key as Association() does, whatever the order
// of the keys: users in name order (one step each), out of order, repeated,
// never charged, an account's rows split apart, accounts without a budget.
TEST_F(EngineCache, AssociationsAnswerEachKeyAsAssociationDoes) {
  Write(conf_, kTwoProjects);
  const UnixTime now = At(2026, 4, 15);
  auto engine = Open(now);
  ASSERT_NE(engine, nullptr);
  for (const char* user : {"dan", "ana", "cleo", "bob"}) {  // charged out of name order
    engine->Accrue("chem", user, "normal", 1 + user[0] - 'a', now - 3600, now);
  }
  engine->Accrue("phys", "bob", "normal", 100, now - 36'000, now);
  engine->Advance(now);
  const std::vector<AssociationKey> keys = {
      {"chem", ""},    {"chem", "ana"},  {"chem", "bob"},   {"chem", "cleo"}, {"chem", "dan"},
      {"phys", ""},    {"phys", "bob"},  {"phys", "ana"},   {"nobody", ""},   {"nobody", "bob"},
      {"chem", "dan"}, {"chem", "bob"},  {"chem", "bob"},   {"chem", "eve"},  {"chem", "ana"},
      {"", ""},        {"chem", "cleo"}, {"chem", "aaron"}, {"chem", "cleo"}, {"chem", "dan"},
  };
  std::vector<std::optional<AssociationView>> rows(keys.size());
  std::vector<std::size_t> order;
  engine->Associations(keys, now, [&](std::size_t i, const AssociationRow& row) {
    order.push_back(i);
    if (row.project != nullptr) {
      rows[i] = AssociationView{*row.project, row.ranking, row.user_usage};
    }
  });
  ASSERT_EQ(order.size(), keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string who = std::string(keys[i].account) + " " + std::string(keys[i].user);
    EXPECT_EQ(order[i], i);
    const std::optional<AssociationView> one =
        engine->Association(keys[i].account, keys[i].user, now);
    ASSERT_EQ(rows[i].has_value(), one.has_value()) << who;
    if (!one) {
      continue;
    }
    EXPECT_EQ(rows[i]->project.status.state, one->project.status.state) << who;
    EXPECT_EQ(rows[i]->project.status.decayed_usage, one->project.status.decayed_usage) << who;
    EXPECT_EQ(rows[i]->project.fair_share.factor, one->project.fair_share.factor) << who;
    EXPECT_EQ(rows[i]->ranking.budgeted, one->ranking.budgeted) << who;
    EXPECT_EQ(rows[i]->ranking.low, one->ranking.low) << who;
    EXPECT_EQ(rows[i]->user_usage, engine->UserUsage(keys[i].account, keys[i].user).value_or(0.0))
        << who;
  }
  // Each charged user's own usage: 1, 2, 3, 4 nodes for an hour at 4 GPUh a node-hour.
  EXPECT_EQ(rows[1]->user_usage, GpuHours(4));
  EXPECT_EQ(rows[4]->user_usage, GpuHours(16));
  EXPECT_EQ(rows[14]->user_usage, GpuHours(4));
  EXPECT_EQ(rows[13]->user_usage, 0.0);  // eve: never charged
  EXPECT_EQ(rows[17]->user_usage, 0.0);  // aaron: before every name
  EXPECT_FALSE(rows[8].has_value());     // nobody: no budget
  EXPECT_FALSE(rows[15].has_value());    // no account

  int calls = 0;
  engine->Associations({}, now, [&calls](std::size_t, const AssociationRow&) { ++calls; });
  EXPECT_EQ(calls, 0);
}

// --- Robustness: the clock, file permissions and threads --------------------------------

class EngineRobustness : public EngineLifecycle {
 protected:
  std::unique_ptr<Engine> OpenWithLedger(UnixTime now, std::vector<std::string>* errors = nullptr) {
    EngineOptions options;
    options.config_path = conf_;
    options.state_path = (dir_ / "ledger").string();
    options.zone = TimeZone::Utc();
    options.half_life_seconds = 7 * 24 * kHour;
    options.log = [errors](LogLevel level, const std::string& line) {
      if (errors != nullptr && level == LogLevel::kError) {
        errors->push_back(line);
      }
    };
    auto engine = Engine::Open(std::move(options), now);
    if (!engine.ok()) {
      last_error_ = engine.error();
      return nullptr;
    }
    return std::move(engine).value();
  }

  static GpuSeconds Charged(const Engine& engine, std::string_view account) {
    const Ledger ledger = engine.ledger();
    const ProjectUsage* project = ledger.Find(account);
    return project == nullptr ? 0 : project->total.Total();
  }

  std::string last_error_;
};

TEST_F(EngineRobustness, AClockGoingBackChargesNothingAndReopensNoMonth) {
  auto engine = OpenWithLedger(At(2026, 5, 2));
  ASSERT_NE(engine, nullptr);
  engine->Accrue("chem", "alice", "normal", 2, At(2026, 5, 1), At(2026, 5, 2));  // 192 GPUh
  EXPECT_EQ(Charged(*engine, "chem"), GpuHours(192));
  EXPECT_EQ(engine->ledger().Find("chem")->closed_months, 1);  // April

  // The clock steps back a week, into the closed April: a pass accrues from
  // the last pass's time to the new, earlier `now`, which is an empty span.
  const UnixTime back = At(2026, 4, 25);
  engine->Accrue("chem", "alice", "normal", 2, At(2026, 5, 2), back);
  EXPECT_TRUE(engine->Advance(back).empty());
  EXPECT_EQ(Charged(*engine, "chem"), GpuHours(192));
  EXPECT_EQ(engine->ledger().Find("chem")->closed_months, 1);
  const std::optional<ProjectView> view = engine->Project("chem", back);
  ASSERT_TRUE(view.has_value());
  EXPECT_GE(view->status.used_this_month, 0);
  EXPECT_GE(view->status.decayed_usage, 0.0);

  // Back at the right time, April is not closed a second time.
  EXPECT_TRUE(engine->Advance(At(2026, 5, 3)).empty());
  EXPECT_EQ(engine->ledger().Find("chem")->closed_months, 1);
}

TEST_F(EngineRobustness, AJumpOfSeveralMonthsClosesEachMonthOnce) {
  auto engine = OpenWithLedger(At(2026, 4, 10));
  ASSERT_NE(engine, nullptr);
  engine->Accrue("chem", "alice", "normal", 1, At(2026, 4, 10), At(2026, 4, 11));  // 96 GPUh
  const std::vector<ClosedMonth> closed = engine->Advance(At(2026, 7, 20));        // + 101 days
  ASSERT_EQ(closed.size(), 3U);
  for (std::size_t i = 0; i < closed.size(); ++i) {
    EXPECT_EQ(closed[i].month, static_cast<int>(i) + 1);
  }
  EXPECT_EQ(closed[0].row.used, GpuHours(96));
  EXPECT_EQ(closed[1].row.used, 0);
  EXPECT_TRUE(engine->Advance(At(2026, 7, 20)).empty());
  EXPECT_TRUE(engine->Advance(At(2026, 7, 1)).empty());  // and back again
  EXPECT_EQ(engine->ledger().Find("chem")->closed_months, 3);

  // A restart after the jump, with the clock set back before it, keeps the
  // closed months and closes none again.
  ASSERT_TRUE(engine->Save(At(2026, 7, 20)).ok());
  engine.reset();
  auto reopened = OpenWithLedger(At(2026, 5, 15));
  ASSERT_NE(reopened, nullptr) << last_error_;
  EXPECT_EQ(reopened->ledger().Find("chem")->closed_months, 3);
  EXPECT_TRUE(reopened->Advance(At(2026, 7, 21)).empty());
  EXPECT_EQ(Charged(*reopened, "chem"), GpuHours(96));
}

TEST_F(EngineRobustness, RefusesABudgetConfOthersCanWrite) {
  ASSERT_EQ(::chmod(conf_.c_str(), 0664), 0);
  std::vector<std::string> errors;
  EXPECT_EQ(OpenWithLedger(At(2026, 4, 10), &errors), nullptr);
  EXPECT_NE(last_error_.find(conf_), std::string::npos) << last_error_;
  EXPECT_NE(last_error_.find("mode 0664"), std::string::npos) << last_error_;
  ASSERT_EQ(errors.size(), 1U);
  EXPECT_EQ(errors[0], last_error_);

  ASSERT_EQ(::chmod(conf_.c_str(), 0644), 0);
  auto engine = OpenWithLedger(At(2026, 4, 10));
  ASSERT_NE(engine, nullptr) << last_error_;
  Write(conf_, kTwoProjects);
  ASSERT_EQ(::chmod(conf_.c_str(), 0646), 0);
  const Status reloaded = engine->Reload(conf_);
  ASSERT_FALSE(reloaded.ok());
  EXPECT_NE(reloaded.error().find("other users"), std::string::npos) << reloaded.error();
  EXPECT_FALSE(engine->Project("phys", At(2026, 4, 10)).has_value());  // old configuration kept
}

TEST_F(EngineRobustness, RefusesALedgerOthersCanWrite) {
  auto engine = OpenWithLedger(At(2026, 4, 10));
  ASSERT_NE(engine, nullptr);
  ASSERT_TRUE(engine->Save(At(2026, 4, 10)).ok());
  engine.reset();
  const std::string ledger = (dir_ / "ledger").string();
  ASSERT_EQ(::chmod(ledger.c_str(), 0622), 0);
  EXPECT_EQ(OpenWithLedger(At(2026, 4, 11)), nullptr);
  EXPECT_NE(last_error_.find("refusing ledger " + ledger), std::string::npos) << last_error_;
  ASSERT_EQ(::chmod(ledger.c_str(), 0600), 0);
  EXPECT_NE(OpenWithLedger(At(2026, 4, 11)), nullptr) << last_error_;
}

// Slurm calls the engine from RPC threads (sprio, sshare, job submission), the
// plugin's pass thread and the reconfigure path at once. Run under
// ThreadSanitizer (preset tsan), this finds any state touched outside the
// mutex; in every build it checks that no accrual is lost or counted twice.
TEST_F(EngineRobustness, ConcurrentCallsLoseNoUsage) {
  Write(conf_, kTwoProjects);
  const UnixTime start = At(2026, 4, 20);
  auto engine = OpenWithLedger(start);
  ASSERT_NE(engine, nullptr);
  engine->SetWeights(FairShareOnly());
  // Both users known before the readers start.
  engine->Accrue("chem", "alice", "normal", 1, start - 60, start);
  engine->Accrue("phys", "bob", "normal", 1, start - 60, start);
  constexpr int kTicks = 300;
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  // Two pass threads accrue one node-minute per tick to each project: 4 GPU-minutes.
  for (const char* account : {"chem", "phys"}) {
    threads.emplace_back([&, account] {
      for (int i = 0; i < kTicks; ++i) {
        const UnixTime from = start + i * 60;
        engine->Accrue(account, i % 2 == 0 ? "alice" : "bob", "normal", 1, from, from + 60);
        engine->Advance(from + 60);
      }
    });
  }
  threads.emplace_back([&] {  // sprio and sshare
    for (int i = 0; !done.load(); ++i) {
      JobPriorityInputs in;
      in.now = start + i;
      const JobPriority p = engine->Priority(i % 2 == 0 ? "chem" : "phys", "normal", in);
      const std::optional<ProjectView> view = engine->Project("chem", in.now);
      if (p.fairshare < 0.0 || !view.has_value() || view->status.used_this_month < 0 ||
          !engine->UserUsage("phys", "bob").has_value() || engine->ledger().projects().empty()) {
        failures.fetch_add(1);
      }
    }
  });
  threads.emplace_back([&] {  // the pass's save, and sbudget reading the file
    for (int i = 0; !done.load(); ++i) {
      if (!engine->Save(start + i).ok() || !LoadLedgerFile((dir_ / "ledger").string()).ok()) {
        failures.fetch_add(1);
      }
    }
  });
  threads.emplace_back([&] {  // scontrol reconfigure
    for (int i = 0; !done.load(); ++i) {
      if (!engine->Reload(conf_).ok() || engine->KindOfPartition("low") != PartitionKind::kLow) {
        failures.fetch_add(1);
      }
      engine->SetHalfLife(i % 2 == 0 ? 7 * 24 * kHour : 14 * 24 * kHour);
      (void)engine->Admit(AdmissionRequest{.account = "chem", .partitions = {"normal"}}, start);
    }
  });
  threads[0].join();
  threads[1].join();
  done.store(true);
  for (std::size_t i = 2; i < threads.size(); ++i) {
    threads[i].join();
  }
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(Charged(*engine, "chem"), (kTicks + 1) * 4 * 60);
  EXPECT_EQ(Charged(*engine, "phys"), (kTicks + 1) * 4 * 60);
  ASSERT_TRUE(engine->Save(start + kTicks * 60).ok());
  const auto loaded = LoadLedgerFile((dir_ / "ledger").string());
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded.value().ledger, engine->ledger());
}

// Every field of a status, for comparisons that say which differs.
std::string Describe(const ProjectStatus& s) {
  const MonthRow& o = s.open;
  std::ostringstream out;
  out << "state " << ToString(s.state) << ", month " << s.month << ", open {" << o.month << " "
      << o.accounted_before << " " << o.ideal << " " << o.expected << " " << o.minimal << " "
      << o.has_minimal << " " << o.closed << " " << o.used << " " << o.lost << " " << o.graced
      << " " << o.remaining << "}, used " << s.used_this_month << ", outstanding " << s.outstanding
      << ", remaining " << s.remaining << ", low " << s.low_used << " of " << s.low_allowance
      << ", preparatory " << s.preparatory_used << ", decayed " << s.decayed_usage;
  return out.str();
}

// The engine reads a project's usage again only when it was charged or its
// month turned (engine.hpp, summaries_): its views must stay those StatusOf
// computes from the whole ledger, through charges of the open month, late
// charges of a closed one, passes with and without Advance, and every state.
TEST_F(EngineCache, ViewsStayTheStatusOfTheLedgerThroughChargesAndMonths) {
  Write(conf_, kTwoProjects);
  auto engine = Open(At(2026, 3, 25));
  ASSERT_NE(engine, nullptr);
  const auto check = [&](UnixTime now, int step) {
    const std::shared_ptr<const BudgetConfig> config = engine->config();
    for (const ProjectSpec& spec : config->projects) {
      const ProjectTerms terms = TermsOf(spec);
      const std::string want = Describe(StatusOf(engine->ledger(), terms, TimeZone::Utc(), now));
      const std::optional<ProjectView> view = engine->Project(spec.account, now);
      ASSERT_TRUE(view.has_value());
      EXPECT_EQ(Describe(view->status), want) << spec.account << " at step " << step;
    }
  };
  std::vector<ProjectState> seen;
  int step = 0;
  for (UnixTime now = At(2026, 3, 25); now < At(2026, 10, 12); now += 4 * 24 * kHour + 5 * kHour) {
    ++step;
    check(now, step);  // before any charge at this instant
    if (step % 3 == 0) {
      engine->Accrue("chem", "alice", "normal", 1 + step % 5, now - 2 * kHour, now);
    }
    if (step % 7 == 3) {  // late: into the month before, closed when it ended
      // 720 GPUh: at step 10 it lifts April over its minimal, so that the
      // replay of the closed months accounts more than before the charge.
      const UnixTime late = now - 20 * 24 * kHour;
      engine->Accrue("chem", "bob", "normal", 60, late, late + 3 * kHour);
    }
    if (step % 5 == 1) {
      engine->Accrue("phys", "carol", "low", 3, now - 3 * kHour, now);
    }
    if (step == 20) {  // 5,600 GPUh: chem's credit used up
      engine->Accrue("chem", "alice", "normal", 100, now - 14 * kHour, now);
    }
    check(now, step);  // the charges of this instant seen at once
    if (step % 4 != 2) {
      engine->Advance(now);
    }
    check(now, step);
    seen.push_back(engine->Project("chem", now)->status.state);
  }
  for (const ProjectState state : {ProjectState::kPreparatory, ProjectState::kActive,
                                   ProjectState::kLow, ProjectState::kEnded}) {
    EXPECT_NE(std::find(seen.begin(), seen.end(), state), seen.end()) << ToString(state);
  }
}

// Admit answers from the factors a pass caches, not from a full status: its
// verdict must be the one budget::Admit gives from StatusOf, in every state.
TEST_F(EngineCache, AdmitFromTheCacheIsAdmitFromTheFullStatus) {
  Write(conf_, std::string("CreditUsedUp=redirect\n") + std::string(kConf));
  auto engine = Open(At(2026, 3, 20));
  ASSERT_NE(engine, nullptr);
  const auto check = [&](UnixTime now, const std::string& when) {
    engine->Advance(now);
    const std::shared_ptr<const BudgetConfig> config = engine->config();
    const ProjectSpec& spec = config->projects.front();
    const ProjectTerms terms{spec.account, spec.credit, spec.calendar};
    const ProjectStatus status = StatusOf(engine->ledger(), terms, TimeZone::Utc(), now);
    for (const std::vector<std::string>& partitions : std::vector<std::vector<std::string>>{
             {"normal"}, {"low"}, {"normal", "low"}, {"scratch"}, {}}) {
      const AdmissionRequest request{"chem", partitions, 42};
      const Admission want = budget::Admit(*config, &spec, &status, TimeZone::Utc(), now, request);
      const Admission got = engine->Admit(request, now);
      EXPECT_EQ(got.action, want.action) << when;
      EXPECT_EQ(got.cause, want.cause) << when;
      EXPECT_EQ(got.partitions, want.partitions) << when;
      EXPECT_EQ(got.message, want.message) << when;
      EXPECT_EQ(got.hold_reason, want.hold_reason) << when;
      EXPECT_EQ(got.has_project, want.has_project) << when;
      EXPECT_EQ(got.state, want.state) << when;
      EXPECT_EQ(got.last_day, want.last_day) << when;
      EXPECT_EQ(got.storage_last_day, want.storage_last_day) << when;
      EXPECT_EQ(got.remaining, want.remaining) << when;
      EXPECT_EQ(got.low_used, want.low_used) << when;
      EXPECT_EQ(got.low_allowance, want.low_allowance) << when;
    }
    return status.state;
  };
  EXPECT_EQ(check(At(2026, 3, 20), "preparatory"), ProjectState::kPreparatory);
  const UnixTime t = At(2026, 4, 10);
  engine->Accrue("chem", "alice", "normal", 100, t, t + 3600);
  EXPECT_EQ(check(t + 7200, "active"), ProjectState::kActive);
  engine->Accrue("chem", "alice", "normal", 1000, t + 3600, t + 3600 + 5'400);
  EXPECT_EQ(check(t + 20'000, "low"), ProjectState::kLow);
  engine->Accrue("chem", "bob", "low", 1000, t + 30'000, t + 30'000 + 900);
  EXPECT_EQ(check(t + 40'000, "blocked"), ProjectState::kBlocked);
  EXPECT_EQ(check(At(2026, 10, 2), "ended"), ProjectState::kEnded);
}

}  // namespace
}  // namespace budget
