// Tests of the replay's input side: SWF and CSV traces, project mapping and generation.
#include "budget/replay_trace.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "budget/config.hpp"

namespace budget {
namespace {

// One SWF line with the fields the parser reads; the others are -1.
std::string SwfLine(int id, int submit, int run, int allocated, int requested, int requested_time,
                    int user, int group) {
  return std::to_string(id) + " " + std::to_string(submit) + " -1 " + std::to_string(run) + " " +
         std::to_string(allocated) + " -1.5 -1 " + std::to_string(requested) + " " +
         std::to_string(requested_time) + " -1 1 " + std::to_string(user) + " " +
         std::to_string(group) + " -1 -1 -1 -1 -1\n";
}

TEST(ParseSwf, ReadsJobsAndHeader) {
  const std::string text =
      "; Version: 2.2\n"
      "; UnixStartTime: 749458803\n"
      "; MaxProcs: 256\n"
      "; MaxNodes: 128\n"
      ";\n"
      "\n" +
      SwfLine(1, 0, 1451, 128, -1, -1, 1, 1) + SwfLine(2, 1460, 3726, 32, 64, 7200, 4, 2);
  const Result<Trace> trace = ParseSwf(text, "t.swf");
  ASSERT_TRUE(trace.ok()) << trace.error();
  EXPECT_EQ(trace.value().unix_start_time, 749458803);
  EXPECT_EQ(trace.value().max_nodes, 128U);
  ASSERT_EQ(trace.value().jobs.size(), 2U);
  const TraceJob& first = trace.value().jobs[0];
  EXPECT_EQ(first.id, 1U);
  EXPECT_EQ(first.submit, 0);
  EXPECT_EQ(first.run_seconds, 1451);
  EXPECT_EQ(first.limit_seconds, 1451);  // no requested time: the run time
  EXPECT_EQ(first.nodes, 128U);
  EXPECT_EQ(first.user, "1");
  EXPECT_EQ(first.group, "1");
  EXPECT_EQ(first.account, "");
  const TraceJob& second = trace.value().jobs[1];
  EXPECT_EQ(second.submit, 1460);
  EXPECT_EQ(second.nodes, 32U);  // allocated wins over requested
  EXPECT_EQ(second.limit_seconds, 7200);
  EXPECT_EQ(second.user, "4");
  EXPECT_EQ(second.group, "2");
  EXPECT_EQ(trace.value().skipped(), 0U);
}

TEST(ParseSwf, MaxProcsWhenNoMaxNodes) {
  const Result<Trace> trace = ParseSwf("; MaxProcs: 64\n" + SwfLine(1, 0, 1, 1, 1, 1, 1, 1), "t");
  ASSERT_TRUE(trace.ok()) << trace.error();
  EXPECT_EQ(trace.value().max_nodes, 64U);
  EXPECT_FALSE(trace.value().unix_start_time.has_value());
}

TEST(ParseSwf, RequestedProcessorsAndLimitAtLeastRunTime) {
  // No allocated count: the requested one; a job that ran past its request
  // keeps its run time as the limit.
  const Result<Trace> trace = ParseSwf(SwfLine(7, 5, 500, -1, 16, 300, -1, -1), "t");
  ASSERT_TRUE(trace.ok()) << trace.error();
  ASSERT_EQ(trace.value().jobs.size(), 1U);
  EXPECT_EQ(trace.value().jobs[0].nodes, 16U);
  EXPECT_EQ(trace.value().jobs[0].limit_seconds, 500);
  EXPECT_EQ(trace.value().jobs[0].user, "");
  EXPECT_EQ(trace.value().jobs[0].group, "");
}

TEST(ParseSwf, SkipsUnknownRunTimeAndNodesAndCountsThem) {
  const std::string text = SwfLine(1, 0, -1, 4, 4, -1, 1, 1) + SwfLine(2, 0, 10, 0, -1, -1, 1, 1) +
                           SwfLine(3, -1, 10, 4, 4, -1, 1, 1) + SwfLine(4, 3, 10, 2, 2, -1, 1, 1) +
                           SwfLine(5, 3, -1, 0, 0, -1, 1, 1);
  const Result<Trace> trace = ParseSwf(text, "t");
  ASSERT_TRUE(trace.ok()) << trace.error();
  ASSERT_EQ(trace.value().jobs.size(), 1U);
  EXPECT_EQ(trace.value().jobs[0].id, 4U);
  EXPECT_EQ(trace.value().skipped_no_run_time, 2U);  // job 5 counted once, as no run time
  EXPECT_EQ(trace.value().skipped_no_nodes, 1U);
  EXPECT_EQ(trace.value().skipped_no_submit, 1U);
  EXPECT_EQ(trace.value().skipped(), 4U);
}

TEST(ParseSwf, ErrorsNameFileLineAndField) {
  const std::string text = "; comment\n" + SwfLine(1, 0, 10, 1, 1, -1, 1, 1) +
                           "2 0 -1 1.5 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
                           "3 0 -1 10 1\n" +
                           SwfLine(1, 5, 10, 1, 1, -1, 1, 1) +
                           "4 x -1 10 -7 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";
  const Result<Trace> trace = ParseSwf(text, "nasa.swf");
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error(),
            "nasa.swf:3: run time: must be a whole number from -1 to 1099511627776, got \"1.5\"\n"
            "nasa.swf:4: expected 18 fields, got 5\n"
            "nasa.swf:5: job number: 1 is given twice\n"
            "nasa.swf:6: submit time: must be a whole number from -1 to 1099511627776, got \"x\"\n"
            "nasa.swf:6: allocated processors: must be a whole number from -1 to 1099511627776, "
            "got \"-7\"");
}

TEST(ParseTraceCsv, ReadsJobs) {
  const Result<Trace> trace = ParseTraceCsv(
      "submit,nodes,run_seconds,limit_seconds,account,user\r\n"
      "0,2,3600,7200,chem,alice\r\n"
      "\n"
      " 60 , 1 , 10 , , , bob\n",
      "jobs.csv");
  ASSERT_TRUE(trace.ok()) << trace.error();
  ASSERT_EQ(trace.value().jobs.size(), 2U);
  const TraceJob& a = trace.value().jobs[0];
  EXPECT_EQ(a.id, 1U);
  EXPECT_EQ(a.submit, 0);
  EXPECT_EQ(a.nodes, 2U);
  EXPECT_EQ(a.run_seconds, 3600);
  EXPECT_EQ(a.limit_seconds, 7200);
  EXPECT_EQ(a.account, "chem");
  EXPECT_EQ(a.user, "alice");
  const TraceJob& b = trace.value().jobs[1];
  EXPECT_EQ(b.id, 2U);
  EXPECT_EQ(b.submit, 60);
  EXPECT_EQ(b.limit_seconds, 10);  // empty: the run time
  EXPECT_EQ(b.account, "");
  EXPECT_EQ(b.user, "bob");
}

TEST(ParseTraceCsv, ErrorsNameFileLineAndColumn) {
  const Result<Trace> trace = ParseTraceCsv(
      "submit,nodes,run_seconds,limit_seconds,account,user\n"
      "0,0,10,10,chem,a\n"
      "-5,1,10,5,Chem,a\n"
      "1,1,10\n",
      "jobs.csv");
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error(),
            "jobs.csv:2: nodes: must be a whole number >= 1, got \"0\"\n"
            "jobs.csv:3: submit: must be a whole number >= 0, got \"-5\"\n"
            "jobs.csv:3: account: must be a Slurm account name (a-z, 0-9, _ and -), got \"Chem\"\n"
            "jobs.csv:4: expected 6 comma-separated values, got 3");
}

