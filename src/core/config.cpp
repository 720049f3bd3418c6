// budget.conf parser: splits lines into Key=Value pairs, validates each record, then the file.
#include "budget/config.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <string>
#include <utility>

#include "budget/civil_date.hpp"
#include "budget/read_file.hpp"
#include "budget/text.hpp"

namespace budget {
namespace {

// ---------------------------------------------------------------- helpers

char LowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLowerAlpha(char c) { return c >= 'a' && c <= 'z'; }
bool IsAlpha(char c) { return IsLowerAlpha(LowerAscii(c)); }

// Digits with an optional '.' and 1..decimals digits after it ("2.69", "4",
// "0.5"), scaled by 10^decimals. Signs, exponents, separators and overflow give
// nullopt, so "-5", "1e3" and "32,000" are all refused with the same message.
std::optional<std::int64_t> ParseFixed(std::string_view text, int decimals) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  std::int64_t value = 0;
  std::size_t i = 0;
  auto push_digit = [&value](char c) {
    const std::int64_t d = c - '0';
    if (value > (kMax - d) / 10) {
      return false;
    }
    value = value * 10 + d;
    return true;
  };
  while (i < text.size() && IsDigit(text[i])) {
    if (!push_digit(text[i])) {
      return std::nullopt;
    }
    ++i;
  }
  if (i == 0) {
    return std::nullopt;
  }
  int fraction_digits = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && IsDigit(text[i])) {
      if (fraction_digits == decimals || !push_digit(text[i])) {
        return std::nullopt;
      }
      ++fraction_digits;
      ++i;
    }
    if (fraction_digits == 0) {
      return std::nullopt;
    }
  }
  if (i != text.size()) {
    return std::nullopt;
  }
  for (; fraction_digits < decimals; ++fraction_digits) {
    if (value > kMax / 10) {
      return std::nullopt;
    }
    value *= 10;
  }
  return value;
}

// Comma-separated list; items trimmed of blanks, empty items dropped.
std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> items;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    std::size_t end = text.find(',', begin);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view item = text.substr(begin, end - begin);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) {
      item.remove_prefix(1);
    }
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) {
      item.remove_suffix(1);
    }
    if (!item.empty()) {
      items.emplace_back(item);
    }
    begin = end + 1;
  }
  return items;
}

// ------------------------------------------------------- webmail and e-mail

// The generic webmail domains refused for PIs and deputies (policy.md §1).
// "name.*" stands for name followed by a country or generic suffix.
constexpr std::array<std::string_view, 21> kWebmailDomains = {
    "gmail.com", "googlemail.com", "yahoo.*",        "hotmail.*", "outlook.*", "live.*",
    "msn.com",   "aol.com",        "icloud.com",     "me.com",    "mail.com",  "gmx.*",
    "web.de",    "proton.me",      "protonmail.com", "yandex.*",  "mail.ru",   "qq.com",
    "163.com",   "zoho.com",       "bluewin.ch",
};

// One or two labels of 2..3 letters: "fr", "com", "co.uk", "com.br". An
// institution's own domain ("unibe.ch") has a longer label and does not match.
bool IsPublicSuffixLike(std::string_view rest) {
  int labels = 0;
  std::size_t begin = 0;
  while (true) {
    const std::size_t dot = rest.find('.', begin);
    const std::string_view label =
        rest.substr(begin, dot == std::string_view::npos ? std::string_view::npos : dot - begin);
    if (label.size() < 2 || label.size() > 3 || !std::all_of(label.begin(), label.end(), IsAlpha)) {
      return false;
    }
    ++labels;
    if (dot == std::string_view::npos) {
      break;
    }
    begin = dot + 1;
  }
  return labels <= 2;
}

std::optional<std::string_view> MatchWebmail(std::string_view domain) {
  const std::string lower_text = Lower(domain);
  const std::string_view lower = lower_text;
  for (const std::string_view entry : kWebmailDomains) {
    if (entry.ends_with(".*")) {
      const std::string_view stem = entry.substr(0, entry.size() - 1);  // "yahoo."
      if (lower.size() > stem.size() && lower.starts_with(stem) &&
          IsPublicSuffixLike(lower.substr(stem.size()))) {
        return entry;
      }
    } else if (lower == entry) {
      return entry;
    }
  }
  return std::nullopt;
}

