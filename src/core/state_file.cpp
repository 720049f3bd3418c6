// The ledger's state file: encoding, decoding, and crash-safe save and load.
#include "budget/state_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdio>
#include <initializer_list>
#include <map>
#include <optional>
#include <system_error>
#include <utility>

#include "budget/civil_date.hpp"

namespace budget {
namespace {

constexpr std::string_view kChecksumPrefix = "checksum fnv1a64 ";
constexpr std::size_t kChecksumDigits = 16;

bool IsPlainNameByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '@' || c == '+' || c == ':' || c == '-';
}

// Appends `name` as the file spells it: '-' for none, other bytes than
// IsPlainNameByte's as %XX (a lone "-" too, so that it reads back as itself).
void AppendName(std::string& out, std::string_view name) {
  if (name.empty()) {
    out += '-';
    return;
  }
  if (name == "-") {
    out += "%2D";
    return;
  }
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (const char c : name) {
    if (IsPlainNameByte(c)) {
      out += c;
    } else {
      const auto byte = static_cast<unsigned char>(c);
      out += '%';
      out += kHex[byte >> 4U];
      out += kHex[byte & 0xFU];
    }
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

std::optional<std::string> UnescapeName(std::string_view token) {
  if (token == "-") {
    return std::string();
  }
  std::string out;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] != '%') {
      out.push_back(token[i]);
      continue;
    }
    if (i + 2 >= token.size()) {
      return std::nullopt;
    }
    const int hi = HexValue(token[i + 1]);
    const int lo = HexValue(token[i + 2]);
    if (hi < 0 || lo < 0) {
      return std::nullopt;
    }
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

// The Append* helpers write a field straight into the file's bytes: the
// engine encodes under its mutex, so no field takes a string of its own.
template <typename Number>
void AppendNumber(std::string& out, Number value) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, ec == std::errc() ? end : buffer);
}

void AppendList(std::string& out, const std::vector<GpuSeconds>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i != 0) {
      out += ',';
    }
    AppendNumber(out, values[i]);
  }
}

std::string Hex64(std::uint64_t value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(kChecksumDigits, '0');
  for (std::size_t i = kChecksumDigits; i-- > 0;) {
    out[i] = kHex[value & 0xFU];
    value >>= 4U;
  }
  return out;
}

// A line shown in a message: at most 60 bytes, non-printable bytes as '?'.
std::string Shown(std::string_view line) {
  std::string out;
  for (const char c : line.substr(0, 60)) {
    out.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  }
  if (line.size() > 60) {
    out += "...";
  }
  return "\"" + out + "\"";
}

std::vector<std::string_view> SplitSpaces(std::string_view line) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') {
      ++i;
    }
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ') {
      ++i;
    }
    if (i > start) {
      tokens.push_back(line.substr(start, i - start));
    }
  }
  return tokens;
}

template <typename T>
bool ParseWhole(std::string_view text, T& out) {
  if (text.empty()) {
    return false;
  }
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool ParseList(std::string_view text, std::vector<GpuSeconds>& out) {
  out.clear();
  if (text.empty()) {
    return true;
  }
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    GpuSeconds value = 0;
    if (!ParseWhole(text.substr(start, comma - start), value)) {
      return false;
    }
    out.push_back(value);
    if (comma == std::string_view::npos) {
      return true;
    }
    start = comma + 1;
  }
}

// Splits `key=value` tokens, requiring exactly the keys `wanted`.
Result<std::map<std::string_view, std::string_view>> KeyValues(
    const std::vector<std::string_view>& tokens, std::size_t first,
    std::initializer_list<std::string_view> wanted) {
  std::map<std::string_view, std::string_view> values;
  for (std::size_t i = first; i < tokens.size(); ++i) {
    const std::size_t eq = tokens[i].find('=');
    if (eq == std::string_view::npos) {
      return Error{"expected key=value, got " + Shown(tokens[i])};
    }
    const std::string_view key = tokens[i].substr(0, eq);
    if (std::find(wanted.begin(), wanted.end(), key) == wanted.end()) {
      return Error{"unknown field " + Shown(key)};
    }
    if (!values.emplace(key, tokens[i].substr(eq + 1)).second) {
      return Error{"field " + std::string(key) + " given twice"};
    }
  }
  for (const std::string_view key : wanted) {
    if (values.count(key) == 0) {
      return Error{"missing field " + std::string(key)};
    }
  }
  return values;
}