TEST(ParseTraceCsv, LimitBelowRunTimeIsAnError) {
  const Result<Trace> trace = ParseTraceCsv(
      "submit,nodes,run_seconds,limit_seconds,account,user\n0,1,10,5,chem,a\n", "j.csv");
  ASSERT_FALSE(trace.ok());
  EXPECT_EQ(trace.error(), "j.csv:2: limit_seconds: must be at least run_seconds (10), got \"5\"");
}

TEST(ParseTraceCsv, WrongOrMissingHeader) {
  const Result<Trace> wrong = ParseTraceCsv("submit,nodes,run,limit,account,user\n", "j.csv");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error(),
            "j.csv:1: the header must be \"submit,nodes,run_seconds,limit_seconds,account,user\", "
            "got \"submit,nodes,run,limit,account,user\"");
  const Result<Trace> empty = ParseTraceCsv("", "j.csv");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().find("got an empty file"), std::string::npos);
}

TEST(ParseProjectMap, ReadsRules) {
  const Result<ProjectMap> map = ParseProjectMap(
      "# trace users to projects\n"
      "user 17 = chem   # the chemists\n"
      "group 3=phys\n"
      "\n"
      "* = ops\n",
      "map.txt");
  ASSERT_TRUE(map.ok()) << map.error();
  EXPECT_EQ(map.value().by_user.at("17"), "chem");
  EXPECT_EQ(map.value().by_group.at("3"), "phys");
  EXPECT_EQ(map.value().fallback, "ops");
}