bool IsDomainLabel(std::string_view label) {
  if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
    return false;
  }
  return std::all_of(label.begin(), label.end(),
                     [](char c) { return IsAlpha(c) || IsDigit(c) || c == '-'; });
}

// --------------------------------------------------------------- diagnostics

struct Diagnostic {
  int line;
  std::string field;
  std::string message;
};

class Diagnostics {
 public:
  void Add(int line, std::string_view field, std::string message) {
    list_.push_back({line, std::string(field), std::move(message)});
  }
  bool Empty() const { return list_.empty(); }

  // Ordered by line; errors of one line in the order they were found.
  std::string Render(std::string_view file) {
    std::stable_sort(list_.begin(), list_.end(),
                     [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
    std::string out;
    for (const Diagnostic& d : list_) {
      if (!out.empty()) {
        out += '\n';
      }
      out += file;
      out += ':';
      out += std::to_string(d.line);
      out += ": ";
      out += d.field;
      out += ": ";
      out += d.message;
    }
    return out;
  }

 private:
  std::vector<Diagnostic> list_;
};

// ---------------------------------------------------------------- tokenizing

struct Pair {
  std::string key;    // as written
  std::string value;  // quotes removed
};

struct LineError {
  std::string field;
  std::string message;
};

// Splits one line into pairs. Quotes may open and close anywhere in a value,
// as in a shell word, so `Title="Protein folding"` and `Title=Protein" folding"`
// are the same; what matters is that no unquoted blank or '#' ends the value.
std::optional<LineError> Tokenize(std::string_view line, std::vector<Pair>& pairs) {
  std::size_t i = 0;
  const std::size_t n = line.size();
  while (true) {
    while (i < n && (line[i] == ' ' || line[i] == '\t')) {
      ++i;
    }
    if (i == n || line[i] == '#') {
      break;
    }
    const std::size_t token_begin = i;
    std::string word;
    std::optional<std::size_t> eq;  // position of the first unquoted '=' in word
    bool in_quote = false;
    bool quote_in_key = false;
    for (; i < n; ++i) {
      const char c = line[i];
      if (in_quote) {
        if (c == '"') {
          in_quote = false;
        } else {
          word += c;
        }
      } else if (c == ' ' || c == '\t' || c == '#') {
        break;
      } else if (c == '"') {
        in_quote = true;
        if (!eq) {
          quote_in_key = true;
        }
      } else if (c == '=' && !eq) {
        eq = word.size();
      } else {
        word += c;
      }
    }
    const std::string_view token = line.substr(token_begin, i - token_begin);
    if (in_quote) {
      return LineError{eq ? word.substr(0, *eq) : std::string(token),
                       "unterminated quote: a value opened with \" must close on the same line"};
    }
    if (!eq) {
      return LineError{std::string(token), "not a Key=Value pair"};
    }
    if (quote_in_key) {
      return LineError{std::string(token), "a key cannot be quoted"};
    }
    if (*eq == 0) {
      return LineError{std::string(token), "a pair with no key before '='"};
    }
    pairs.push_back({word.substr(0, *eq), word.substr(*eq)});
  }
  return std::nullopt;
}

// -------------------------------------------------------------- record kinds

enum class RecordKind { kGlobal, kPartition, kProject };

constexpr std::array<std::string_view, 4> kGlobalKeys = {"NodeHourPrice", "CreditUsedUp",
                                                         "UnbudgetedAccounts", "LowPartition"};
constexpr std::array<std::string_view, 3> kPartitionKeys = {"PartitionName", "Role",
                                                            "GpuhPerNodeHour"};
constexpr std::array<std::string_view, 12> kProjectKeys = {
    "Project",  "Kind",  "Credit",    "Created",       "Start",  "PIs",
    "Deputies", "Title", "StorageTB", "StorageInodes", "Fields", "Price"};

template <std::size_t N>
std::optional<std::string_view> Canonical(const std::array<std::string_view, N>& keys,
                                          std::string_view key) {
  for (const std::string_view k : keys) {
    if (EqualsIgnoreCase(k, key)) {
      return k;
    }
  }
  return std::nullopt;
}

std::optional<std::string_view> CanonicalFor(RecordKind kind, std::string_view key) {
  switch (kind) {
    case RecordKind::kGlobal:
      return Canonical(kGlobalKeys, key);
    case RecordKind::kPartition:
      return Canonical(kPartitionKeys, key);
    case RecordKind::kProject:
      return Canonical(kProjectKeys, key);
  }
  return std::nullopt;
}

std::string UnknownKeyMessage(RecordKind kind, std::string_view key) {
  switch (kind) {
    case RecordKind::kGlobal:
      if (Canonical(kProjectKeys, key)) {
        return "unknown global option (a project key: a project line starts with Project=)";
      }
      if (Canonical(kPartitionKeys, key)) {
        return "unknown global option (a partition key: a partition line starts with "
               "PartitionName=)";
      }
      return "unknown global option";
    case RecordKind::kPartition:
      return "unknown key on a partition line (PartitionName=)";
    case RecordKind::kProject:
      return "unknown key on a project line (Project=)";
  }
  return "unknown key";
}

// The pairs of one line with known keys, by canonical key, first one kept.
struct Record {
  RecordKind kind;
  int line;
  std::vector<std::pair<std::string_view, std::string>> values;

  bool Has(std::string_view canonical_key) const { return Get(canonical_key) != nullptr; }
  const std::string* Get(std::string_view canonical_key) const {
    for (const auto& [k, v] : values) {
      if (k == canonical_key) {
        return &v;
      }
    }
    return nullptr;
  }
};

// Classifies the line by its first key, reports unknown and repeated keys.
Record BuildRecord(const std::vector<Pair>& pairs, int line, Diagnostics& diags) {
  RecordKind kind = RecordKind::kGlobal;
  if (EqualsIgnoreCase(pairs.front().key, "PartitionName")) {
    kind = RecordKind::kPartition;
  } else if (EqualsIgnoreCase(pairs.front().key, "Project")) {
    kind = RecordKind::kProject;
  }
  Record record{kind, line, {}};
  std::vector<std::string> seen;  // lowercased keys, known or not
  for (const Pair& pair : pairs) {
    const std::string lower = Lower(pair.key);
    const std::optional<std::string_view> canonical = CanonicalFor(kind, pair.key);
    const std::string_view shown = canonical.value_or(pair.key);
    if (std::find(seen.begin(), seen.end(), lower) != seen.end()) {
      diags.Add(line, shown, "given twice on this line");
      continue;
    }
    seen.push_back(lower);
    if (!canonical) {
      diags.Add(line, pair.key, UnknownKeyMessage(kind, pair.key));
      continue;
    }
    record.values.emplace_back(*canonical, pair.value);
  }
  return record;
}

// ------------------------------------------------------------------- parsing

// A project line's values once each passed its own check; cross-field and
// cross-record checks run on these.
struct ProjectDraft {
  std::string account;
  std::optional<ProjectKind> kind;
  std::optional<GpuSeconds> credit;
  std::optional<ProjectCalendar> calendar;
  std::vector<std::string> pis;
  std::vector<std::string> deputies;
  std::string title;
  std::optional<double> storage_tb;
  std::optional<std::int64_t> storage_inodes;
  std::vector<std::string> fields;
  std::optional<Centimes> price;
  int line = 0;
};

struct PartitionSeen {
  int line;
  std::optional<PartitionRole> role;  // nullopt when Role= was invalid
};

class Parser {
 public:
  explicit Parser(std::string_view file_name) { config_.path = std::string(file_name); }

  Result<BudgetConfig> Parse(std::string_view text) {
    LineCursor lines(text);
    while (lines.Next()) {
      ParseLine(lines.line(), lines.number());
    }
    Finish();
    if (!diags_.Empty()) {
      return Error{diags_.Render(config_.path)};
    }
    return std::move(config_);
  }

 private:
  void ParseLine(std::string_view line, int number) {
    std::vector<Pair> pairs;
    if (const std::optional<LineError> error = Tokenize(line, pairs)) {
      diags_.Add(number, error->field, error->message);
      return;
    }
    if (pairs.empty()) {
      return;
    }
    const Record record = BuildRecord(pairs, number, diags_);
    switch (record.kind) {
      case RecordKind::kGlobal:
        ParseGlobal(record);
        break;
      case RecordKind::kPartition:
        ParsePartition(record);
        break;
      case RecordKind::kProject:
        ParseProject(record);
        break;
    }
  }

  // A global option set on two lines would make the file's meaning depend on
  // which one a reader notices first; refuse it rather than let the last win.
  bool FirstTimeSet(const Record& record, std::string_view key) {
    const auto [it, inserted] = global_lines_.emplace(std::string(key), record.line);
    if (!inserted) {
      diags_.Add(record.line, key,
                 "already set on line " + std::to_string(it->second) + "; set it once");
    }
    return inserted;
  }

  void ParseGlobal(const Record& record) {
    if (const std::string* v = record.Get("NodeHourPrice");
        v != nullptr && FirstTimeSet(record, "NodeHourPrice")) {
      ParseNodeHourPrice(*v, record.line);
    }
    if (const std::string* v = record.Get("CreditUsedUp");
        v != nullptr && FirstTimeSet(record, "CreditUsedUp")) {
      if (EqualsIgnoreCase(*v, "redirect")) {
        config_.credit_used_up = BudgetConfig::CreditUsedUpAction::kRedirect;
      } else if (EqualsIgnoreCase(*v, "reject")) {
        config_.credit_used_up = BudgetConfig::CreditUsedUpAction::kReject;
      } else {
        diags_.Add(record.line, "CreditUsedUp", "must be redirect or reject, got " + Quoted(*v));
      }
    }
    if (const std::string* v = record.Get("UnbudgetedAccounts");
        v != nullptr && FirstTimeSet(record, "UnbudgetedAccounts")) {
      if (EqualsIgnoreCase(*v, "allow")) {
        config_.unbudgeted_accounts = BudgetConfig::UnbudgetedAction::kAllow;
      } else if (EqualsIgnoreCase(*v, "reject")) {
        config_.unbudgeted_accounts = BudgetConfig::UnbudgetedAction::kReject;
      } else {
        diags_.Add(record.line, "UnbudgetedAccounts", "must be allow or reject, got " + Quoted(*v));
      }
    }
    if (const std::string* v = record.Get("LowPartition");
        v != nullptr && FirstTimeSet(record, "LowPartition")) {
      if (v->empty()) {
        diags_.Add(record.line, "LowPartition", "must name a partition, got \"\"");
        low_partition_valid_ = false;
      } else {
        config_.low_partition = *v;
        low_partition_line_ = record.line;
      }
    }
  }

  void ParseNodeHourPrice(const std::string& value, int line) {
    std::map<int, Centimes> prices;
    const std::vector<std::string> items = SplitList(value);
    bool ok = !items.empty();
    for (const std::string& item : items) {
      const std::size_t colon = item.find(':');
      if (colon == std::string::npos) {
        ok = false;
        break;
      }
      const std::optional<std::int64_t> year = ParseFixed(item.substr(0, colon), 0);
      const std::optional<std::int64_t> price = ParseFixed(item.substr(colon + 1), 2);
      if (!year || *year < 1970 || *year > 9999 || !price || *price <= 0 ||
          *price > kMaxNodeHourPrice) {
        ok = false;
        break;
      }
      const int valid_year = static_cast<int>(*year);
      if (!prices.emplace(valid_year, *price).second) {
        diags_.Add(line, "NodeHourPrice", "year " + std::to_string(valid_year) + " is given twice");
        prices_valid_ = false;
        return;
      }
    }
    if (!ok) {
      diags_.Add(line, "NodeHourPrice",
                 "must be YEAR:CHF[,YEAR:CHF...] with a price > 0 of at most 2 decimals, got " +
                     Quoted(value));
      prices_valid_ = false;
      return;
    }
    config_.node_hour_prices = std::move(prices);
  }

  void ParsePartition(const Record& record) {
    const int line = record.line;
    bool valid = true;
    const std::string& name = *record.Get("PartitionName");
    if (name.empty() || name.find_first_of(", \t") != std::string::npos) {
      diags_.Add(line, "PartitionName",
                 "must be a Slurm partition name (no blanks or commas), got " + Quoted(name));
      valid = false;
    } else if (const auto it = partition_seen_.find(name); it != partition_seen_.end()) {
      diags_.Add(line, "PartitionName",
                 Quoted(name) + " is already declared on line " + std::to_string(it->second.line));
      valid = false;
    }
    PartitionRate partition;
    partition.name = name;
    std::optional<PartitionRole> role = PartitionRole::kBudgeted;
    if (const std::string* v = record.Get("Role")) {
      if (EqualsIgnoreCase(*v, "budgeted")) {
        role = PartitionRole::kBudgeted;
      } else if (EqualsIgnoreCase(*v, "low")) {
        role = PartitionRole::kLow;
      } else {
        diags_.Add(line, "Role", "must be budgeted or low, got " + Quoted(*v));
        role = std::nullopt;
        valid = false;
      }
    }
    if (role) {
      partition.role = *role;
    }
    if (const std::string* v = record.Get("GpuhPerNodeHour")) {
      const std::optional<std::int64_t> rate = ParseFixed(*v, 3);
      if (!rate || *rate <= 0 || *rate > kMaxMilliRate) {
        diags_.Add(line, "GpuhPerNodeHour",
                   "must be a number of GPU hours per node-hour > 0 with at most 3 decimals, got " +
                       Quoted(*v));
        valid = false;
      } else {
        partition.rate = *rate;
      }
    }
    if (!name.empty()) {
      partition_seen_.emplace(name, PartitionSeen{line, role});
    }
    if (!partition_line_) {
      partition_line_ = line;
    }
    if (valid) {
      config_.partitions.push_back(std::move(partition));
    }
  }

  void Fail(const ProjectDraft& draft, std::string_view field, std::string message) {
    diags_.Add(draft.line, field, std::move(message));
  }

  std::optional<CivilDate> ParseDate(const ProjectDraft& draft, const Record& record,
                                     std::string_view key) {
    const std::string* v = record.Get(key);
    if (v == nullptr) {
      return std::nullopt;
    }
    std::optional<CivilDate> date = ParseCivilDate(*v);
    if (!date) {
      Fail(draft, key, "must be a date YYYY-MM-DD, got " + Quoted(*v));
    }
    return date;
  }

  std::vector<std::string> ParseAddresses(const ProjectDraft& draft, const std::string& value,
                                          std::string_view key) {
    std::vector<std::string> addresses = SplitList(value);
    for (const std::string& address : addresses) {
      if (!IsEmailAddress(address)) {
        Fail(draft, key, Quoted(address) + " is not a valid e-mail address");
      } else if (const auto entry = MatchWebmail(address.substr(address.rfind('@') + 1))) {
        Fail(draft, key,
             Quoted(address) + " is on a generic webmail domain (" + std::string(*entry) +
                 "); an institutional address is required");
      }
    }
    return addresses;
  }

  void ParseProject(const Record& record) {
    ProjectDraft draft;
    draft.line = record.line;
    const std::string& account = *record.Get("Project");
    draft.account = account;
    if (!IsSlurmAccountName(account)) {
      Fail(draft, "Project",
           Quoted(account) +
               " is not a valid Slurm account name (lowercase letters, digits, _ and -, "
               "starting with a letter or digit)");
    } else if (const auto it = project_lines_.find(account); it != project_lines_.end()) {
      Fail(draft, "Project",
           Quoted(account) + " is already defined on line " + std::to_string(it->second));
    } else {
      project_lines_.emplace(account, draft.line);
    }

    if (const std::string* v = record.Get("Kind")) {
      if (EqualsIgnoreCase(*v, "small")) {
        draft.kind = ProjectKind::kSmall;
      } else if (EqualsIgnoreCase(*v, "large")) {
        draft.kind = ProjectKind::kLarge;
      } else {
        Fail(draft, "Kind", "must be small or large, got " + Quoted(*v));
      }
    } else {
      Fail(draft, "Kind", "missing (small or large)");
    }

    if (const std::string* v = record.Get("Credit")) {
      const std::optional<std::int64_t> gpuh = ParseFixed(*v, 0);
      if (!gpuh || *gpuh <= 0) {
        Fail(draft, "Credit", "must be a whole positive number of GPU hours, got " + Quoted(*v));
      } else if (*gpuh > kMaxCreditGpuHours) {
        Fail(draft, "Credit",
             "must be at most " + std::to_string(kMaxCreditGpuHours) + " GPU hours, got " +
                 Quoted(*v));
      } else {
        draft.credit = GpuHours(*gpuh);
      }
    } else {
      Fail(draft, "Credit", "missing (a whole positive number of GPU hours)");
    }

    const bool has_created = record.Has("Created");
    const bool has_start = record.Has("Start");
    const std::optional<CivilDate> created = ParseDate(draft, record, "Created");
    const std::optional<CivilDate> start = ParseDate(draft, record, "Start");
    if (draft.kind == ProjectKind::kSmall) {
      if (!has_created) {
        Fail(draft, "Created", "missing (required for a small project)");
      } else if (created && (start || !has_start)) {
        SetCalendar(draft, ProjectCalendar::Small(*created, start));
      }
    } else if (draft.kind == ProjectKind::kLarge) {
      if (!has_start) {
        Fail(draft, "Start", "missing (required for a large project)");
      } else if (start && (created || !has_created)) {
        SetCalendar(draft, ProjectCalendar::Large(*start, created));
      }
    }

    if (const std::string* v = record.Get("PIs")) {
      draft.pis = ParseAddresses(draft, *v, "PIs");
      if (draft.pis.empty()) {
        Fail(draft, "PIs", "must list at least one e-mail address");
      }
    } else {
      Fail(draft, "PIs", "missing (at least one institutional e-mail address)");
    }
    if (const std::string* v = record.Get("Deputies")) {
      draft.deputies = ParseAddresses(draft, *v, "Deputies");
    }
    if (const std::string* v = record.Get("Title")) {
      draft.title = *v;
    }

    if (const std::string* v = record.Get("StorageTB")) {
      const std::optional<std::int64_t> milli_tb = ParseFixed(*v, 3);
      if (!milli_tb || *milli_tb <= 0) {
        Fail(draft, "StorageTB",
             "must be a number of terabytes > 0 with at most 3 decimals, got " + Quoted(*v));
      } else {
        draft.storage_tb = static_cast<double>(*milli_tb) / 1000.0;
      }
    } else if (draft.kind == ProjectKind::kLarge) {
      Fail(draft, "StorageTB", "missing (mandatory for a large project)");
    }
    if (const std::string* v = record.Get("StorageInodes")) {
      const std::optional<std::int64_t> inodes = ParseFixed(*v, 0);
      if (!inodes || *inodes <= 0) {
        Fail(draft, "StorageInodes", "must be a whole positive number, got " + Quoted(*v));
      } else {
        draft.storage_inodes = *inodes;
      }
    } else if (draft.kind == ProjectKind::kLarge) {
      Fail(draft, "StorageInodes", "missing (mandatory for a large project)");
    }

    if (const std::string* v = record.Get("Fields")) {
      draft.fields = SplitList(*v);
    }
    if (const std::string* v = record.Get("Price")) {
      const std::optional<std::int64_t> price = ParseFixed(*v, 2);
      if (!price || *price <= 0 || *price > kMaxNodeHourPrice) {
        Fail(draft, "Price",
             "must be CHF per node-hour > 0 with at most 2 decimals, got " + Quoted(*v));
      } else {
        draft.price = *price;
      }
    }
    drafts_.push_back(std::move(draft));
  }

  // The calendar owns the start rules (policy.md §1); its message is kept
  // whole and labelled with the field the admin has to change.
  void SetCalendar(ProjectDraft& draft, Result<ProjectCalendar> calendar) {
    if (calendar.ok()) {
      draft.calendar = std::move(calendar).value();
    } else {
      Fail(draft, "Start", calendar.error());
    }
  }

  // Checks that need the whole file: prices (NodeHourPrice may come after the
  // projects) and the low partition.
  void Finish() {
    for (ProjectDraft& draft : drafts_) {
      if (!draft.calendar || draft.price) {
        continue;
      }
      const int year = draft.calendar->start().year;
      if (const std::optional<Centimes> price = NodeHourPriceFor(config_, year)) {
        draft.price = *price;
      } else if (prices_valid_) {
        Fail(draft, "Price",
             "no NodeHourPrice for " + std::to_string(year) + ", the start year; add " +
                 std::to_string(year) + ":CHF to NodeHourPrice or set Price= on this line");
      }
    }
    CheckLowPartition();
    if (!diags_.Empty()) {
      return;
    }
    for (ProjectDraft& d : drafts_) {
      const bool small = d.kind == ProjectKind::kSmall;
      config_.projects.push_back(ProjectSpec{
          .account = std::move(d.account),
          .kind = *d.kind,
          .credit = *d.credit,
          .calendar = *d.calendar,
          .pis = std::move(d.pis),
          .deputies = std::move(d.deputies),
          .title = std::move(d.title),
          .storage_tb = d.storage_tb.value_or(small ? kDefaultSmallStorageTb : 0.0),
          .storage_inodes = d.storage_inodes.value_or(small ? kDefaultSmallStorageInodes : 0),
          .fields = std::move(d.fields),
          .price_per_node_hour = *d.price,
          .line = d.line,
      });
    }
  }

  // Once partitions are declared, the one jobs are redirected to must be one
  // of them and billed as low, or low use could not be capped (policy.md §4).
  void CheckLowPartition() {
    if (!partition_line_ || !low_partition_valid_) {
      return;
    }
    const std::string& name = config_.low_partition;
    const int line = low_partition_line_ ? *low_partition_line_ : *partition_line_;
    const std::string shown =
        Quoted(name) + (low_partition_line_ ? "" : " (the default LowPartition)");
    const auto it = partition_seen_.find(name);
    if (it == partition_seen_.end()) {
      diags_.Add(line, "LowPartition",
                 shown + " is not declared; add PartitionName=" + name +
                     " Role=low or name a declared Role=low partition");
    } else if (it->second.role == PartitionRole::kBudgeted) {
      diags_.Add(line, "LowPartition",
                 shown + " is declared on line " + std::to_string(it->second.line) +
                     " with Role=budgeted; it must have Role=low");
    }
  }

  BudgetConfig config_;
  Diagnostics diags_;
  std::vector<ProjectDraft> drafts_;
  std::map<std::string, int> global_lines_;   // option -> line it was set on
  std::map<std::string, int> project_lines_;  // account -> line of definition
  std::map<std::string, PartitionSeen> partition_seen_;
  std::optional<int> partition_line_;      // first PartitionName= line
  std::optional<int> low_partition_line_;  // the LowPartition= line, if any
  bool prices_valid_ = true;
  bool low_partition_valid_ = true;
};

}  // namespace

std::optional<Centimes> NodeHourPriceFor(const BudgetConfig& config, int year) {
  const auto it = config.node_hour_prices.find(year);
  if (it == config.node_hour_prices.end()) {
    return std::nullopt;
  }
  return it->second;
}

Result<BudgetConfig> ParseBudgetConfig(std::string_view text, std::string_view file_name) {
  return Parser(file_name).Parse(text);
}

Result<BudgetConfig> LoadBudgetConfig(const std::string& path) {
  const Result<std::string> text = ReadTextFile(path);
  if (!text) {
    return Error{text.error()};
  }
  return ParseBudgetConfig(text.value(), path);
}

bool IsSlurmAccountName(std::string_view name) {
  if (name.empty() || !(IsLowerAlpha(name.front()) || IsDigit(name.front()))) {
    return false;
  }
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return IsLowerAlpha(c) || IsDigit(c) || c == '_' || c == '-'; });
}