Status ParseUsageFields(const std::map<std::string_view, std::string_view>& fields, Usage& usage) {
  if (!ParseList(fields.at("budgeted"), usage.budgeted)) {
    return Error{"budgeted: not a comma-separated list of GPU-seconds: " +
                 Shown(fields.at("budgeted"))};
  }
  if (!ParseList(fields.at("low"), usage.low)) {
    return Error{"low: not a comma-separated list of GPU-seconds: " + Shown(fields.at("low"))};
  }
  if (!ParseWhole(fields.at("decayed"), usage.decayed)) {
    return Error{"decayed: not a number: " + Shown(fields.at("decayed"))};
  }
  return Ok();
}

// The checks that need no parsing of the records: magic, version, checksum.
// On success `body` is every line between the first line and the checksum.
Status CheckEnvelope(std::string_view bytes, std::string_view& body) {
  if (bytes.empty()) {
    return Error{"the file is empty (zero length)"};
  }
  const std::size_t first_end = bytes.find('\n');
  const std::string_view first = bytes.substr(0, first_end);
  const std::vector<std::string_view> magic = SplitSpaces(first);
  if (magic.size() != 2 || magic[0] != kLedgerMagic) {
    return Error{"not a slurm-budget ledger: the first line is " + Shown(first) + ", expected \"" +
                 std::string(kLedgerMagic) + " " + std::to_string(kLedgerFormatVersion) + "\""};
  }
  int version = 0;
  if (!ParseWhole(magic[1], version) || version < 1) {
    return Error{"unknown format version " + Shown(magic[1]) + " (this build reads version " +
                 std::to_string(kLedgerFormatVersion) + ")"};
  }
  if (version > kLedgerFormatVersion) {
    return Error{"format version " + std::to_string(version) +
                 " is newer than this build reads (version " +
                 std::to_string(kLedgerFormatVersion) +
                 "): it was written by a newer slurm-budget; upgrade, or load an older copy"};
  }
  if (first_end == std::string_view::npos) {
    return Error{"truncated: the file ends after its first line"};
  }
  if (bytes.back() != '\n') {
    return Error{"truncated: the last line is cut (no final newline)"};
  }
  const std::size_t last_start = bytes.rfind('\n', bytes.size() - 2) + 1;
  const std::string_view last = bytes.substr(last_start, bytes.size() - 1 - last_start);
  if (last_start <= first_end || last.substr(0, kChecksumPrefix.size()) != kChecksumPrefix) {
    return Error{"truncated: the file does not end with its checksum line (last line " +
                 Shown(last) + ")"};
  }
  const std::string_view written = last.substr(kChecksumPrefix.size());
  const std::string computed = Hex64(Fnv1a64(bytes.substr(0, last_start)));
  if (written != computed) {
    return Error{"checksum mismatch: the file says " + Shown(written) +
                 " but its content hashes to " + computed + " (the file is corrupt or was edited)"};
  }
  body = bytes.substr(first_end + 1, last_start - (first_end + 1));
  return Ok();
}

}  // namespace

std::uint64_t Fnv1a64(std::string_view bytes) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::string EncodeLedger(const Ledger& ledger, UnixTime saved_at) {
  std::string out;
  out += kLedgerMagic;
  out += ' ';
  AppendNumber(out, kLedgerFormatVersion);
  out +=
      "\n"
      "# slurm-budget usage ledger. Amounts in GPU-seconds (3600 = 1 GPUh). budgeted= and low=\n"
      "# list usage by project month from month 0 (preparatory); decayed= is fair-share usage;\n"
      "# carry= holds thousandths of a GPU-second not yet charged. Do not edit: the checksum\n"
      "# line refuses any change.\n"
      "saved-at ";
  AppendNumber(out, saved_at);
  out += "\ndecayed-at ";
  if (ledger.decayed_at().has_value()) {
    AppendNumber(out, *ledger.decayed_at());
  } else {
    out += "none";
  }
  out += '\n';
  for (const auto& [account, project] : ledger.projects()) {
    std::string name;  // escaped once, for the project's line and each of its users'
    AppendName(name, account);
    out += "project ";
    out += name;
    out += " closed=";
    AppendNumber(out, project.closed_months);
    out += " decayed=";
    AppendNumber(out, project.total.decayed);
    out += " budgeted=";
    AppendList(out, project.total.budgeted);
    out += " low=";
    AppendList(out, project.total.low);
    out += '\n';
    for (const auto& [user_name, user] : project.users) {
      out += "user ";
      out += name;
      out += ' ';
      AppendName(out, user_name);
      out += " decayed=";
      AppendNumber(out, user.decayed);
      out += " carry=";
      AppendNumber(out, user.carry_milli[0]);
      out += ',';
      AppendNumber(out, user.carry_milli[1]);
      out += " budgeted=";
      AppendList(out, user.budgeted);
      out += " low=";
      AppendList(out, user.low);
      out += '\n';
    }
  }
  const std::string checksum = Hex64(Fnv1a64(out));  // of what precedes its line
  out += kChecksumPrefix;
  out += checksum;
  out += '\n';
  return out;
}

