// Tests of budget.conf parsing: the accepted format, defaults, and every error with its line.
#include "budget/config.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "parse_ok.hpp"

namespace budget {
namespace {

// Plain-gtest stand-ins for gmock's StartsWith and HasSubstr, with the text on failure.
::testing::AssertionResult BeginsWith(const std::string& text, std::string_view prefix) {
  if (text.starts_with(prefix)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "\"" << text << "\" does not begin with \"" << prefix << "\"";
}
::testing::AssertionResult Contains(const std::string& text, std::string_view part) {
  if (text.find(part) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

// Parses `text` as "budget.conf" and returns the error text ("" when it parsed).
std::string ErrorsOf(std::string_view text) {
  const Result<BudgetConfig> r = ParseBudgetConfig(text, "budget.conf");
  return r.ok() ? std::string() : r.error();
}

// Satisfies LowPartition's default once a test declares another partition.
constexpr std::string_view kLowLine = "PartitionName=low Role=low\n";

// A valid small project line, completed by `extra`.
std::string Small(std::string_view extra = "") {
  return "Project=chem01 Kind=small Credit=6000 Created=2026-03-15 PIs=ana.muster@unibe.ch " +
         std::string(extra) + "\n";
}

// A valid large project line, completed by `extra`.
std::string Large(std::string_view extra = "") {
  return "Project=climate Kind=large Credit=500000 Start=2026-07-01 PIs=p.rossi@ethz.ch "
         "StorageTB=50 StorageInodes=20000000 " +
         std::string(extra) + "\n";
}

// `line` with the unquoted value of `key` replaced by `value`.
std::string With(std::string line, std::string_view key, std::string_view value) {
  const std::string needle = " " + std::string(key) + "=";
  const std::size_t at = line.find(needle);
  EXPECT_NE(at, std::string::npos) << key << " not in " << line;
  if (at == std::string::npos) {
    return line;
  }
  const std::size_t begin = at + needle.size();
  line.replace(begin, line.find_first_of(" \n", begin) - begin, value);
  return line;
}

TEST(ParseBudgetConfig, AcceptsAFullFile) {
  const BudgetConfig c = ParseOk(
      "NodeHourPrice=2026:2.69,2027:2.80\n"
      "CreditUsedUp=reject UnbudgetedAccounts=reject LowPartition=spare\n"
      "PartitionName=normal Role=budgeted GpuhPerNodeHour=4\n"
      "PartitionName=x86 GpuhPerNodeHour=0.125\n"
      "PartitionName=spare Role=low\n"
      "Project=chem01 Kind=small Credit=6000 Created=2026-03-15 Start=2026-06-01 "
      "Title=\"Protein folding\" PIs=a.b@unibe.ch,c.d@epfl.ch Deputies=e.f@psi.ch "
      "StorageTB=2.5 StorageInodes=3000000 Fields=\"physics, chemistry\" Price=2.50\n"
      "Project=climate Kind=large Credit=500000 Created=2026-05-04 Start=2027-01-01 "
      "PIs=p.rossi@ethz.ch StorageTB=50 StorageInodes=20000000\n");
  EXPECT_EQ(c.path, "budget.conf");
  EXPECT_EQ(c.node_hour_prices, (std::map<int, Centimes>{{2026, 269}, {2027, 280}}));
  EXPECT_EQ(c.credit_used_up, BudgetConfig::CreditUsedUpAction::kReject);
  EXPECT_EQ(c.unbudgeted_accounts, BudgetConfig::UnbudgetedAction::kReject);
  EXPECT_EQ(c.low_partition, "spare");

  ASSERT_EQ(c.partitions.size(), 3U);
  EXPECT_EQ(c.partitions[0].name, "normal");
  EXPECT_EQ(c.partitions[0].role, PartitionRole::kBudgeted);
  EXPECT_EQ(c.partitions[0].rate, 4000);
  EXPECT_EQ(c.partitions[1].name, "x86");
  EXPECT_EQ(c.partitions[1].rate, 125);
  EXPECT_EQ(c.partitions[2].role, PartitionRole::kLow);

  ASSERT_EQ(c.projects.size(), 2U);
  const ProjectSpec& s = c.projects[0];
  EXPECT_EQ(s.account, "chem01");
  EXPECT_EQ(s.kind, ProjectKind::kSmall);
  EXPECT_EQ(s.credit, GpuHours(6000));
  EXPECT_EQ(s.calendar.kind(), ProjectKind::kSmall);
  EXPECT_EQ(s.calendar.created(), (CivilDate{2026, 3, 15}));
  EXPECT_EQ(s.calendar.start(), (CivilDate{2026, 6, 1}));
  EXPECT_EQ(s.calendar.months(), 6);
  EXPECT_EQ(s.pis, (std::vector<std::string>{"a.b@unibe.ch", "c.d@epfl.ch"}));
  EXPECT_EQ(s.deputies, (std::vector<std::string>{"e.f@psi.ch"}));
  EXPECT_EQ(s.title, "Protein folding");
  EXPECT_DOUBLE_EQ(s.storage_tb, 2.5);
  EXPECT_EQ(s.storage_inodes, 3000000);
  EXPECT_EQ(s.fields, (std::vector<std::string>{"physics", "chemistry"}));
  EXPECT_EQ(s.price_per_node_hour, 250);
  EXPECT_EQ(s.line, 6);

  const ProjectSpec& l = c.projects[1];
  EXPECT_EQ(l.kind, ProjectKind::kLarge);
  EXPECT_EQ(l.credit, GpuHours(500000));
  EXPECT_EQ(l.calendar.start(), (CivilDate{2027, 1, 1}));
  EXPECT_EQ(l.calendar.created(), (CivilDate{2026, 5, 4}));
  EXPECT_EQ(l.calendar.months(), 12);
  EXPECT_TRUE(l.deputies.empty());
  EXPECT_TRUE(l.title.empty());
  EXPECT_EQ(l.price_per_node_hour, 280);  // the 2027 price: the start year's
  EXPECT_EQ(l.line, 7);
}

TEST(ParseBudgetConfig, EmptyFileHasTheDefaults) {
  const BudgetConfig c = ParseOk("");
  EXPECT_TRUE(c.partitions.empty());
  EXPECT_TRUE(c.projects.empty());
  EXPECT_EQ(c.node_hour_prices, (std::map<int, Centimes>{{2026, 269}}));
  EXPECT_EQ(c.credit_used_up, BudgetConfig::CreditUsedUpAction::kRedirect);
  EXPECT_EQ(c.unbudgeted_accounts, BudgetConfig::UnbudgetedAction::kAllow);
  EXPECT_EQ(c.low_partition, "low");
}

TEST(ParseBudgetConfig, PartitionDefaultsToBudgetedAtFourGpuHours) {
  const BudgetConfig c = ParseOk("PartitionName=normal\nPartitionName=low Role=low\n");
  ASSERT_EQ(c.partitions.size(), 2U);
  EXPECT_EQ(c.partitions[0].role, PartitionRole::kBudgeted);
  EXPECT_EQ(c.partitions[0].rate, kGh200MilliRate);
  EXPECT_EQ(c.partitions[1].rate, kGh200MilliRate);
}

TEST(ParseBudgetConfig, SmallProjectDefaults) {
  const BudgetConfig c = ParseOk(Small());
  ASSERT_EQ(c.projects.size(), 1U);
  const ProjectSpec& p = c.projects[0];
  EXPECT_EQ(p.calendar.start(), (CivilDate{2026, 4, 1}));  // 1st of the month after created
  EXPECT_EQ(p.calendar.last_day(), (CivilDate{2026, 9, 30}));
  EXPECT_DOUBLE_EQ(p.storage_tb, 1.0);
  EXPECT_EQ(p.storage_inodes, 1000000);
  EXPECT_EQ(p.price_per_node_hour, 269);  // NodeHourPrice default 2026:2.69
  EXPECT_TRUE(p.deputies.empty());
  EXPECT_TRUE(p.fields.empty());
  EXPECT_TRUE(p.title.empty());
}

TEST(ParseBudgetConfig, LargeProjectWithoutCreatedIsCreatedAtStart) {
  const BudgetConfig c = ParseOk(Large());
  ASSERT_EQ(c.projects.size(), 1U);
  EXPECT_EQ(c.projects[0].calendar.created(), (CivilDate{2026, 7, 1}));
  EXPECT_DOUBLE_EQ(c.projects[0].storage_tb, 50.0);
  EXPECT_EQ(c.projects[0].storage_inodes, 20000000);
}

TEST(ParseBudgetConfig, SmallProjectMayBePostponedThreeMonths) {
  const BudgetConfig c = ParseOk(Small("Start=2026-06-01"));
  EXPECT_EQ(c.projects[0].calendar.start(), (CivilDate{2026, 6, 1}));
}

TEST(ParseBudgetConfig, QuotesHoldBlanksAndHashes) {
  const BudgetConfig c = ParseOk(Small("Title=\"Protein # folding\"  Fields=bio\" and \"chem,x"));
  EXPECT_EQ(c.projects[0].title, "Protein # folding");
  EXPECT_EQ(c.projects[0].fields, (std::vector<std::string>{"bio and chem", "x"}));
}

TEST(ParseBudgetConfig, QuotedEmptyValueIsEmpty) {
  const BudgetConfig c = ParseOk(Small("Title=\"\" Deputies="));
  EXPECT_TRUE(c.projects[0].title.empty());
  EXPECT_TRUE(c.projects[0].deputies.empty());
}

TEST(ParseBudgetConfig, CommentsBlankLinesAndCrLfAreIgnored) {
  const BudgetConfig c = ParseOk(
      "# budget.conf\r\n"
      "\r\n"
      "   \t\n"
      "CreditUsedUp=reject # trailing comment\r\n"
      "PartitionName=low Role=low#glued comment\n" +
      Small("# PIs=x@gmail.com would be refused"));
  EXPECT_EQ(c.credit_used_up, BudgetConfig::CreditUsedUpAction::kReject);
  ASSERT_EQ(c.partitions.size(), 1U);
  EXPECT_EQ(c.partitions[0].role, PartitionRole::kLow);
  ASSERT_EQ(c.projects.size(), 1U);
  EXPECT_EQ(c.projects[0].pis, (std::vector<std::string>{"ana.muster@unibe.ch"}));
  EXPECT_EQ(c.projects[0].line, 6);  // comment and blank lines still count
}

TEST(ParseBudgetConfig, KeysAndEnumerationsAreCaseInsensitive) {
  const BudgetConfig c = ParseOk(
      "nodehourprice=2026:3 CREDITUSEDUP=Reject unbudgetedaccounts=REJECT lowpartition=low\n"
      "partitionname=low ROLE=Low gpuhpernodehour=2\n"
      "project=chem01 KIND=Small credit=6000 CREATED=2026-03-15 pis=ana@unibe.ch "
      "storagetb=3 STORAGEINODES=5 title=x fields=y deputies=b@psi.ch price=1\n");
  EXPECT_EQ(c.node_hour_prices, (std::map<int, Centimes>{{2026, 300}}));
  EXPECT_EQ(c.credit_used_up, BudgetConfig::CreditUsedUpAction::kReject);
  EXPECT_EQ(c.unbudgeted_accounts, BudgetConfig::UnbudgetedAction::kReject);
  EXPECT_EQ(c.partitions[0].role, PartitionRole::kLow);
  EXPECT_EQ(c.partitions[0].rate, 2000);
  const ProjectSpec& p = c.projects[0];
  EXPECT_EQ(p.kind, ProjectKind::kSmall);
  EXPECT_EQ(p.storage_inodes, 5);
  EXPECT_EQ(p.title, "x");
  EXPECT_EQ(p.price_per_node_hour, 100);
}

TEST(ParseBudgetConfig, ValuesAreCaseSensitive) {
  // Account names must be lowercase for Slurm; PIs keep their spelling.
  EXPECT_TRUE(
      BeginsWith(ErrorsOf("Project=Chem01 Kind=small Credit=1 Created=2026-03-15 PIs=a@b.ch\n"),
                 "budget.conf:1: Project: \"Chem01\" is not a valid Slurm account name"));
  const BudgetConfig c = ParseOk(Small("Deputies=Eva.Muster@UniBE.ch"));
  EXPECT_EQ(c.projects[0].deputies[0], "Eva.Muster@UniBE.ch");
}

TEST(ParseBudgetConfig, NodeHourPriceMayFollowTheProjects) {
  const BudgetConfig c = ParseOk(Small() + "NodeHourPrice=2026:3.10\n");
  EXPECT_EQ(c.projects[0].price_per_node_hour, 310);
}

TEST(ParseBudgetConfig, FindsProjectsAndPartitionsByExactName) {
  const BudgetConfig c =
      ParseOk("PartitionName=normal\nPartitionName=low Role=low\n" + Small() + Large());
  ASSERT_NE(c.FindProject("climate"), nullptr);
  EXPECT_EQ(c.FindProject("climate")->kind, ProjectKind::kLarge);
  EXPECT_EQ(c.FindProject("chem01")->line, 3);
  EXPECT_EQ(c.FindProject("Chem01"), nullptr);
  EXPECT_EQ(c.FindProject("chem"), nullptr);
  ASSERT_NE(c.FindPartition("low"), nullptr);
  EXPECT_EQ(c.FindPartition("low")->role, PartitionRole::kLow);
  EXPECT_EQ(c.FindPartition("debug"), nullptr);
}

TEST(ProjectSpec, MonthlyBudgetIsCreditOverMonths) {
  const BudgetConfig c = ParseOk(Small() + Large());
  EXPECT_EQ(c.projects[0].MonthlyBudget(), GpuHours(1000));  // 6,000 / 6
  EXPECT_EQ(c.projects[1].MonthlyBudget(), GpuHours(500000) / 12);
}

TEST(NodeHourPriceFor, ReturnsOnlyTheExactYear) {
  const BudgetConfig c = ParseOk("NodeHourPrice=2026:2.69,2028:2.9\n");
  EXPECT_EQ(NodeHourPriceFor(c, 2026), 269);
  EXPECT_EQ(NodeHourPriceFor(c, 2028), 290);
  EXPECT_EQ(NodeHourPriceFor(c, 2027), std::nullopt);
  EXPECT_EQ(NodeHourPriceFor(c, 2029), std::nullopt);
}

// ------------------------------------------------------------------ errors

TEST(ParseBudgetConfig, CreditMustBeAWholePositiveNumber) {
  for (const char* bad : {"-5", "0", "1.5", "abc", "32,000", "1e4", ""}) {
    EXPECT_EQ(ErrorsOf("\n" + With(Small(), "Credit", bad)),
              std::string("budget.conf:2: Credit: must be a whole positive number of GPU hours, "
                          "got \"") +
                  bad + "\"")
        << bad;
  }
}

TEST(ParseBudgetConfig, CreditHasAnUpperBound) {
  EXPECT_EQ(ErrorsOf(With(Small(), "Credit", "1000000001")),
            "budget.conf:1: Credit: must be at most 1000000000 GPU hours, got \"1000000001\"");
  EXPECT_EQ(ErrorsOf(With(Small(), "Credit", "99999999999999999999999")),
            "budget.conf:1: Credit: must be a whole positive number of GPU hours, got "
            "\"99999999999999999999999\"");
  EXPECT_EQ(ErrorsOf(With(Small(), "Credit", "1000000000")), "");
}

TEST(ParseBudgetConfig, ReportsUnknownKeysWithTheRecordKind) {
  EXPECT_EQ(ErrorsOf(Small("Colour=red")),
            "budget.conf:1: Colour: unknown key on a project line (Project=)");
  EXPECT_EQ(ErrorsOf("PartitionName=normal Credit=4\n" + std::string(kLowLine)),
            "budget.conf:1: Credit: unknown key on a partition line (PartitionName=)");
  EXPECT_EQ(ErrorsOf("\n\nNodeHourPrise=2026:2.69\n"),
            "budget.conf:3: NodeHourPrise: unknown global option");
  EXPECT_EQ(ErrorsOf("Kind=small Project=x\n"),
            "budget.conf:1: Kind: unknown global option (a project key: a project line starts "
            "with Project=)\n"
            "budget.conf:1: Project: unknown global option (a project key: a project line starts "
            "with Project=)");
  EXPECT_EQ(ErrorsOf("Role=low PartitionName=low\n"),
            "budget.conf:1: Role: unknown global option (a partition key: a partition line starts "
            "with PartitionName=)\n"
            "budget.conf:1: PartitionName: unknown global option (a partition key: a partition "
            "line starts with PartitionName=)");
}

TEST(ParseBudgetConfig, RefusesADuplicateProjectNamingTheFirstLine) {
  EXPECT_EQ(ErrorsOf(Small() + "# again\n" + Small()),
            "budget.conf:3: Project: \"chem01\" is already defined on line 1");
}

TEST(ParseBudgetConfig, RefusesADuplicatePartitionNamingTheFirstLine) {
  EXPECT_EQ(ErrorsOf("PartitionName=normal\nPartitionName=low Role=low\n"
                     "PartitionName=normal GpuhPerNodeHour=2\n"),
            "budget.conf:3: PartitionName: \"normal\" is already declared on line 1");
}

TEST(ParseBudgetConfig, RefusesMalformedDates) {
  EXPECT_EQ(ErrorsOf(Small("Start=2026-02-30")),
            "budget.conf:1: Start: must be a date YYYY-MM-DD, got \"2026-02-30\"");
  EXPECT_EQ(ErrorsOf("Project=chem01 Kind=small Credit=1 Created=15.03.2026 PIs=a@unibe.ch\n"),
            "budget.conf:1: Created: must be a date YYYY-MM-DD, got \"15.03.2026\"");
  EXPECT_EQ(ErrorsOf(Large("Created=2026-1-1")),
            "budget.conf:1: Created: must be a date YYYY-MM-DD, got \"2026-1-1\"");
}

TEST(ParseBudgetConfig, RefusesASmallProjectPostponedMoreThanThreeMonths) {
  const std::string errors = ErrorsOf("\n" + Small("Start=2026-07-01"));
  EXPECT_TRUE(BeginsWith(errors, "budget.conf:2: Start: start 2026-07-01 is after 2026-06-01"));
  EXPECT_TRUE(Contains(errors, "postponed at most 3 months"));
  EXPECT_EQ(errors.find('\n'), std::string::npos);
}

TEST(ParseBudgetConfig, RefusesASmallProjectStartingBeforeItsDefault) {
  EXPECT_TRUE(BeginsWith(ErrorsOf(Small("Start=2026-03-01")),
                         "budget.conf:1: Start: start 2026-03-01 is before 2026-04-01"));
}

TEST(ParseBudgetConfig, RefusesALargeProjectNotStartingOnFirstJanuaryOrJuly) {
  EXPECT_TRUE(BeginsWith(ErrorsOf("\n\n" + With(Large(), "Start", "2026-03-01")),
                         "budget.conf:3: Start: start 2026-03-01 must be 1 January or 1 July"));
  EXPECT_TRUE(BeginsWith(ErrorsOf(With(Large(), "Start", "2026-07-02")),
                         "budget.conf:1: Start: start 2026-07-02 must be 1 January or 1 July"));
  EXPECT_EQ(ErrorsOf(With(Large("Price=2.80"), "Start", "2027-01-01")), "");
}

TEST(ParseBudgetConfig, RefusesALargeProjectCreatedAfterItsStart) {
  EXPECT_TRUE(BeginsWith(ErrorsOf(Large("Created=2026-08-01")),
                         "budget.conf:1: Start: created 2026-08-01 is after start 2026-07-01"));
}

TEST(ParseBudgetConfig, RefusesWebmailAddressesForPisAndDeputies) {
  EXPECT_EQ(ErrorsOf("Project=chem01 Kind=small Credit=1 Created=2026-03-15 "
                     "PIs=ok@unibe.ch,someone@gmail.com\n"),
            "budget.conf:1: PIs: \"someone@gmail.com\" is on a generic webmail domain "
            "(gmail.com); an institutional address is required");
  EXPECT_EQ(ErrorsOf(Small("Deputies=d@Yahoo.co.uk")),
            "budget.conf:1: Deputies: \"d@Yahoo.co.uk\" is on a generic webmail domain "
            "(yahoo.*); an institutional address is required");
  EXPECT_EQ(ErrorsOf(Small("Deputies=x@bluewin.ch,y@hotmail.fr")),
            "budget.conf:1: Deputies: \"x@bluewin.ch\" is on a generic webmail domain "
            "(bluewin.ch); an institutional address is required\n"
            "budget.conf:1: Deputies: \"y@hotmail.fr\" is on a generic webmail domain "
            "(hotmail.*); an institutional address is required");
}

TEST(IsWebmailDomain, MatchesTheTableAndItsCountrySuffixes) {
  for (const char* d :
       {"gmail.com",    "GMAIL.COM",      "googlemail.com", "yahoo.com", "yahoo.fr", "yahoo.co.uk",
        "yahoo.com.br", "hotmail.ch",     "outlook.com",    "live.de",   "msn.com",  "aol.com",
        "icloud.com",   "me.com",         "mail.com",       "gmx.net",   "gmx.ch",   "web.de",
        "proton.me",    "protonmail.com", "yandex.ru",      "mail.ru",   "qq.com",   "163.com",
        "zoho.com",     "bluewin.ch"}) {
    EXPECT_TRUE(IsWebmailDomain(d)) << d;
  }
}

TEST(IsWebmailDomain, LeavesInstitutionsAlone) {
  for (const char* d :
       {"unibe.ch", "ethz.ch", "live.unibe.ch", "outlook.epfl.ch", "yahoo", "gmail.com.evil.org",
        "mygmail.com", "email.com", "gmx", "student.ethz.ch", "yahoo.a.b.c"}) {
    EXPECT_FALSE(IsWebmailDomain(d)) << d;
  }
}

TEST(ParseBudgetConfig, RefusesMalformedAddresses) {
  for (const char* bad : {"ana.unibe.ch", "a@unibe", "a@@unibe.ch", "a@b@unibe.ch", ".a@unibe.ch",
                          "a..b@unibe.ch", "a@-unibe.ch", "a@unibe..ch", "a@unibe.c", "a@unibe.1h",
                          "a b@unibe.ch", "@unibe.ch", "a@"}) {
    EXPECT_EQ(ErrorsOf("Project=chem01 Kind=small Credit=1 Created=2026-03-15 PIs=\"" +
                       std::string(bad) + "\"\n"),
              "budget.conf:1: PIs: \"" + std::string(bad) + "\" is not a valid e-mail address")
        << bad;
  }
}

TEST(IsEmailAddress, AcceptsPlainInstitutionalAddresses) {
  for (const char* ok : {"ana@unibe.ch", "Ana.Muster@UniBE.ch", "a+tag@ethz.ch",
                         "first.o'neil@psi.ch", "x_y-z@sub.dept.epfl.ch", "n@a-b.org"}) {
    EXPECT_TRUE(IsEmailAddress(ok)) << ok;
  }
}

TEST(ParseBudgetConfig, RefusesALargeProjectWithoutStorage) {
  EXPECT_EQ(ErrorsOf("Project=climate Kind=large Credit=500000 Start=2026-07-01 "
                     "PIs=p@ethz.ch\n"),
            "budget.conf:1: StorageTB: missing (mandatory for a large project)\n"
            "budget.conf:1: StorageInodes: missing (mandatory for a large project)");
}

TEST(ParseBudgetConfig, RefusesMissingRequiredKeys) {
  EXPECT_EQ(ErrorsOf("Project=chem01\n"),
            "budget.conf:1: Kind: missing (small or large)\n"
            "budget.conf:1: Credit: missing (a whole positive number of GPU hours)\n"
            "budget.conf:1: PIs: missing (at least one institutional e-mail address)");
  EXPECT_EQ(ErrorsOf("Project=chem01 Kind=small Credit=1 PIs=a@unibe.ch\n"),
            "budget.conf:1: Created: missing (required for a small project)");
  EXPECT_EQ(ErrorsOf("Project=c Kind=large Credit=1 PIs=a@unibe.ch StorageTB=1 "
                     "StorageInodes=1\n"),
            "budget.conf:1: Start: missing (required for a large project)");
  EXPECT_EQ(ErrorsOf("Project=chem01 Kind=small Credit=1 Created=2026-03-15 PIs=,\n"),
            "budget.conf:1: PIs: must list at least one e-mail address");
}

TEST(ParseBudgetConfig, RefusesBadKindAndRole) {
  EXPECT_EQ(ErrorsOf("Project=chem01 Kind=medium Credit=1 PIs=a@unibe.ch\n"),
            "budget.conf:1: Kind: must be small or large, got \"medium\"");
  EXPECT_EQ(ErrorsOf("PartitionName=normal Role=premium\n" + std::string(kLowLine)),
            "budget.conf:1: Role: must be budgeted or low, got \"premium\"");
}

TEST(ParseBudgetConfig, RefusesAnUnterminatedQuote) {
  EXPECT_EQ(ErrorsOf("\n" + Small("Title=\"Protein folding # not closed")),
            "budget.conf:2: Title: unterminated quote: a value opened with \" must close on the "
            "same line");
}

TEST(ParseBudgetConfig, RefusesMalformedPairs) {
  EXPECT_EQ(ErrorsOf("CreditUsedUp = reject\n"),
            "budget.conf:1: CreditUsedUp: not a Key=Value pair");
  EXPECT_EQ(ErrorsOf("=x\n"), "budget.conf:1: =x: a pair with no key before '='");
  EXPECT_EQ(ErrorsOf("\"Credit\"=1\n"), "budget.conf:1: \"Credit\"=1: a key cannot be quoted");
}

TEST(ParseBudgetConfig, RefusesAnInvalidSlurmAccountName) {
  for (const char* bad : {"Chem01", "_chem", "-chem", "chem.01", "chem 01", "chém", ""}) {
    EXPECT_EQ(ErrorsOf("Project=\"" + std::string(bad) +
                       "\" Kind=small Credit=1 Created=2026-03-15 PIs=a@unibe.ch\n"),
              "budget.conf:1: Project: \"" + std::string(bad) +
                  "\" is not a valid Slurm account name (lowercase letters, digits, _ and -, "
                  "starting with a letter or digit)")
        << bad;
  }
}

TEST(IsSlurmAccountName, AcceptsLowercaseLettersDigitsUnderscoreAndHyphen) {
  for (const char* ok : {"chem01", "0day", "climate-ml", "mat_sci", "a"}) {
    EXPECT_TRUE(IsSlurmAccountName(ok)) << ok;
  }
}

TEST(ParseBudgetConfig, RefusesAValueGivenTwiceOnOneLine) {
  EXPECT_EQ(ErrorsOf(Small("credit=7000")), "budget.conf:1: Credit: given twice on this line");
  EXPECT_EQ(ErrorsOf("PartitionName=n Role=low ROLE=low\n" + std::string(kLowLine)),
            "budget.conf:1: Role: given twice on this line");
  EXPECT_EQ(ErrorsOf("CreditUsedUp=reject CreditUsedUp=reject\n"),
            "budget.conf:1: CreditUsedUp: given twice on this line");
}

TEST(ParseBudgetConfig, RefusesAGlobalOptionSetOnTwoLines) {
  EXPECT_EQ(ErrorsOf("CreditUsedUp=reject\n\nCreditUsedUp=redirect\n"),
            "budget.conf:3: CreditUsedUp: already set on line 1; set it once");
}

TEST(ParseBudgetConfig, RefusesBadGlobalValues) {
  EXPECT_EQ(ErrorsOf("CreditUsedUp=drop\nUnbudgetedAccounts=maybe\nLowPartition=\n"),
            "budget.conf:1: CreditUsedUp: must be redirect or reject, got \"drop\"\n"
            "budget.conf:2: UnbudgetedAccounts: must be allow or reject, got \"maybe\"\n"
            "budget.conf:3: LowPartition: must name a partition, got \"\"");
}

TEST(ParseBudgetConfig, RefusesMalformedNodeHourPrices) {
  for (const char* bad : {"2026", "2026:", "2026:0", "2026:-1", "2026:2.695", "26:2.69x",
                          "1969:2.69", "2026:2.69;2027:2.80", ""}) {
    EXPECT_EQ(ErrorsOf(std::string("NodeHourPrice=") + bad + "\n"),
              std::string("budget.conf:1: NodeHourPrice: must be YEAR:CHF[,YEAR:CHF...] with a "
                          "price > 0 of at most 2 decimals, got \"") +
                  bad + "\"")
        << bad;
  }
  EXPECT_EQ(ErrorsOf("NodeHourPrice=2026:2.69,2026:2.70\n"),
            "budget.conf:1: NodeHourPrice: year 2026 is given twice");
}

TEST(ParseBudgetConfig, RefusesAProjectStartingInAYearWithoutPrice) {
  EXPECT_EQ(ErrorsOf("NodeHourPrice=2027:2.80\n" + Small()),
            "budget.conf:2: Price: no NodeHourPrice for 2026, the start year; add 2026:CHF to "
            "NodeHourPrice or set Price= on this line");
  // The default covers 2026 only; Price= lifts the requirement.
  EXPECT_TRUE(
      Contains(ErrorsOf(With(Large(), "Start", "2028-01-01")), "no NodeHourPrice for 2028"));
  EXPECT_EQ(ErrorsOf(With(Large("Price=3"), "Start", "2028-01-01")), "");
}

TEST(ParseBudgetConfig, ABrokenNodeHourPriceDoesNotCascadeToProjects) {
  EXPECT_EQ(ErrorsOf("NodeHourPrice=oops\n" + Small()),
            "budget.conf:1: NodeHourPrice: must be YEAR:CHF[,YEAR:CHF...] with a price > 0 of at "
            "most 2 decimals, got \"oops\"");
}

TEST(ParseBudgetConfig, RefusesBadNumbers) {
  EXPECT_EQ(ErrorsOf("PartitionName=n GpuhPerNodeHour=4.0001\n" + std::string(kLowLine)),
            "budget.conf:1: GpuhPerNodeHour: must be a number of GPU hours per node-hour > 0 with "
            "at most 3 decimals, got \"4.0001\"");
  EXPECT_EQ(ErrorsOf("PartitionName=n GpuhPerNodeHour=0\n" + std::string(kLowLine)),
            "budget.conf:1: GpuhPerNodeHour: must be a number of GPU hours per node-hour > 0 with "
            "at most 3 decimals, got \"0\"");
  EXPECT_EQ(ErrorsOf(Small("StorageTB=-1")),
            "budget.conf:1: StorageTB: must be a number of terabytes > 0 with at most 3 decimals, "
            "got \"-1\"");
  EXPECT_EQ(ErrorsOf(Small("StorageInodes=1.5")),
            "budget.conf:1: StorageInodes: must be a whole positive number, got \"1.5\"");
  EXPECT_EQ(ErrorsOf(Small("Price=0")),
            "budget.conf:1: Price: must be CHF per node-hour > 0 with at most 2 decimals, got "
            "\"0\"");
  EXPECT_EQ(ErrorsOf("PartitionName=\"a b\"\n" + std::string(kLowLine)),
            "budget.conf:1: PartitionName: must be a Slurm partition name (no blanks or commas), "
            "got \"a b\"");
}

TEST(ParseBudgetConfig, LowPartitionMustBeDeclaredWithRoleLow) {
  EXPECT_EQ(ErrorsOf("PartitionName=normal\n"),
            "budget.conf:1: LowPartition: \"low\" (the default LowPartition) is not declared; add "
            "PartitionName=low Role=low or name a declared Role=low partition");
  EXPECT_EQ(ErrorsOf("PartitionName=normal\nPartitionName=low Role=low\nLowPartition=normal\n"),
            "budget.conf:3: LowPartition: \"normal\" is declared on line 1 with Role=budgeted; it "
            "must have Role=low");
  EXPECT_EQ(ErrorsOf("LowPartition=spare\nPartitionName=spare Role=low\n"), "");
  // Without any partition line there is nothing to check against.
  EXPECT_EQ(ErrorsOf("LowPartition=spare\n"), "");
}

TEST(ParseBudgetConfig, ReportsEveryErrorInLineOrder) {
  const std::string errors = ErrorsOf(
      "NodeHourPrice=2027:2.80\n"                                           // 1: 2026 has no price
      "PartitionName=normal Role=low\n"                                     // 2
      "Project=a Kind=small Credit=-5 Created=2026-03-15 PIs=a@unibe.ch\n"  // 3
      "Project=b Kind=large Credit=10 Start=2026-07-01 PIs=b@gmail.com StorageTB=1 "
      "StorageInodes=1\n"                                                   // 4
      "Project=c Kind=small Credit=10 Created=2026-03-15 PIs=c@unibe.ch\n"  // 5
      "CreditUsedUp=later\n");                                              // 6
  EXPECT_EQ(errors,
            "budget.conf:2: LowPartition: \"low\" (the default LowPartition) is not declared; add "
            "PartitionName=low Role=low or name a declared Role=low partition\n"
            "budget.conf:3: Credit: must be a whole positive number of GPU hours, got \"-5\"\n"
            "budget.conf:3: Price: no NodeHourPrice for 2026, the start year; add 2026:CHF to "
            "NodeHourPrice or set Price= on this line\n"
            "budget.conf:4: PIs: \"b@gmail.com\" is on a generic webmail domain (gmail.com); an "
            "institutional address is required\n"
            "budget.conf:4: Price: no NodeHourPrice for 2026, the start year; add 2026:CHF to "
            "NodeHourPrice or set Price= on this line\n"
            "budget.conf:5: Price: no NodeHourPrice for 2026, the start year; add 2026:CHF to "
            "NodeHourPrice or set Price= on this line\n"
            "budget.conf:6: CreditUsedUp: must be redirect or reject, got \"later\"");
}

TEST(ParseBudgetConfig, NamesTheFileItWasGiven) {
  const Result<BudgetConfig> r = ParseBudgetConfig("Bogus=1\n", "/etc/slurm/budget.conf");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "/etc/slurm/budget.conf:1: Bogus: unknown global option");
}

// -------------------------------------------------------------------- files

TEST(LoadBudgetConfig, NamesTheFileAndTheReasonWhenItCannotRead) {
  const Result<BudgetConfig> missing = LoadBudgetConfig("/nonexistent/budget.conf");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), "cannot read /nonexistent/budget.conf: No such file or directory");
  const std::string dir = ::testing::TempDir();
  const Result<BudgetConfig> directory = LoadBudgetConfig(dir);
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error(), "cannot read " + dir + ": Is a directory");
}

TEST(LoadBudgetConfig, ReadsAndParsesAFile) {
  const std::filesystem::path path =
      std::filesystem::path(::testing::TempDir()) / "config_test_budget.conf";
  {
    std::ofstream out(path);
    out << "PartitionName=low Role=low\n" << Small() << "Oops=1\n";
  }
  const Result<BudgetConfig> r = LoadBudgetConfig(path.string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), path.string() + ":3: Oops: unknown global option");
  std::filesystem::remove(path);
}

