// Tests of the lifecycle verdicts: every row of admission.hpp's table, its messages, and every
// state transition at the exact instant, with an injected clock.
#include "budget/admission.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parse_ok.hpp"

namespace budget {
namespace {

constexpr std::int64_t kHour = 3600;

UnixTime At(int year, int month, int day, std::int64_t hour = 0, std::int64_t minute = 0,
            std::int64_t second = 0) {
  return TimeZone::Utc().MidnightOf(CivilDate{year, month, day}) + hour * kHour + minute * 60 +
         second;
}

::testing::AssertionResult Contains(const std::string& text, std::string_view part) {
  if (text.find(part) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

// chem: small, 6,000 GPUh, created 15 March 2026: preparatory until 1 April, runs
// April..September (last day 30 September), storage readable until 29 December.
constexpr std::string_view kPartitions =
    "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
    "PartitionName=debug Role=budgeted GpuhPerNodeHour=4\n"
    "PartitionName=low Role=low GpuhPerNodeHour=4\n"
    "Project=chem Kind=small Credit=6000 Created=2026-03-15 PIs=ana.muster@unibe.ch\n";

BudgetConfig Config(std::string_view options = "") {
  return ParseOk(std::string(options) + "\n" + std::string(kPartitions));
}

ProjectTerms TermsOf(const ProjectSpec& spec) {
  return ProjectTerms{spec.account, spec.credit, spec.calendar};
}

AdmissionRequest Job(std::vector<std::string> partitions, std::uint32_t job_id = 0,
                     std::string account = "chem") {
  return AdmissionRequest{std::move(account), std::move(partitions), job_id};
}

// The verdict of `request` at `now` for a ledger, as the engine computes it.
Admission AdmitAt(const BudgetConfig& config, const Ledger& ledger, UnixTime now,
                  const AdmissionRequest& request) {
  const ProjectSpec* spec = config.FindProject(request.account);
  if (spec == nullptr) {
    return Admit(config, nullptr, nullptr, TimeZone::Utc(), now, request);
  }
  const ProjectStatus status = StatusOf(ledger, TermsOf(*spec), TimeZone::Utc(), now);
  return Admit(config, spec, &status, TimeZone::Utc(), now, request);
}

ProjectState StateAt(const BudgetConfig& config, const Ledger& ledger, UnixTime now) {
  return StatusOf(ledger, TermsOf(*config.FindProject("chem")), TimeZone::Utc(), now).state;
}

// A ledger where chem used its whole credit in April and `low_gpu_hours` in low.
Ledger CreditUsedUp(std::int64_t low_gpu_hours) {
  Ledger ledger;
  ledger.Record("chem", "alice", 1, PartitionRole::kBudgeted, GpuHours(6'000));
  ledger.Record("chem", "alice", 2, PartitionRole::kLow, GpuHours(low_gpu_hours));
  return ledger;
}

TEST(AdmissionTransition, PreparatoryBecomesActiveAtMidnightOfTheStart) {
  const BudgetConfig config = Config();
  const Ledger ledger;
  const UnixTime last_second = At(2026, 3, 31, 23, 59, 59);
  const UnixTime start = At(2026, 4, 1);
  EXPECT_EQ(StateAt(config, ledger, last_second), ProjectState::kPreparatory);
  EXPECT_EQ(StateAt(config, ledger, start), ProjectState::kActive);

  const Admission before = AdmitAt(config, ledger, last_second, Job({"normal"}));
  EXPECT_EQ(before.action, AdmissionAction::kAllow);
  EXPECT_TRUE(Contains(before.message, "project chem starts on 2026-04-01"));
  EXPECT_TRUE(before.hold_reason.empty());
  const Admission after = AdmitAt(config, ledger, start, Job({"normal"}));
  EXPECT_EQ(after.action, AdmissionAction::kAllow);
  EXPECT_TRUE(after.message.empty());
}

TEST(AdmissionTransition, ActiveBecomesLowWhenTheRemainingCreditReachesZero) {
  const BudgetConfig config = Config();
  const PartitionRate normal = *config.FindPartition("normal");
  const ProjectTerms terms = TermsOf(*config.FindProject("chem"));
  const UnixTime now = At(2026, 4, 20);
  Ledger ledger;
  // 6,000 GPUh = 5,400,000 node-seconds at 4 GPUh per node-hour: leave 4 GPU-seconds.
  ledger.Accrue(terms, TimeZone::Utc(), "alice", normal, 1000, At(2026, 4, 10),
                At(2026, 4, 10) + 5'399);
  ledger.Accrue(terms, TimeZone::Utc(), "alice", normal, 999, At(2026, 4, 11), At(2026, 4, 11) + 1);
  EXPECT_EQ(StatusOf(ledger, terms, TimeZone::Utc(), now).remaining, 4);
  EXPECT_EQ(StateAt(config, ledger, now), ProjectState::kActive);
  EXPECT_EQ(AdmitAt(config, ledger, now, Job({"normal"})).action, AdmissionAction::kAllow);

  ledger.Accrue(terms, TimeZone::Utc(), "alice", normal, 1, At(2026, 4, 12), At(2026, 4, 12) + 1);
  EXPECT_EQ(StatusOf(ledger, terms, TimeZone::Utc(), now).remaining, 0);
  EXPECT_EQ(StateAt(config, ledger, now), ProjectState::kLow);
  const Admission a = AdmitAt(config, ledger, now, Job({"normal"}));
  EXPECT_EQ(a.action, AdmissionAction::kRedirect);
  EXPECT_EQ(a.cause, AdmissionCause::kCreditUsedUp);
  EXPECT_EQ(a.partitions, std::vector<std::string>{"low"});
}

TEST(AdmissionTransition, LowBecomesBlockedWhenTheLowAllowanceIsUsed) {
  const BudgetConfig config = Config();
  const PartitionRate low = *config.FindPartition("low");
  const ProjectTerms terms = TermsOf(*config.FindProject("chem"));
  const UnixTime now = At(2026, 5, 20);
  Ledger ledger = CreditUsedUp(0);
  // The low allowance is one month of budget: 1,000 GPUh = 900,000 node-seconds.
  ledger.Accrue(terms, TimeZone::Utc(), "bob", low, 1000, At(2026, 5, 10), At(2026, 5, 10) + 899);
  ledger.Accrue(terms, TimeZone::Utc(), "bob", low, 1, At(2026, 5, 11), At(2026, 5, 11) + 999);
  EXPECT_EQ(StatusOf(ledger, terms, TimeZone::Utc(), now).low_used, GpuHours(1'000) - 4);
  EXPECT_EQ(StateAt(config, ledger, now), ProjectState::kLow);
  EXPECT_EQ(AdmitAt(config, ledger, now, Job({"low"})).action, AdmissionAction::kAllow);

  ledger.Accrue(terms, TimeZone::Utc(), "bob", low, 1, At(2026, 5, 12), At(2026, 5, 12) + 1);
  EXPECT_EQ(StateAt(config, ledger, now), ProjectState::kBlocked);
  const Admission a = AdmitAt(config, ledger, now, Job({"low"}));
  EXPECT_EQ(a.action, AdmissionAction::kReject);
  EXPECT_EQ(a.cause, AdmissionCause::kLowAllowanceUsed);
  EXPECT_TRUE(Contains(a.message, "(1,000 of 1,000 GPUh used)"));
}

TEST(AdmissionTransition, BecomesEndedAtMidnightOfTheEnd) {
  const BudgetConfig config = Config();
  const Ledger ledger;
  const UnixTime last_second = At(2026, 9, 30, 23, 59, 59);
  const UnixTime end = At(2026, 10, 1);
  EXPECT_EQ(StateAt(config, ledger, last_second), ProjectState::kActive);
  EXPECT_EQ(AdmitAt(config, ledger, last_second, Job({"normal"})).action, AdmissionAction::kAllow);
  EXPECT_EQ(StateAt(config, ledger, end), ProjectState::kEnded);
  const Admission a = AdmitAt(config, ledger, end, Job({"normal"}));
  EXPECT_EQ(a.action, AdmissionAction::kReject);
  EXPECT_EQ(a.cause, AdmissionCause::kEnded);
}

TEST(AdmissionTransition, LowAndBlockedProjectsEndToo) {
  const BudgetConfig config = Config();
  for (const std::int64_t low : {0, 1'000}) {
    const Ledger ledger = CreditUsedUp(low);
    EXPECT_NE(StateAt(config, ledger, At(2026, 9, 30, 23, 59, 59)), ProjectState::kEnded);
    EXPECT_EQ(AdmitAt(config, ledger, At(2026, 10, 1), Job({"low"})).cause, AdmissionCause::kEnded);
  }
}

TEST(Admit, EndedNamesTheProjectTheLastDayAndTheStorageDate) {
  const Admission a = AdmitAt(Config(), Ledger(), At(2026, 10, 1), Job({"normal"}, 42));
  EXPECT_EQ(a.message,
            "job refused: project chem ended on 2026-09-30 (its last day of compute): compute is "
            "no longer available. Its storage stays readable until 2026-12-29 included (90 days "
            "after the end).");
  EXPECT_EQ(a.hold_reason,
            "budget: project chem ended on 2026-09-30; its jobs can no longer start (scancel "
            "this job)");
}

TEST(Admit, CarriesTheProjectFactsBehindTheVerdict) {
  const Admission a = AdmitAt(Config(), CreditUsedUp(250), At(2026, 6, 1), Job({"normal"}));
  EXPECT_TRUE(a.has_project);
  EXPECT_EQ(a.state, ProjectState::kLow);
  EXPECT_EQ(a.last_day, (CivilDate{2026, 9, 30}));
  EXPECT_EQ(a.storage_last_day, (CivilDate{2026, 12, 29}));
  EXPECT_EQ(a.remaining, 0);
  EXPECT_EQ(a.low_used, GpuHours(250));
  EXPECT_EQ(a.low_allowance, GpuHours(1'000));
  EXPECT_FALSE(AdmitAt(Config(), Ledger(), At(2026, 6, 1), Job({"normal"}, 0, "ops")).has_project);
}

TEST(Admit, EndedSaysStorageWasReadableOnceThe90DaysArePast) {
  const BudgetConfig config = Config();
  EXPECT_TRUE(Contains(AdmitAt(config, Ledger(), At(2026, 12, 29, 23), Job({"normal"})).message,
                       "stays readable until 2026-12-29"));
  EXPECT_TRUE(Contains(AdmitAt(config, Ledger(), At(2026, 12, 30), Job({"normal"})).message,
                       "was readable until 2026-12-29"));
}

TEST(Admit, EndedAndBlockedRefuseEveryPartition) {
  const BudgetConfig config = Config();
  const std::vector<std::vector<std::string>> asks = {
      {"normal"}, {"low"}, {"x86"}, {"normal", "low"}, {}};
  for (const auto& partitions : asks) {
    EXPECT_EQ(AdmitAt(config, Ledger(), At(2026, 11, 1), Job(partitions)).action,
              AdmissionAction::kReject);
    EXPECT_EQ(AdmitAt(config, CreditUsedUp(1'000), At(2026, 6, 1), Job(partitions)).action,
              AdmissionAction::kReject);
  }
}

TEST(Admit, BlockedSaysHowMuchOfTheAllowanceWasUsed) {
  const Admission a = AdmitAt(Config(), CreditUsedUp(1'200), At(2026, 6, 1), Job({"low"}, 7));
  EXPECT_EQ(a.message,
            "job refused: project chem has used its credit (6,000 GPUh) and its whole low "
            "allowance (1,200 of 1,000 GPUh used): it can no longer start jobs. Running jobs are "
            "not affected.");
  EXPECT_EQ(a.hold_reason,
            "budget: project chem used its credit and its low allowance (1,200 of 1,000 GPUh "
            "used); no job can start");
}

TEST(Admit, CreditUsedUpRedirectsBudgetedPartitionsToLow) {
  const Admission a = AdmitAt(Config(), CreditUsedUp(250), At(2026, 6, 1), Job({"normal"}));
  EXPECT_EQ(a.action, AdmissionAction::kRedirect);
  EXPECT_EQ(a.partitions, std::vector<std::string>{"low"});
  EXPECT_EQ(a.message,
            "project chem has used its credit (6,000 GPUh): this job runs in partition low "
            "instead of normal. In low jobs run at the lowest priority, on nodes no other project "
            "needs, up to the low allowance (250 of 1,000 GPUh used).");
  EXPECT_EQ(a.hold_reason,
            "budget: project chem has used its credit (6,000 GPUh); partition normal is closed "
            "to it: move the job to partition low, or scancel it");
}

TEST(Admit, AllowanceUsedIsRoundedDownSoALittleLeftNeverReadsAsAll) {
  Ledger ledger = CreditUsedUp(999);
  ledger.Record("chem", "alice", 2, PartitionRole::kLow, GpuHours(1) - 36);  // 999.99 GPUh
  const Admission a = AdmitAt(Config(), ledger, At(2026, 6, 1), Job({"low", "normal"}));
  EXPECT_EQ(a.action, AdmissionAction::kRedirect);
  EXPECT_TRUE(Contains(a.message, "(999.9 of 1,000 GPUh used)"));
}

TEST(Admit, CreditUsedUpRedirectKeepsOrderAndUnbilledPartitions) {
  const Admission a =
      AdmitAt(Config(), CreditUsedUp(0), At(2026, 6, 1), Job({"x86", "normal", "debug", "low"}));
  EXPECT_EQ(a.action, AdmissionAction::kRedirect);
  EXPECT_EQ(JoinPartitionList(a.partitions), "x86,low");
  EXPECT_TRUE(Contains(a.message, "runs in partition low instead of normal,debug"));
}

TEST(Admit, CreditUsedUpAllowsLowAndUnbilledPartitions) {
  const BudgetConfig config = Config();
  for (const auto& partitions :
       std::vector<std::vector<std::string>>{{"low"}, {"x86"}, {"x86", "low"}, {}}) {
    const Admission a = AdmitAt(config, CreditUsedUp(999), At(2026, 6, 1), Job(partitions));
    EXPECT_EQ(a.action, AdmissionAction::kAllow) << JoinPartitionList(partitions);
    EXPECT_EQ(a.partitions, partitions);
    EXPECT_TRUE(a.hold_reason.empty());
  }
}

TEST(Admit, CreditUsedUpRejectModeNamesTheLowPartition) {
  const BudgetConfig config = Config("CreditUsedUp=reject");
  const Admission a =
      AdmitAt(config, CreditUsedUp(250), At(2026, 6, 1), Job({"normal", "debug"}, 1234));
  EXPECT_EQ(a.action, AdmissionAction::kReject);
  EXPECT_EQ(a.cause, AdmissionCause::kCreditUsedUp);
  EXPECT_EQ(a.message,
            "job refused: project chem has used its credit (6,000 GPUh), so partitions "
            "normal,debug are closed to it. Submit to partition low (-p low): jobs there run at "
            "the lowest priority, on nodes no other project needs, up to the low allowance (250 "
            "of 1,000 GPUh used).");
  EXPECT_EQ(a.hold_reason,
            "budget: project chem has used its credit (6,000 GPUh); partitions normal,debug are "
            "closed to it: scontrol update JobId=1234 Partition=low, or scancel it");
  EXPECT_EQ(AdmitAt(config, CreditUsedUp(250), At(2026, 6, 1), Job({"low"})).action,
            AdmissionAction::kAllow);
}

TEST(Admit, UsesTheConfiguredLowPartition) {
  Result<BudgetConfig> r = ParseBudgetConfig(
      "LowPartition=scavenger\n"
      "PartitionName=normal Role=budgeted\n"
      "PartitionName=scavenger Role=low\n"
      "Project=chem Kind=small Credit=6000 Created=2026-03-15 PIs=ana.muster@unibe.ch\n",
      "budget.conf");
  ASSERT_TRUE(r.ok()) << r.error();
  const Admission a = AdmitAt(r.value(), CreditUsedUp(0), At(2026, 6, 1), Job({"normal"}, 9));
  EXPECT_EQ(JoinPartitionList(a.partitions), "scavenger");
  EXPECT_TRUE(Contains(a.hold_reason, "scontrol update JobId=9 Partition=scavenger"));
}

TEST(Admit, ActiveAndPreparatoryProjectsRunAnywhere) {
  const BudgetConfig config = Config();
  for (const UnixTime now : {At(2026, 3, 20), At(2026, 4, 20)}) {
    for (const auto& partitions :
         std::vector<std::vector<std::string>>{{"normal"}, {"low"}, {"x86"}, {"normal", "low"}}) {
      const Admission a = AdmitAt(config, Ledger(), now, Job(partitions));
      EXPECT_EQ(a.action, AdmissionAction::kAllow);
      EXPECT_EQ(a.partitions, partitions);
      EXPECT_TRUE(a.hold_reason.empty());
    }
  }
}

TEST(Admit, UnbudgetedAccountsFollowTheConfiguration) {
  const Admission allowed = AdmitAt(Config(), Ledger(), At(2026, 6, 1), Job({"normal"}, 0, "ops"));
  EXPECT_EQ(allowed.action, AdmissionAction::kAllow);
  EXPECT_TRUE(allowed.message.empty());

  const BudgetConfig reject = Config("UnbudgetedAccounts=reject");
  const Admission a = AdmitAt(reject, Ledger(), At(2026, 6, 1), Job({"normal"}, 0, "ops"));
  EXPECT_EQ(a.action, AdmissionAction::kReject);
  EXPECT_EQ(a.cause, AdmissionCause::kUnbudgetedAccount);
  EXPECT_EQ(a.message,
            "job refused: account ops has no GPU-hour budget (it is not a project in "
            "budget.conf), and accounts without a budget may not run jobs here. Submit with the "
            "account of your project (-A PROJECT).");
  EXPECT_EQ(a.hold_reason, "budget: account ops has no budget; its jobs may not run");
  const Admission none = AdmitAt(reject, Ledger(), At(2026, 6, 1), Job({"normal"}, 0, ""));
  EXPECT_EQ(none.action, AdmissionAction::kReject);
  EXPECT_TRUE(Contains(none.message, "it has no account"));
}

TEST(Admit, EveryHoldReasonStartsWithThePrefix) {
  const BudgetConfig config = Config("UnbudgetedAccounts=reject");
  const std::vector<Admission> refused = {
      AdmitAt(config, Ledger(), At(2026, 10, 1), Job({"normal"})),
      AdmitAt(config, CreditUsedUp(1'000), At(2026, 6, 1), Job({"low"})),
      AdmitAt(config, CreditUsedUp(0), At(2026, 6, 1), Job({"normal"})),
      AdmitAt(config, Ledger(), At(2026, 6, 1), Job({"normal"}, 0, "ops")),
  };
  for (const Admission& a : refused) {
    EXPECT_NE(a.action, AdmissionAction::kAllow);
    EXPECT_TRUE(a.hold_reason.starts_with(kHoldReasonPrefix)) << a.hold_reason;
    EXPECT_EQ(a.message.find('\n'), std::string::npos);
  }
}

TEST(SplitPartitionList, SplitsTrimsAndDropsEmptyItems) {
  EXPECT_EQ(SplitPartitionList("normal,low"), (std::vector<std::string>{"normal", "low"}));
  EXPECT_EQ(SplitPartitionList(" normal , ,low,"), (std::vector<std::string>{"normal", "low"}));
  EXPECT_TRUE(SplitPartitionList("").empty());
  EXPECT_EQ(JoinPartitionList(SplitPartitionList("a,b,c")), "a,b,c");
  EXPECT_EQ(JoinPartitionList({}), "");
}

TEST(AdmissionToString, NamesEveryActionAndCause) {
  EXPECT_STREQ(ToString(AdmissionAction::kAllow), "allow");
  EXPECT_STREQ(ToString(AdmissionAction::kRedirect), "redirect");
  EXPECT_STREQ(ToString(AdmissionAction::kReject), "reject");
  EXPECT_STREQ(ToString(AdmissionCause::kNone), "none");
  EXPECT_STREQ(ToString(AdmissionCause::kUnbudgetedAccount), "unbudgeted-account");
  EXPECT_STREQ(ToString(AdmissionCause::kCreditUsedUp), "credit-used-up");
  EXPECT_STREQ(ToString(AdmissionCause::kLowAllowanceUsed), "low-allowance-used");
  EXPECT_STREQ(ToString(AdmissionCause::kEnded), "ended");
}

}  // namespace
}  // namespace budget