Result<DecodedLedger> DecodeLedger(std::string_view bytes) {
  std::string_view body;
  if (Status envelope = CheckEnvelope(bytes, body); !envelope.ok()) {
    return Error{envelope.error()};
  }
  std::map<std::string, ProjectUsage, std::less<>> projects;
  std::optional<UnixTime> saved_at;
  std::optional<std::optional<UnixTime>> decayed_at;
  int line_number = 1;
  std::size_t pos = 0;
  while (pos < body.size()) {
    const std::size_t end = body.find('\n', pos);
    const std::string_view line = body.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    const auto fail = [&](const std::string& message) -> Result<DecodedLedger> {
      return Error{"line " + std::to_string(line_number) + ": " + message};
    };
    if (line.empty() || line[0] == '#') {
      continue;
    }
    const std::vector<std::string_view> tokens = SplitSpaces(line);
    const std::string_view kind = tokens.empty() ? std::string_view() : tokens[0];
    if (kind == "saved-at" || kind == "decayed-at") {
      UnixTime t = 0;
      const bool none = kind == "decayed-at" && tokens.size() == 2 && tokens[1] == "none";
      if (tokens.size() != 2 || (!none && !ParseWhole(tokens[1], t))) {
        return fail(std::string(kind) + ": expected a Unix time" +
                    (kind == "decayed-at" ? " or none" : "") + ", got " + Shown(line));
      }
      if (kind == "saved-at") {
        if (saved_at.has_value()) {
          return fail("saved-at given twice");
        }
        saved_at = t;
      } else {
        if (decayed_at.has_value()) {
          return fail("decayed-at given twice");
        }
        decayed_at = none ? std::nullopt : std::optional<UnixTime>(t);
      }
    } else if (kind == "project") {
      if (tokens.size() < 2) {
        return fail("project: missing account name");
      }
      const std::optional<std::string> account = UnescapeName(tokens[1]);
      if (!account.has_value()) {
        return fail("project: bad %-escape in " + Shown(tokens[1]));
      }
      auto fields = KeyValues(tokens, 2, {"closed", "decayed", "budgeted", "low"});
      if (!fields.ok()) {
        return fail("project " + Shown(*account) + ": " + fields.error());
      }
      ProjectUsage project;
      if (!ParseWhole(fields.value().at("closed"), project.closed_months)) {
        return fail("project " + Shown(*account) +
                    ": closed: not a whole number: " + Shown(fields.value().at("closed")));
      }
      if (Status s = ParseUsageFields(fields.value(), project.total); !s.ok()) {
        return fail("project " + Shown(*account) + ": " + s.error());
      }
      if (!projects.emplace(*account, std::move(project)).second) {
        return fail("project " + Shown(*account) + " given twice");
      }
    } else if (kind == "user") {
      if (tokens.size() < 3) {
        return fail("user: expected an account and a user name");
      }
      const std::optional<std::string> account = UnescapeName(tokens[1]);
      const std::optional<std::string> name = UnescapeName(tokens[2]);
      if (!account.has_value() || !name.has_value()) {
        return fail("user: bad %-escape in " + Shown(line));
      }
      const auto project = projects.find(*account);
      if (project == projects.end()) {
        return fail("user " + Shown(*name) + ": project " + Shown(*account) +
                    " has no project line before it");
      }
      auto fields = KeyValues(tokens, 3, {"decayed", "carry", "budgeted", "low"});
      if (!fields.ok()) {
        return fail("user " + Shown(*name) + ": " + fields.error());
      }
      UserUsage user;
      if (Status s = ParseUsageFields(fields.value(), user); !s.ok()) {
        return fail("user " + Shown(*name) + ": " + s.error());
      }
      std::vector<GpuSeconds> carry;
      if (!ParseList(fields.value().at("carry"), carry) || carry.size() != 2) {
        return fail("user " + Shown(*name) + ": carry: expected two numbers, got " +
                    Shown(fields.value().at("carry")));
      }
      user.carry_milli = {carry[0], carry[1]};
      if (!project->second.users.emplace(*name, std::move(user)).second) {
        return fail("user " + Shown(*name) + " of project " + Shown(*account) + " given twice");
      }
    } else {
      return fail("unknown record " + Shown(kind));
    }
  }
  if (!saved_at.has_value()) {
    return Error{"no saved-at line"};
  }
  if (!decayed_at.has_value()) {
    return Error{"no decayed-at line"};
  }
  Result<Ledger> ledger = Ledger::Restore(std::move(projects), *decayed_at);
  if (!ledger.ok()) {
    return Error{"inconsistent ledger: " + ledger.error()};
  }
  return DecodedLedger{std::move(ledger).value(), *saved_at};
}