TEST(LoadBudgetConfig, AcceptsTheShippedExample) {
  const Result<BudgetConfig> r =
      LoadBudgetConfig(BUDGET_GOLDEN_DIR "/../../docs/examples/budget.conf");
  ASSERT_TRUE(r.ok()) << r.error();
  const BudgetConfig& c = r.value();
  EXPECT_EQ(c.partitions.size(), 3U);
  ASSERT_EQ(c.projects.size(), 4U);
  EXPECT_EQ(c.FindProject("protfold")->calendar.start(), (CivilDate{2026, 4, 1}));
  EXPECT_EQ(c.FindProject("matsci_2027")->price_per_node_hour, 280);
}

// The text of a file under the source tree, "" if it cannot be read.
std::string SourceFile(const std::string& relative) {
  std::ifstream in(std::string(BUDGET_GOLDEN_DIR "/../../") + relative, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// budget.conf(5) as plain text: groff's \- and \e back to - and \.
std::string UnescapedManPage() {
  const std::string page = SourceFile("docs/budget.conf.5");
  std::string out;
  for (std::size_t i = 0; i < page.size(); ++i) {
    if (page[i] == '\\' && i + 1 < page.size() && (page[i + 1] == '-' || page[i + 1] == 'e')) {
      out += page[i + 1] == '-' ? '-' : '\\';
      ++i;
    } else {
      out += page[i];
    }
  }
  return out;
}

TEST(BudgetConfManPage, ShowsTheShippedExampleVerbatim) {
  const std::string example = SourceFile("docs/examples/budget.conf");
  ASSERT_FALSE(example.empty());
  EXPECT_TRUE(Contains(UnescapedManPage(), example));
}

TEST(BudgetConfManPage, ShowsTheSummaryCheckConfigPrintsForTheExample) {
  std::string summary = SourceFile("tests/cli/cases/check_config_example.stdout");
  ASSERT_FALSE(summary.empty());
  // The CLI case names the file by its path relative to tests/cli; the page by its name.
  const std::string cli_path = "../../docs/examples/budget.conf";
  ASSERT_TRUE(summary.starts_with(cli_path));
  summary.replace(0, cli_path.size(), "budget.conf");
  EXPECT_TRUE(Contains(UnescapedManPage(), summary));
}

}  // namespace
}  // namespace budget