TEST(ParseProjectMap, ErrorsNameFileAndLine) {
  const Result<ProjectMap> map = ParseProjectMap(
      "user 17 = chem\n"
      "user 17 = phys\n"
      "users 3 = phys\n"
      "group 3 = Phys\n"
      "* = ops\n"
      "* = ops2\n",
      "map.txt");
  ASSERT_FALSE(map.ok());
  EXPECT_EQ(map.error(),
            "map.txt:2: user 17 is given twice\n"
            "map.txt:3: expected \"user ID = ACCOUNT\", \"group ID = ACCOUNT\" or \"* = "
            "ACCOUNT\", got \"users 3 = phys\"\n"
            "map.txt:4: the account must be a Slurm account name (a-z, 0-9, _ and -), got "
            "\"Phys\"\n"
            "map.txt:6: \"*\" is given twice");
}

TEST(MapProjects, UserBeatsGroupBeatsFallbackAndTraceAccountsStay) {
  ProjectMap map;
  map.by_user["17"] = "chem";
  map.by_group["3"] = "phys";
  map.fallback = "ops";
  std::vector<TraceJob> jobs(4);
  jobs[0].user = "17";
  jobs[0].group = "3";
  jobs[1].user = "5";
  jobs[1].group = "3";
  jobs[2].user = "5";
  jobs[2].group = "1";
  jobs[3].user = "17";
  jobs[3].account = "bio";
  ASSERT_TRUE(MapProjects(map, jobs).ok());
  EXPECT_EQ(jobs[0].account, "chem");
  EXPECT_EQ(jobs[1].account, "phys");
  EXPECT_EQ(jobs[2].account, "ops");
  EXPECT_EQ(jobs[3].account, "bio");
  EXPECT_EQ(AccountsOf(jobs), (std::vector<std::string>{"bio", "chem", "ops", "phys"}));
}

TEST(MapProjects, UnmappedJobIsAnErrorNamingTheUser) {
  ProjectMap map;
  map.by_user["17"] = "chem";
  std::vector<TraceJob> jobs(3);
  jobs[0].user = "17";
  jobs[1].user = "12";
  jobs[1].group = "1";
  jobs[2].user = "";
  const Status status = MapProjects(map, jobs);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error(),
            "no rule of the mapping gives a project to user 12 (group 1): 2 jobs without a "
            "project; add \"* = ACCOUNT\"");
}

TraceJob Job(const std::string& user, UnixTime submit, std::int64_t run, std::uint32_t nodes) {
  TraceJob job;
  job.user = user;
  job.submit = submit;
  job.run_seconds = run;
  job.limit_seconds = run;
  job.nodes = nodes;
  job.account = "old";
  return job;
}

