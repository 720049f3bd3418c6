// Project reports from sacct's job records billed as the plugin bills, or from the ledger file.
#include "report_source.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "budget/engine.hpp"
#include "budget/job_records.hpp"
#include "budget/ledger.hpp"
#include "budget/usage_import.hpp"
#include "cli_error.hpp"
#include "instant.hpp"
#include "ledger_file.hpp"
#include "run_command.hpp"

namespace budget::cli {
namespace {

std::vector<ProjectTerms> TermsOf(const std::vector<const ProjectSpec*>& projects) {
  std::vector<ProjectTerms> terms;
  terms.reserve(projects.size());
  for (const ProjectSpec* p : projects) {
    terms.push_back(budget::TermsOf(*p));
  }
  return terms;
}

// Budgeted usage of project months 1..D per account, from billed rows.
std::map<std::string, GpuSeconds> ChargedByAccount(const std::vector<UsageImportRow>& rows,
                                                   const BudgetConfig& config) {
  std::map<std::string, GpuSeconds> charged;
  for (const UsageImportRow& row : rows) {
    const ProjectSpec* p = config.FindProject(row.account);
    if (p != nullptr && row.role == PartitionRole::kBudgeted &&
        p->calendar.MonthAt(row.month) >= 1) {
      charged[row.account] += row.amount;
    }
  }
  return charged;
}

std::vector<ProjectReport> FromSacct(const ReportQuery& q) {
  // From the earliest Created of budget.conf, as `ledger import --from-sacct`
  // does by default: nothing is billed before the first project exists.
  CivilDate first = q.config->projects.front().calendar.created();
  for (const ProjectSpec& p : q.config->projects) {
    first = std::min(first, p.calendar.created());
  }
  std::vector<std::string> accounts;
  for (const ProjectSpec* p : q.projects) {
    accounts.push_back(p->account);
  }
  const UnixTime since = q.zone.MidnightOf(first);
  if (since >= q.now) {
    Fail(fmt::format("--at is before the projects were created ({})", FormatCivilDate(first)));
  }
  const std::string output =
      RunCapturing({"sacct", "-a", "-D", "-X", "-n", "-P", "--noconvert", "-o",
                    std::string(kSacctJobFields), "-S", FormatUtc(since), "-E", FormatUtc(q.now),
                    "-A", fmt::format("{}", fmt::join(accounts, ","))},
                   {"TZ=UTC", "SLURM_TIME_FORMAT=standard"});
  auto jobs = ParseJobRecords(output, "sacct");
  if (!jobs) {
    Fail(jobs.error());
  }
  // sacct -A already keeps to the accounts asked for; a site's wrapper might not.
  std::vector<UsageImportRow> rows;
  for (UsageImportRow& row : BillJobRecords(jobs.value(), *q.config, q.zone, since, q.now)) {
    if (std::find(accounts.begin(), accounts.end(), row.account) != accounts.end()) {
      rows.push_back(std::move(row));
    }
  }
  Ledger ledger;
  const std::vector<ProjectTerms> terms = TermsOf(q.projects);
  if (auto applied = ApplyUsageImport(ledger, terms, rows); !applied) {
    Fail(applied.error());
  }
  ledger.CloseMonths(terms, q.zone, q.now);

  const UnixTime pace_from = std::max(since, q.now - kDefaultPaceWindowSeconds);
  const auto recent = ChargedByAccount(
      BillJobRecords(jobs.value(), *q.config, q.zone, pace_from, q.now), *q.config);
  std::vector<ProjectReport> reports;
  for (const ProjectSpec* p : q.projects) {
    // The window starts at the project's start when that is more recent.
    const UnixTime from = std::max(pace_from, q.zone.MidnightOf(p->calendar.start()));
    const auto found = recent.find(p->account);
    Pace pace;
    if (from < q.now) {
      pace = {found == recent.end() ? 0 : found->second, q.now - from};
    }
    reports.push_back(BuildReport(ledger, *p, q.zone, q.now, pace));
  }
  return reports;
}

std::vector<ProjectReport> FromLedger(const ReportQuery& q) {
  Ledger ledger = ReadLedgerOrFail(q.ledger_path, MissingLedger::kFail);
  ledger.CloseMonths(TermsOf(q.projects), q.zone, q.now);
  std::vector<ProjectReport> reports;
  for (const ProjectSpec* p : q.projects) {
    const ProjectStatus status =
        StatusOf(ledger, {p->account, p->credit, p->calendar}, q.zone, q.now);
    Pace pace;
    if (status.month >= 1 && status.month <= p->calendar.months()) {
      // The ledger keeps months, not instants: the pace is this month's so far.
      pace = {status.used_this_month,
              q.now - q.zone.MidnightOf(p->calendar.MonthStart(status.month))};
    }
    reports.push_back(BuildReport(ledger, *p, q.zone, q.now, pace));
  }
  return reports;
}

}  // namespace

std::vector<ProjectReport> LoadReports(const ReportQuery& query) {
  if (query.projects.empty()) {
    return {};
  }
  return query.ledger_path.empty() ? FromSacct(query) : FromLedger(query);
}

}  // namespace budget::cli
