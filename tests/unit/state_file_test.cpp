// Tests of the ledger's state file: format, refusals, and crash-safe save and load
// (state_file.hpp).
#include "budget/state_file.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace budget {
namespace {

namespace fs = std::filesystem;

UnixTime At(int year, int month, int day, std::int64_t hour = 0) {
  return TimeZone::Utc().MidnightOf(CivilDate{year, month, day}) + hour * 3600;
}

ProjectTerms SmallProject(std::string account) {
  Result<ProjectCalendar> calendar = ProjectCalendar::Small(CivilDate{2026, 3, 15}, std::nullopt);
  EXPECT_TRUE(calendar.ok());
  return ProjectTerms{std::move(account), GpuHours(6'000), calendar.value()};
}

// A ledger with every kind of content: several projects and users, odd names,
// carries, preparatory and low usage, closed months and decayed doubles.
Ledger RichLedger() {
  const ProjectTerms chem = SmallProject("chem");
  const ProjectTerms bio = SmallProject("bio-2");
  const PartitionRate gh200{"normal", PartitionRole::kBudgeted, kGh200MilliRate};
  const PartitionRate x86{"x86", PartitionRole::kBudgeted, 333};
  const PartitionRate low{"low", PartitionRole::kLow, 1'250};
  Ledger ledger;
  ledger.DecayTo(At(2026, 3, 20), std::int64_t{7} * 86'400);
  ledger.Accrue(chem, TimeZone::Utc(), "alice", gh200, 4, At(2026, 3, 25), At(2026, 4, 2, 7));
  ledger.Accrue(chem, TimeZone::Utc(), "bob smith", x86, 3, At(2026, 4, 30, 23),
                At(2026, 5, 1, 1) + 17);
  ledger.Accrue(chem, TimeZone::Utc(), "", low, 1, At(2026, 5, 3), At(2026, 5, 3) + 1);
  ledger.Accrue(bio, TimeZone::Utc(), "-", low, 7, At(2026, 4, 3), At(2026, 4, 3) + 1'001);
  ledger.Accrue(bio, TimeZone::Utc(), "d%=é,#x", gh200, 2, At(2026, 4, 3), At(2026, 4, 9));
  ledger.Record("chem", "carol", 2, PartitionRole::kBudgeted, 0);
  ledger.Record("phys", "dave", 0, PartitionRole::kLow, 12'345);
  ledger.DecayTo(At(2026, 5, 9, 13) + 7, std::int64_t{7} * 86'400);
  ledger.CloseMonths({chem, bio}, TimeZone::Utc(), At(2026, 5, 9));
  return ledger;
}

// Appends the checksum line to hand-written content.
std::string Seal(const std::string& content) {
  std::ostringstream hex;
  hex.width(16);
  hex.fill('0');
  hex << std::hex << Fnv1a64(content);
  return content + "checksum fnv1a64 " + hex.str() + "\n";
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A fresh directory per test, removed afterwards.
class StateFileOnDisk : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "ledger-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = dir_ + "/budget.ledger";
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string dir_;
  std::string path_;
};

TEST(Fnv1a64, MatchesTheReferenceValues) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(EncodeLedger, WritesTheDocumentedFormat) {
  Ledger ledger;
  ledger.Record("chem", "alice", 1, PartitionRole::kBudgeted, 3'600);
  ledger.Record("chem", "bob", 0, PartitionRole::kLow, 7);
  const std::string text = EncodeLedger(ledger, 1'777'593'600);
  const std::string expected_records =
      "saved-at 1777593600\n"
      "decayed-at none\n"
      "project chem closed=0 decayed=0 budgeted=0,3600 low=7\n"
      "user chem alice decayed=0 carry=0,0 budgeted=0,3600 low=\n"
      "user chem bob decayed=0 carry=0,0 budgeted= low=7\n";
  EXPECT_EQ(text.rfind("slurm-budget-ledger 1\n", 0), 0U) << text;
  EXPECT_TRUE(Contains(text, expected_records)) << text;
  const std::size_t checksum = text.find("checksum fnv1a64 ");
  ASSERT_NE(checksum, std::string::npos);
  EXPECT_EQ(text.substr(checksum), Seal(text.substr(0, checksum)).substr(checksum));
  EXPECT_EQ(text.size(), checksum + 17 + 16 + 1);
}

TEST(EncodeLedger, EscapesNamesAsDocumented) {
  Ledger ledger;
  ledger.Record("a b", "-", 0, PartitionRole::kLow, 5);
  ledger.Record("a b", "", 1, PartitionRole::kBudgeted, 10);
  const std::string text = EncodeLedger(ledger, -7);
  // A space as %20; no name as "-", so a lone "-" is %2D; users by name.
  const std::string expected_records =
      "saved-at -7\n"
      "decayed-at none\n"
      "project a%20b closed=0 decayed=0 budgeted=0,10 low=5\n"
      "user a%20b - decayed=0 carry=0,0 budgeted=0,10 low=\n"
      "user a%20b %2D decayed=0 carry=0,0 budgeted= low=5\n"
      "checksum fnv1a64 ";
  EXPECT_TRUE(Contains(text, expected_records)) << text;
}

TEST(DecodeLedger, RoundTripIsExact) {
  const Ledger ledger = RichLedger();
  const std::string bytes = EncodeLedger(ledger, 1'777'593'600);
  Result<DecodedLedger> decoded = DecodeLedger(bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.error() << "\n" << bytes;
  EXPECT_EQ(decoded.value().saved_at, 1'777'593'600);
  EXPECT_EQ(decoded.value().ledger, ledger);
  // Exact doubles, carries, odd names: the second encoding is the same bytes.
  EXPECT_EQ(EncodeLedger(decoded.value().ledger, 1'777'593'600), bytes);
  const ProjectUsage& chem = *decoded.value().ledger.Find("chem");
  EXPECT_EQ(chem.users.count(""), 1U);
  EXPECT_EQ(chem.users.count("bob smith"), 1U);
  EXPECT_EQ(decoded.value().ledger.Find("bio-2")->users.count("d%=é,#x"), 1U);
  EXPECT_EQ(decoded.value().ledger.Find("bio-2")->users.count("-"), 1U);
  EXPECT_NE(chem.users.at("bob smith").carry_milli[0], 0);  // the rich ledger does carry
  EXPECT_NE(chem.total.decayed, std::floor(chem.total.decayed));
}

TEST(DecodeLedger, RoundTripsAnEmptyLedger) {
  Result<DecodedLedger> decoded = DecodeLedger(EncodeLedger(Ledger(), -5));
  ASSERT_TRUE(decoded.ok()) << decoded.error();
  EXPECT_EQ(decoded.value().ledger, Ledger());
  EXPECT_EQ(decoded.value().saved_at, -5);
}

TEST(DecodeLedger, RefusesAZeroLengthFile) {
  Result<DecodedLedger> decoded = DecodeLedger("");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error(), "the file is empty (zero length)");
}

TEST(DecodeLedger, RefusesEveryTruncation) {
  const std::string bytes = EncodeLedger(RichLedger(), 1'777'593'600);
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    Result<DecodedLedger> decoded = DecodeLedger(std::string_view{bytes}.substr(0, size));
    ASSERT_FALSE(decoded.ok()) << "accepted the first " << size << " bytes";
    EXPECT_FALSE(decoded.error().empty());
  }
  // Cut after a whole line: the checksum line is missing.
  const std::size_t cut = bytes.find("user ");
  Result<DecodedLedger> decoded = DecodeLedger(std::string_view{bytes}.substr(0, cut));
  ASSERT_FALSE(decoded.ok());
  EXPECT_TRUE(Contains(decoded.error(), "truncated: the file does not end with its checksum line"))
      << decoded.error();
  decoded = DecodeLedger(std::string_view{bytes}.substr(0, bytes.size() - 1));
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error(), "truncated: the last line is cut (no final newline)");
}

TEST(DecodeLedger, RefusesEverySingleBitFlip) {
  const std::string bytes = EncodeLedger(RichLedger(), 1'777'593'600);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (const unsigned bit : {0U, 5U}) {
      std::string flipped = bytes;
      flipped[i] = static_cast<char>(static_cast<unsigned char>(flipped[i]) ^ (1U << bit));
      Result<DecodedLedger> decoded = DecodeLedger(flipped);
      ASSERT_FALSE(decoded.ok()) << "accepted a flip of bit " << bit << " at byte " << i;
    }
  }
  // A flip inside the records is reported as a checksum mismatch.
  std::string flipped = bytes;
  flipped[bytes.find("budgeted=") + 9] ^= 1;
  Result<DecodedLedger> decoded = DecodeLedger(flipped);
  ASSERT_FALSE(decoded.ok());
  EXPECT_TRUE(Contains(decoded.error(), "checksum mismatch")) << decoded.error();
  EXPECT_TRUE(Contains(decoded.error(), "corrupt")) << decoded.error();
}

TEST(DecodeLedger, RefusesAFutureVersionNamingBoth) {
  Result<DecodedLedger> decoded = DecodeLedger(Seal("slurm-budget-ledger 2\nsaved-at 0\n"));
  ASSERT_FALSE(decoded.ok());
  EXPECT_TRUE(
      Contains(decoded.error(), "format version 2 is newer than this build reads (version 1)"))
      << decoded.error();
  decoded = DecodeLedger("slurm-budget-ledger 17\nwhatever the future holds");
  ASSERT_FALSE(decoded.ok());
  EXPECT_TRUE(Contains(decoded.error(), "format version 17")) << decoded.error();
  decoded = DecodeLedger(Seal("slurm-budget-ledger 0\nsaved-at 0\n"));
  ASSERT_FALSE(decoded.ok());
  EXPECT_TRUE(Contains(decoded.error(), "unknown format version \"0\"")) << decoded.error();
}

TEST(DecodeLedger, RefusesAWrongMagic) {
  for (const std::string first : {"slurm-budget-ledgr 1", "Account,User,Month", "", "1",
                                  "slurm-budget-ledger", "slurm-budget-ledger 1 extra"}) {
    Result<DecodedLedger> decoded = DecodeLedger(Seal(first + "\nsaved-at 0\ndecayed-at none\n"));
    ASSERT_FALSE(decoded.ok()) << first;
    EXPECT_TRUE(Contains(decoded.error(), "not a slurm-budget ledger: the first line is \"" +
                                              first + "\", expected \"slurm-budget-ledger 1\""))
        << decoded.error();
  }
}

TEST(DecodeLedger, RefusesMalformedLinesWithTheirNumber) {
  const std::string head = "slurm-budget-ledger 1\nsaved-at 10\ndecayed-at none\n";
  const std::string chem = "project chem closed=0 decayed=0 budgeted=0,5 low=\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {head + "bogus 1\n", "line 4: unknown record \"bogus\""},
      {head + "saved-at 11\n", "line 4: saved-at given twice"},
      {"slurm-budget-ledger 1\nsaved-at soon\n",
       "line 2: saved-at: expected a Unix time, got \"saved-at soon\""},
      {head + "decayed-at 5\n", "line 4: decayed-at given twice"},
      {head + "project chem closed=0 decayed=0 budgeted=0,5\n",
       "line 4: project \"chem\": missing field low"},
      {head + "project chem closed=0 decayed=0 budgeted=0,5 low= color=red\n",
       "line 4: project \"chem\": unknown field \"color\""},
      {head + "project chem closed=x decayed=0 budgeted= low=\n",
       "line 4: project \"chem\": closed: not a whole number: \"x\""},
      {head + "project chem closed=0 decayed=zero budgeted= low=\n",
       "line 4: project \"chem\": decayed: not a number: \"zero\""},
      {head + "project chem closed=0 decayed=0 budgeted=1,,2 low=\n",
       "line 4: project \"chem\": budgeted: not a comma-separated list of GPU-seconds: \"1,,2\""},
      {head + "project chem closed=0 decayed=0 budgeted= low= low=\n",
       "line 4: project \"chem\": field low given twice"},
      {head + "project chem closed=0 decayed=0 budgeted= low= stray\n",
       "line 4: project \"chem\": expected key=value, got \"stray\""},
      {head + chem + chem, "line 5: project \"chem\" given twice"},
      {head + "user chem alice decayed=0 carry=0,0 budgeted=0,5 low=\n",
       "line 4: user \"alice\": project \"chem\" has no project line before it"},
      {head + chem + "user chem alice decayed=0 carry=0 budgeted=0,5 low=\n",
       "line 5: user \"alice\": carry: expected two numbers, got \"0\""},
      {head + chem + "user chem %4 decayed=0 carry=0,0 budgeted=0,5 low=\n",
       "line 5: user: bad %-escape"},
      {head + chem + "user chem alice decayed=0 carry=0,0 budgeted=0,5 low=\n" +
           "user chem alice decayed=0 carry=0,0 budgeted= low=\n",
       "line 6: user \"alice\" of project \"chem\" given twice"},
      {head + chem + "user chem alice decayed=0 carry=0,0 budgeted=0,4 low=\n",
       "inconsistent ledger: project \"chem\": budgeted usage of month 1 is 5 GPU-seconds but its "
       "users sum to 4"},
      {head + chem + "user chem alice decayed=0 carry=1000,0 budgeted=0,5 low=\n",
       "inconsistent ledger: project \"chem\" user \"alice\": carry 1000 thousandths is outside "
       "[0, 1000)"},
      {head + "project chem closed=0 decayed=-1 budgeted= low=\n",
       "inconsistent ledger: project \"chem\": decayed usage must be finite and >= 0"},
      {head + "project chem closed=0 decayed=inf budgeted= low=\n",
       "inconsistent ledger: project \"chem\": decayed usage must be finite and >= 0"},
      {"slurm-budget-ledger 1\nsaved-at 10\n", "no decayed-at line"},
      {"slurm-budget-ledger 1\ndecayed-at 10\n", "no saved-at line"},
  };
  for (const auto& [content, message] : cases) {
    Result<DecodedLedger> decoded = DecodeLedger(Seal(content));
    ASSERT_FALSE(decoded.ok()) << content;
    EXPECT_TRUE(Contains(decoded.error(), message)) << decoded.error() << "\nwanted: " << message;
  }
}

TEST(DecodeLedger, IgnoresCommentsAndBlankLines) {
  Result<DecodedLedger> decoded =
      DecodeLedger(Seal("slurm-budget-ledger 1\n# note\n\nsaved-at 10\ndecayed-at 3\n"
                        "project chem closed=1 decayed=2.5 budgeted=0,5 low=\n"
                        "# the only user\n"
                        "user chem alice decayed=2.5 carry=999,1 budgeted=0,5 low=\n"));
  ASSERT_TRUE(decoded.ok()) << decoded.error();
  EXPECT_EQ(decoded.value().saved_at, 10);
  EXPECT_EQ(decoded.value().ledger.decayed_at(), 3);
  const ProjectUsage& chem = *decoded.value().ledger.Find("chem");
  EXPECT_EQ(chem.closed_months, 1);
  EXPECT_EQ(chem.total.Budgeted(1), 5);
  EXPECT_EQ(chem.users.at("alice").carry_milli[0], 999);
  EXPECT_EQ(chem.users.at("alice").carry_milli[1], 1);
}

TEST_F(StateFileOnDisk, SaveThenLoadGivesTheSameLedger) {
  const Ledger ledger = RichLedger();
  ASSERT_TRUE(SaveLedgerFile(path_, ledger, 1'777'593'600).ok());
  EXPECT_FALSE(fs::exists(path_ + ".new"));
  EXPECT_FALSE(fs::exists(path_ + ".old"));  // nothing to keep on the first save
  EXPECT_EQ(fs::status(path_).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  Result<LoadedLedger> loaded = LoadLedgerFile(path_);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded.value().ledger, ledger);
  EXPECT_EQ(loaded.value().saved_at, 1'777'593'600);
  EXPECT_FALSE(loaded.value().fresh);
  EXPECT_EQ(loaded.value().source, path_);
  EXPECT_TRUE(loaded.value().warnings.empty());
}

// The engine encodes under its mutex and writes after releasing it: the file
// must be the one SaveLedgerFile writes, with the same previous copy kept.
TEST_F(StateFileOnDisk, SavingEncodedBytesIsSavingTheLedger) {
  const Ledger ledger = RichLedger();
  ASSERT_TRUE(SaveLedgerFile(path_, ledger, 1'000).ok());
  const std::string by_ledger = ReadAll(path_);
  ASSERT_TRUE(SaveEncodedLedgerFile(path_, EncodeLedger(ledger, 1'000)).ok());
  EXPECT_EQ(ReadAll(path_), by_ledger);
  EXPECT_EQ(ReadAll(path_ + ".old"), by_ledger);
  EXPECT_FALSE(fs::exists(path_ + ".new"));
  EXPECT_TRUE(SaveEncodedLedgerFile("/dev/null", by_ledger).ok());
}

TEST_F(StateFileOnDisk, SaveKeepsThePreviousCopyAsOld) {
  Ledger first;
  first.Record("chem", "alice", 1, PartitionRole::kBudgeted, 100);
  Ledger second = first;
  second.Record("chem", "alice", 1, PartitionRole::kBudgeted, 50);
  ASSERT_TRUE(SaveLedgerFile(path_, first, 1'000).ok());
  const std::string first_bytes = ReadAll(path_);
  ASSERT_TRUE(SaveLedgerFile(path_, second, 2'000).ok());
  EXPECT_EQ(ReadAll(path_ + ".old"), first_bytes);
  Result<DecodedLedger> current = DecodeLedger(ReadAll(path_));
  ASSERT_TRUE(current.ok());
  EXPECT_EQ(current.value().ledger, second);
  EXPECT_EQ(current.value().saved_at, 2'000);
  ASSERT_TRUE(SaveLedgerFile(path_, second, 3'000).ok());
  Result<DecodedLedger> old = DecodeLedger(ReadAll(path_ + ".old"));
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old.value().saved_at, 2'000);
  EXPECT_FALSE(fs::exists(path_ + ".new"));
  EXPECT_FALSE(fs::exists(path_ + ".old.new"));
}

TEST_F(StateFileOnDisk, CorruptMainCopyLoadsTheOldOneWithAWarning) {
  Ledger first;
  first.Record("chem", "alice", 1, PartitionRole::kBudgeted, 100);
  Ledger second = first;
  second.Record("chem", "bob", 1, PartitionRole::kBudgeted, 50);
  ASSERT_TRUE(SaveLedgerFile(path_, first, 1'777'593'600).ok());
  ASSERT_TRUE(SaveLedgerFile(path_, second, 1'777'600'000).ok());
  std::string bytes = ReadAll(path_);
  bytes[bytes.find("bob") + 1] = 'x';
  WriteAll(path_, bytes);
  Result<LoadedLedger> loaded = LoadLedgerFile(path_);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded.value().ledger, first);
  EXPECT_EQ(loaded.value().source, path_ + ".old");
  EXPECT_FALSE(loaded.value().fresh);
  ASSERT_EQ(loaded.value().warnings.size(), 1U);
  const std::string& warning = loaded.value().warnings[0];
  EXPECT_TRUE(Contains(warning, path_ + " refused: checksum mismatch")) << warning;
  EXPECT_TRUE(Contains(warning, "loaded the previous copy " + path_ + ".old")) << warning;
  EXPECT_TRUE(Contains(warning, "saved at 1777593600 (2026-05-01 00:00:00 UTC)")) << warning;

  // The next save must not let the corrupt file replace the good old copy.
  ASSERT_TRUE(SaveLedgerFile(path_, loaded.value().ledger, 1'777'700'000).ok());
  Result<DecodedLedger> old = DecodeLedger(ReadAll(path_ + ".old"));
  ASSERT_TRUE(old.ok()) << old.error();
  EXPECT_EQ(old.value().saved_at, 1'777'593'600);
}

TEST_F(StateFileOnDisk, TruncatedOrEmptyMainCopyFallsBackToOld) {
  Ledger ledger;
  ledger.Record("chem", "alice", 1, PartitionRole::kBudgeted, 100);
  ASSERT_TRUE(SaveLedgerFile(path_, ledger, 1).ok());
  ASSERT_TRUE(SaveLedgerFile(path_, ledger, 2).ok());
  const std::string bytes = ReadAll(path_);
  for (const std::string& broken : {std::string(), bytes.substr(0, bytes.size() / 2)}) {
    WriteAll(path_, broken);
    Result<LoadedLedger> loaded = LoadLedgerFile(path_);
    ASSERT_TRUE(loaded.ok()) << loaded.error();
    EXPECT_EQ(loaded.value().saved_at, 1);
    ASSERT_EQ(loaded.value().warnings.size(), 1U);
    EXPECT_TRUE(Contains(loaded.value().warnings[0], broken.empty() ? "empty" : "truncated"))
        << loaded.value().warnings[0];
  }
}

TEST_F(StateFileOnDisk, MissingMainCopyLoadsTheOldOneWithAWarning) {
  Ledger ledger;
  ledger.Record("chem", "alice", 1, PartitionRole::kBudgeted, 100);
  ASSERT_TRUE(SaveLedgerFile(path_, Ledger(), 1).ok());
  ASSERT_TRUE(SaveLedgerFile(path_, ledger, 2).ok());
  fs::remove(path_);
  Result<LoadedLedger> loaded = LoadLedgerFile(path_);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_EQ(loaded.value().ledger, Ledger());
  ASSERT_EQ(loaded.value().warnings.size(), 1U);
  EXPECT_TRUE(Contains(loaded.value().warnings[0], path_ + " is missing"))
      << loaded.value().warnings[0];
}

TEST_F(StateFileOnDisk, UnreadableMainCopyFallsBackToOld) {
  ASSERT_TRUE(SaveLedgerFile(path_, Ledger(), 1).ok());
  ASSERT_TRUE(SaveLedgerFile(path_, Ledger(), 2).ok());
  fs::remove(path_);
  fs::create_directory(path_);  // read(2) fails on a directory, even for root
  Result<LoadedLedger> loaded = LoadLedgerFile(path_);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  ASSERT_EQ(loaded.value().warnings.size(), 1U);
  EXPECT_TRUE(Contains(loaded.value().warnings[0], "cannot read " + path_ + ": Is a directory"))
      << loaded.value().warnings[0];
}

TEST_F(StateFileOnDisk, BothCopiesCorruptIsAnError) {
  ASSERT_TRUE(SaveLedgerFile(path_, RichLedger(), 1).ok());
  ASSERT_TRUE(SaveLedgerFile(path_, RichLedger(), 2).ok());
  WriteAll(path_, "");
  std::string old = ReadAll(path_ + ".old");
  old[old.size() / 2] ^= 4;
  WriteAll(path_ + ".old", old);
  Result<LoadedLedger> loaded = LoadLedgerFile(path_);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error(), "cannot load the usage ledger: " + path_ +
                                " refused: the file is empty (zero length); " + path_ +
                                ".old refused: " + DecodeLedger(old).error());
  EXPECT_TRUE(Contains(loaded.error(), "checksum mismatch")) << loaded.error();
}

TEST_F(StateFileOnDisk, CorruptMainWithoutOldIsAnError) {
  WriteAll(path_, "slurm-budget-ledger 9\n");
  Result<LoadedLedger> loaded = LoadLedgerFile(path_);
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.error(), "format version 9 is newer")) << loaded.error();
  EXPECT_TRUE(Contains(loaded.error(), path_ + ".old is missing")) << loaded.error();
}

TEST_F(StateFileOnDisk, NoFileAtAllIsAFreshStart) {
  Result<LoadedLedger> loaded = LoadLedgerFile(path_);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_TRUE(loaded.value().fresh);
  EXPECT_EQ(loaded.value().ledger, Ledger());
  EXPECT_TRUE(loaded.value().warnings.empty());
  EXPECT_EQ(loaded.value().source, "");
}

TEST_F(StateFileOnDisk, ALoneNewFileFromACutFirstSaveIsUsed) {
  Ledger ledger;
  ledger.Record("chem", "alice", 1, PartitionRole::kBudgeted, 100);
  WriteAll(path_ + ".new", EncodeLedger(ledger, 5));
  Result<LoadedLedger> loaded = LoadLedgerFile(path_);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_FALSE(loaded.value().fresh);
  EXPECT_EQ(loaded.value().ledger, ledger);
  EXPECT_EQ(loaded.value().source, path_ + ".new");
  ASSERT_EQ(loaded.value().warnings.size(), 1U);

  WriteAll(path_ + ".new", EncodeLedger(ledger, 5).substr(0, 30));
  loaded = LoadLedgerFile(path_);
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_TRUE(loaded.value().fresh);
  ASSERT_EQ(loaded.value().warnings.size(), 1U);
  EXPECT_TRUE(Contains(loaded.value().warnings[0], "starting with an empty ledger"))
      << loaded.value().warnings[0];
}

TEST_F(StateFileOnDisk, SaveIntoAMissingDirectoryNamesTheFile) {
  const std::string path = dir_ + "/no/such/dir/budget.ledger";
  const Status saved = SaveLedgerFile(path, Ledger(), 1);
  ASSERT_FALSE(saved.ok());
  EXPECT_EQ(saved.error(), "cannot write " + path + ".new: No such file or directory");
}

TEST(StateFileDevNull, SavesNothingAndLoadsFresh) {
  ASSERT_TRUE(SaveLedgerFile("/dev/null", RichLedger(), 1).ok());
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_FALSE(fs::exists("/dev/null.new"));
  EXPECT_FALSE(fs::exists("/dev/null.old"));
  Result<LoadedLedger> loaded = LoadLedgerFile("/dev/null");
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  EXPECT_TRUE(loaded.value().fresh);
  EXPECT_EQ(loaded.value().ledger, Ledger());
}

}  // namespace
}  // namespace budget