namespace {

std::string SystemError(int error) {
  return std::error_code(error, std::generic_category()).message();
}

// "1777593600 (2026-05-01 00:00:00 UTC)", for messages.
std::string ShownTime(UnixTime t) {
  constexpr UnixTime kDaySeconds = 86'400;
  UnixTime days = t / kDaySeconds;
  UnixTime seconds = t % kDaySeconds;
  if (seconds < 0) {
    seconds += kDaySeconds;
    --days;
  }
  const CivilDate date = CivilFromDays(days);
  char clock[16];
  std::snprintf(clock, sizeof clock, "%02d:%02d:%02d", static_cast<int>(seconds / 3600),
                static_cast<int>(seconds / 60 % 60), static_cast<int>(seconds % 60));
  return std::to_string(t) + " (" + FormatCivilDate(date) + " " + clock + " UTC)";
}

enum class ReadOutcome { kOk, kMissing, kFailed };

struct FileRead {
  ReadOutcome outcome = ReadOutcome::kFailed;
  std::string bytes;
  std::string error;  // when kFailed: "cannot read PATH: reason"
};

FileRead ReadWholeFile(const std::string& path) {
  FileRead result;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    result.outcome = error == ENOENT ? ReadOutcome::kMissing : ReadOutcome::kFailed;
    result.error = "cannot read " + path + ": " + SystemError(error);
    return result;
  }
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      result.error = "cannot read " + path + ": " + SystemError(errno);
      ::close(fd);
      return result;
    }
    if (n == 0) {
      break;
    }
    result.bytes.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  result.outcome = ReadOutcome::kOk;
  return result;
}

// Writes `bytes` to a new file at `path` and fsyncs it; removes it on failure.
Status WriteFileSynced(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Error{"cannot write " + path + ": " + SystemError(errno)};
  }
  const auto fail = [&](int error) -> Status {
    ::close(fd);
    ::unlink(path.c_str());
    return Error{"cannot write " + path + ": " + SystemError(error)};
  };
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      return fail(errno);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    return fail(errno);
  }
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(path.c_str());
    return Error{"cannot write " + path + ": " + SystemError(error)};
  }
  return Ok();
}

std::string DirectoryOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) {
    return ".";
  }
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Makes the renames in `directory` durable.
Status SyncDirectory(const std::string& directory) {
  const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return Error{"cannot open directory " + directory + " to sync it: " + SystemError(errno)};
  }
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (rc != 0) {
    return Error{"cannot sync directory " + directory + ": " + SystemError(error)};
  }
  return Ok();
}

Status Rename(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) {
    const int error = errno;
    ::unlink(from.c_str());
    return Error{"cannot rename " + from + " to " + to + ": " + SystemError(error)};
  }
  return Ok();
}

// Makes the current `path` the new `path.old`, atomically replacing the old
// one. A hard link keeps `path` in place all along; where the file system has
// no hard links, a copy of the bytes already read does the same.
Status KeepPrevious(const std::string& path, std::string_view current_bytes) {
  const std::string old_path = path + ".old";
  const std::string staging = old_path + ".new";
  ::unlink(staging.c_str());
  if (::link(path.c_str(), staging.c_str()) != 0) {
    if (Status copied = WriteFileSynced(staging, current_bytes); !copied.ok()) {
      return copied;
    }
  }
  return Rename(staging, old_path);
}

