// The worked examples of policy.md §6, read from the tables under tests/golden/.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "budget/billing.hpp"
#include "budget/calendar.hpp"
#include "budget/civil_date.hpp"
#include "budget/schedule.hpp"
#include "budget/units.hpp"

namespace budget {
namespace {

// One data row: column name -> text. `case` names the row.
using Row = std::map<std::string, std::string>;

std::vector<std::string> Split(const std::string& line, char sep) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, sep)) {
    fields.push_back(field);
  }
  if (!line.empty() && line.back() == sep) {
    fields.emplace_back();
  }
  return fields;
}

// Reads tests/golden/<name>: '#' lines are comments, the first other line
// names the columns. Returns no rows if the file is missing or malformed, which
// the RowCounts test reports.
std::vector<Row> ReadTable(const std::string& name) {
  std::ifstream in(std::string(BUDGET_GOLDEN_DIR) + "/" + name);
  std::vector<Row> rows;
  std::vector<std::string> columns;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    const std::vector<std::string> fields = Split(line, ',');
    if (columns.empty()) {
      columns = fields;
      continue;
    }
    if (fields.size() != columns.size()) {
      return {};
    }
    Row row;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      row[columns[i]] = fields[i];
    }
    rows.push_back(row);
  }
  return rows;
}

// "keeps-up-m1" -> "KeepsUpM1": a test name GoogleTest accepts.
std::string CaseName(const ::testing::TestParamInfo<Row>& info) {
  std::string name;
  bool upper = true;
  for (const char c : info.param.at("case")) {
    if (c == '-') {
      upper = true;
      continue;
    }
    name.push_back(upper && c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c);
    upper = false;
  }
  return name;
}

GpuSeconds Hours(const std::string& text) { return GpuHours(std::stoll(text)); }

TEST(GoldenTables, HoldEveryWorkedExample) {
  EXPECT_EQ(ReadTable("grace.csv").size(), 6U);
  EXPECT_EQ(ReadTable("schedule.csv").size(), 8U);
  EXPECT_EQ(ReadTable("dates.csv").size(), 3U);
  EXPECT_EQ(ReadTable("billing.csv").size(), 1U);
}

class GraceGolden : public ::testing::TestWithParam<Row> {};

TEST_P(GraceGolden, MatchesThePolicy) {
  const Row& row = GetParam();
  const Grace g = GraceFor(Hours(row.at("credit_gpuh")));
  EXPECT_EQ(g.numerator, std::stoll(row.at("numerator")));
  EXPECT_EQ(g.denominator, std::stoll(row.at("denominator")));
  char percent[16];
  std::snprintf(percent, sizeof percent, "%.1f", g.Percent());
  EXPECT_EQ(percent, row.at("percent"));
}

INSTANTIATE_TEST_SUITE_P(Policy, GraceGolden, ::testing::ValuesIn(ReadTable("grace.csv")),
                         CaseName);

class ScheduleGolden : public ::testing::TestWithParam<Row> {};

TEST_P(ScheduleGolden, MatchesThePolicy) {
  const Row& row = GetParam();
  Schedule s(Hours(row.at("credit_gpuh")), std::stoi(row.at("months")));
  for (const std::string& used : Split(row.at("usage"), ' ')) {
    ASSERT_TRUE(s.Close(s.closed_months() + 1, Hours(used)).ok());
  }
  const int month = std::stoi(row.at("month"));
  ASSERT_LE(month, s.closed_months() + 1) << "the row must be a closed or the open month";
  const bool open = month == s.closed_months() + 1;
  const MonthRow r = open ? s.Open() : s.closed()[static_cast<std::size_t>(month - 1)];
  EXPECT_EQ(r.month, month);
  EXPECT_EQ(r.accounted_before, Hours(row.at("accounted_before")));
  EXPECT_EQ(r.ideal, Hours(row.at("ideal")));
  EXPECT_EQ(r.expected, Hours(row.at("expected")));
  if (row.at("minimal") == "none") {
    EXPECT_FALSE(r.has_minimal);
    EXPECT_EQ(r.minimal, 0);
  } else {
    EXPECT_TRUE(r.has_minimal);
    EXPECT_EQ(r.minimal, Hours(row.at("minimal")));
  }
  EXPECT_EQ(r.closed, !open);
  if (open) {
    EXPECT_EQ(row.at("used"), "");
    EXPECT_EQ(row.at("lost"), "");
    EXPECT_EQ(row.at("graced"), "");
  } else {
    EXPECT_EQ(r.used, Hours(row.at("used")));
    EXPECT_EQ(r.lost, Hours(row.at("lost")));
    EXPECT_EQ(r.graced, Hours(row.at("graced")));
  }
  EXPECT_EQ(s.credit(), s.accounted() + s.remaining());
}

INSTANTIATE_TEST_SUITE_P(Policy, ScheduleGolden, ::testing::ValuesIn(ReadTable("schedule.csv")),
                         CaseName);

class DatesGolden : public ::testing::TestWithParam<Row> {};

TEST_P(DatesGolden, MatchesThePolicy) {
  const Row& row = GetParam();
  const std::optional<CivilDate> created = ParseCivilDate(row.at("created"));
  ASSERT_TRUE(created.has_value());
  std::optional<CivilDate> requested;
  if (!row.at("requested_start").empty()) {
    requested = ParseCivilDate(row.at("requested_start"));
    ASSERT_TRUE(requested.has_value());
  }
  const auto cal = ProjectCalendar::Small(*created, requested);
  if (row.at("start") == "refused") {
    EXPECT_FALSE(cal.ok());
    return;
  }
  ASSERT_TRUE(cal.ok()) << cal.error();
  EXPECT_EQ(FormatCivilDate(cal.value().start()), row.at("start"));
  EXPECT_EQ(FormatCivilDate(cal.value().last_day()), row.at("last_day"));
}

INSTANTIATE_TEST_SUITE_P(Policy, DatesGolden, ::testing::ValuesIn(ReadTable("dates.csv")),
                         CaseName);

class BillingGolden : public ::testing::TestWithParam<Row> {};

TEST_P(BillingGolden, MatchesThePolicy) {
  const Row& row = GetParam();
  const std::int64_t node_seconds =
      std::stoll(row.at("hours")) * 3600 * std::stoll(row.at("nodes"));
  const MilliRate rate = std::stoll(row.at("rate_milli"));
  const GpuSeconds usage = Bill(node_seconds, rate);
  EXPECT_EQ(usage, Hours(row.at("gpuh")));
  EXPECT_EQ(FormatChf(ChfOf(usage, std::stoll(row.at("price_centimes")), rate)), row.at("chf"));
}

INSTANTIATE_TEST_SUITE_P(Policy, BillingGolden, ::testing::ValuesIn(ReadTable("billing.csv")),
                         CaseName);

}  // namespace
}  // namespace budget