TEST(GenerateProjects, DealsUsersRoundRobinLargestFirst) {
  // Demands in node-seconds: a 3600, b 36000, c 7200, d 7200 (ties: first seen first).
  std::vector<TraceJob> jobs = {Job("a", 0, 3600, 1), Job("b", 100, 3600, 10),
                                Job("c", 200, 3600, 2), Job("d", 300, 1800, 4)};
  GenerateOptions options;
  options.projects = 2;
  options.start = CivilDate{2027, 3, 1};
  options.gpus_per_node = 4;
  const Result<GeneratedProjects> generated = GenerateProjects(jobs, options);
  ASSERT_TRUE(generated.ok()) << generated.error();
  const GeneratedProjects& g = generated.value();
  EXPECT_EQ(g.trace_months, 1);
  ASSERT_EQ(g.projects.size(), 2U);
  // Sorted: b, c, d, a -> p01 {b, d}, p02 {c, a}.
  EXPECT_EQ(g.projects[0].account, "p01");
  EXPECT_EQ(g.projects[0].users, (std::vector<std::string>{"b", "d"}));
  EXPECT_EQ(g.projects[1].users, (std::vector<std::string>{"c", "a"}));
  EXPECT_EQ(g.projects[0].demand_node_seconds, 43200);
  EXPECT_EQ(g.projects[1].demand_node_seconds, 10800);
  // 43200 node-s x 4 GPUs = 48 GPUh in one month; small, 6 months: 288 GPUh.
  EXPECT_EQ(g.projects[0].kind, ProjectKind::kSmall);
  EXPECT_EQ(g.projects[0].credit_gpu_hours, 288);
  EXPECT_EQ(g.projects[1].credit_gpu_hours, 72);  // 12 GPUh x 6
  EXPECT_EQ(jobs[0].account, "p02");
  EXPECT_EQ(jobs[1].account, "p01");
  EXPECT_EQ(jobs[2].account, "p02");
  EXPECT_EQ(jobs[3].account, "p01");
}

TEST(GenerateProjects, ConfigTextParsesAndMatches) {
  std::vector<TraceJob> jobs = {Job("1", 0, 3600, 1), Job("2", UnixTime{61} * 86400, 3600, 3)};
  GenerateOptions options;
  options.projects = 2;
  options.start = CivilDate{2027, 3, 1};
  options.gpus_per_node = 4;
  options.trace_name = "t.swf";
  const Result<GeneratedProjects> generated = GenerateProjects(jobs, options);
  ASSERT_TRUE(generated.ok()) << generated.error();
  EXPECT_EQ(generated.value().trace_months, 2);  // 61 days: 2.004 months
  // 10800 node-s x 4 = 12 GPUh over 2 months -> 36 GPUh for 6 months; 4 GPUh -> 12.
  EXPECT_EQ(generated.value().projects[0].credit_gpu_hours, 36);
  EXPECT_EQ(generated.value().projects[1].credit_gpu_hours, 12);
  const Result<BudgetConfig> config =
      ParseBudgetConfig(generated.value().config_text, "generated.conf");
  ASSERT_TRUE(config.ok()) << config.error() << "\n" << generated.value().config_text;
  ASSERT_EQ(config.value().projects.size(), 2U);
  const ProjectSpec& p01 = config.value().projects[0];
  EXPECT_EQ(p01.account, "p01");
  EXPECT_EQ(p01.credit, GpuHours(36));
  EXPECT_EQ(p01.calendar.start(), (CivilDate{2027, 3, 1}));
  EXPECT_EQ(p01.calendar.months(), 6);
  EXPECT_EQ(config.value().low_partition, "low");
  ASSERT_NE(config.value().FindPartition("normal"), nullptr);
  EXPECT_EQ(config.value().FindPartition("normal")->rate, 4000);
}

TEST(GenerateProjects, LargeWhenAboveTheSmallGuidelineAndStartAllows) {
  // 10,000 node-hours x 4 GPUs = 40,000 GPUh in one month: 240,000 as small, so large.
  std::vector<TraceJob> jobs = {Job("big", 0, std::int64_t{3600} * 100, 100),
                                Job("tiny", 10, 3600, 1)};
  GenerateOptions options;
  options.projects = 2;
  options.start = CivilDate{2027, 1, 15};
  options.gpus_per_node = 4;
  const Result<GeneratedProjects> january = GenerateProjects(jobs, options);
  ASSERT_TRUE(january.ok()) << january.error();
  EXPECT_EQ(january.value().projects[0].kind, ProjectKind::kLarge);
  EXPECT_EQ(january.value().projects[0].credit_gpu_hours, 480000);
  EXPECT_EQ(january.value().projects[1].kind, ProjectKind::kSmall);
  EXPECT_EQ(january.value().projects[1].credit_gpu_hours, 24);
  const Result<BudgetConfig> config = ParseBudgetConfig(january.value().config_text, "g.conf");
  ASSERT_TRUE(config.ok()) << config.error() << "\n" << january.value().config_text;
  EXPECT_EQ(config.value().projects[0].kind, ProjectKind::kLarge);
  EXPECT_EQ(config.value().projects[0].calendar.start(), (CivilDate{2027, 1, 1}));

  options.start = CivilDate{2027, 3, 1};  // large projects cannot start in March
  const Result<GeneratedProjects> march = GenerateProjects(jobs, options);
  ASSERT_TRUE(march.ok()) << march.error();
  EXPECT_EQ(march.value().projects[0].kind, ProjectKind::kSmall);
  EXPECT_EQ(march.value().projects[0].credit_gpu_hours, 240000);
}