struct Attempt {
  std::string path;
  bool exists = false;
  std::optional<DecodedLedger> decoded;
  std::string reason;  // why it was refused, when it exists and is not decoded

  std::string Describe() const {
    return exists ? path + " refused: " + reason : path + " is missing";
  }
};

Attempt TryLoad(const std::string& path) {
  Attempt attempt;
  attempt.path = path;
  FileRead read = ReadWholeFile(path);
  if (read.outcome == ReadOutcome::kMissing) {
    return attempt;
  }
  attempt.exists = true;
  if (read.outcome == ReadOutcome::kFailed) {
    attempt.reason = read.error;
    return attempt;
  }
  Result<DecodedLedger> decoded = DecodeLedger(read.bytes);
  if (decoded.ok()) {
    attempt.decoded = std::move(decoded).value();
  } else {
    attempt.reason = decoded.error();
  }
  return attempt;
}

LoadedLedger FromAttempt(Attempt&& attempt) {
  LoadedLedger loaded;
  loaded.ledger = std::move(attempt.decoded->ledger);
  loaded.saved_at = attempt.decoded->saved_at;
  loaded.source = attempt.path;
  return loaded;
}

constexpr std::string_view kNullDevice = "/dev/null";

}  // namespace

Status SaveLedgerFile(const std::string& path, const Ledger& ledger, UnixTime saved_at) {
  if (path == kNullDevice) {
    return Ok();
  }
  return SaveEncodedLedgerFile(path, EncodeLedger(ledger, saved_at));
}

Status SaveEncodedLedgerFile(const std::string& path, const std::string& encoded) {
  if (path == kNullDevice) {
    return Ok();
  }
  const std::string staging = path + ".new";
  if (Status written = WriteFileSynced(staging, encoded); !written.ok()) {
    return written;
  }
  // A current file that is not a valid ledger (corrupt, or another program's)
  // must not replace a good previous copy.
  const FileRead current = ReadWholeFile(path);
  std::string_view body;
  if (current.outcome == ReadOutcome::kOk && CheckEnvelope(current.bytes, body).ok()) {
    if (Status kept = KeepPrevious(path, current.bytes); !kept.ok()) {
      ::unlink(staging.c_str());
      return kept;
    }
  }
  if (Status renamed = Rename(staging, path); !renamed.ok()) {
    return renamed;
  }
  return SyncDirectory(DirectoryOf(path));
}

Result<LoadedLedger> LoadLedgerFile(const std::string& path) {
  if (path == kNullDevice) {
    LoadedLedger loaded;
    loaded.fresh = true;
    return loaded;
  }
  Attempt main = TryLoad(path);
  if (main.decoded.has_value()) {
    return FromAttempt(std::move(main));
  }
  Attempt old = TryLoad(path + ".old");
  if (old.decoded.has_value()) {
    const std::string what = main.Describe();
    LoadedLedger loaded = FromAttempt(std::move(old));
    loaded.warnings.push_back(what + "; loaded the previous copy " + loaded.source + ", saved at " +
                              ShownTime(loaded.saved_at) +
                              ": usage charged after that time is not in the ledger");
    return loaded;
  }
  if (!main.exists && !old.exists) {
    // Only a first save cut before its rename leaves a `.new` alone.
    Attempt staged = TryLoad(path + ".new");
    if (staged.decoded.has_value()) {
      LoadedLedger loaded = FromAttempt(std::move(staged));
      loaded.warnings.push_back("neither " + path + " nor " + path + ".old exists; loaded " +
                                loaded.source + ", saved at " + ShownTime(loaded.saved_at) +
                                " (a save was cut before its rename)");
      return loaded;
    }
    LoadedLedger loaded;
    loaded.fresh = true;
    if (staged.exists) {
      loaded.warnings.push_back("starting with an empty ledger: " + staged.Describe() +
                                " (a first save was cut while writing)");
    }
    return loaded;
  }
  return Error{"cannot load the usage ledger: " + main.Describe() + "; " + old.Describe()};
}

}  // namespace budget