bool IsEmailAddress(std::string_view address) {
  const std::size_t at = address.find('@');
  if (at == std::string_view::npos || address.find('@', at + 1) != std::string_view::npos) {
    return false;
  }
  const std::string_view local = address.substr(0, at);
  const std::string_view domain = address.substr(at + 1);
  constexpr std::string_view kLocalSpecials = "!#$%&'*+/=?^_`{|}~.-";
  if (local.empty() || local.size() > 64 || local.front() == '.' || local.back() == '.' ||
      local.find("..") != std::string_view::npos) {
    return false;
  }
  if (!std::all_of(local.begin(), local.end(), [&kLocalSpecials](char c) {
        return IsAlpha(c) || IsDigit(c) || kLocalSpecials.find(c) != std::string_view::npos;
      })) {
    return false;
  }
  if (domain.size() > 253) {
    return false;
  }
  std::size_t begin = 0;
  int labels = 0;
  std::string_view last;
  while (true) {
    const std::size_t dot = domain.find('.', begin);
    last =
        domain.substr(begin, dot == std::string_view::npos ? std::string_view::npos : dot - begin);
    if (!IsDomainLabel(last)) {
      return false;
    }
    ++labels;
    if (dot == std::string_view::npos) {
      break;
    }
    begin = dot + 1;
  }
  return labels >= 2 && last.size() >= 2 && std::all_of(last.begin(), last.end(), IsAlpha);
}

bool IsWebmailDomain(std::string_view domain) { return MatchWebmail(domain).has_value(); }

}  // namespace budget