TEST(GenerateProjects, TraceMonthsRoundToTheNearest) {
  // 92 days and one hour (October to December with the end of daylight saving
  // time) is three months, not four; 15 days is one, as is a single instant.
  GenerateOptions options;
  options.projects = 1;
  options.start = CivilDate{2027, 7, 1};
  std::vector<TraceJob> quarter = {Job("a", 0, 10, 1),
                                   Job("a", UnixTime{92} * 86400 + 3600, 10, 1)};
  ASSERT_TRUE(GenerateProjects(quarter, options).ok());
  EXPECT_EQ(GenerateProjects(quarter, options).value().trace_months, 3);
  std::vector<TraceJob> fortnight = {Job("a", 100, 10, 1),
                                     Job("a", 100 + UnixTime{15} * 86400, 10, 1)};
  EXPECT_EQ(GenerateProjects(fortnight, options).value().trace_months, 1);
  std::vector<TraceJob> one = {Job("a", 100, 10, 1)};
  EXPECT_EQ(GenerateProjects(one, options).value().trace_months, 1);
}

TEST(GenerateProjects, JobsWiderThanTheClusterAreNoDemand) {
  std::vector<TraceJob> jobs = {Job("a", 0, 3600, 128), Job("a", 10, 3600, 64)};
  GenerateOptions options;
  options.projects = 1;
  options.start = CivilDate{2027, 3, 1};
  options.max_nodes = 64;
  const Result<GeneratedProjects> generated = GenerateProjects(jobs, options);
  ASSERT_TRUE(generated.ok()) << generated.error();
  EXPECT_EQ(generated.value().projects[0].demand_node_seconds, 64 * 3600);
  EXPECT_EQ(generated.value().projects[0].credit_gpu_hours, 64 * 4 * 6);
}

TEST(GenerateProjects, AccountWidthFollowsTheCount) {
  std::vector<TraceJob> jobs;
  jobs.reserve(120);
  for (int u = 0; u < 120; ++u) {
    jobs.push_back(Job(std::to_string(u), u, 10, 1));
  }
  GenerateOptions options;
  options.projects = 100;
  options.start = CivilDate{2027, 3, 1};
  const Result<GeneratedProjects> generated = GenerateProjects(jobs, options);
  ASSERT_TRUE(generated.ok()) << generated.error();
  EXPECT_EQ(generated.value().projects.front().account, "p001");
  EXPECT_EQ(generated.value().projects.back().account, "p100");
  EXPECT_EQ(generated.value().projects.back().credit_gpu_hours, 1);  // rounded up, at least 1
}

TEST(GenerateProjects, RefusesMoreProjectsThanUsersAndNoJobs) {
  std::vector<TraceJob> jobs = {Job("a", 0, 10, 1), Job("a", 5, 10, 1)};
  GenerateOptions options;
  options.projects = 2;
  options.start = CivilDate{2027, 3, 1};
  const Result<GeneratedProjects> too_many = GenerateProjects(jobs, options);
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.error(), "cannot spread 1 user over 2 projects: at most one project per user");
  std::vector<TraceJob> none;
  options.projects = 1;
  EXPECT_FALSE(GenerateProjects(none, options).ok());
  options.projects = 0;
  EXPECT_FALSE(GenerateProjects(jobs, options).ok());
}

TEST(ShiftTrace, AddsTheOrigin) {
  std::vector<TraceJob> jobs = {Job("a", 0, 10, 1), Job("b", 86400, 10, 1)};
  ShiftTrace(jobs, 1'800'000'000);
  EXPECT_EQ(jobs[0].submit, 1'800'000'000);
  EXPECT_EQ(jobs[1].submit, 1'800'086'400);
}

}  // namespace
}  // namespace budget
