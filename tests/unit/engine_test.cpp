// Tests of the engine's lifecycle bookkeeping: state changes logged by Advance with an injected
// clock, and Admit answering from the configuration and ledger in force (engine.hpp).
#include "budget/engine.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

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

  std::unique_ptr<Engine> Open(UnixTime now) {
    EngineOptions options;
    options.config_path = conf_;
    options.zone = TimeZone::Utc();
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

// The views and factors a pass reuses (engine.hpp: one computation per
// project per `now`) never outlive a change of the ledger or the projects.
using EngineCache = EngineLifecycle;

constexpr std::string_view kTwoProjects =
    "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
    "PartitionName=low Role=low GpuhPerNodeHour=4\n"
    "Project=chem Kind=small Credit=6000 Created=2026-03-15 PIs=ana.muster@unibe.ch\n"
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
  Write(conf_,
        "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
        "PartitionName=low Role=low GpuhPerNodeHour=4\n"
        "Project=phys Kind=small Credit=6000 Created=2026-03-15 PIs=ben.muster@unibe.ch\n");
  ASSERT_TRUE(engine->Reload(conf_).ok());
  EXPECT_FALSE(engine->Project("chem", now).has_value());
  EXPECT_EQ(engine->Project("phys", now)->status.state, ProjectState::kActive);
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

}  // namespace
}  // namespace budget
