// slurm.conf with its Include lines followed, and what sbudget reads in it: a key's value,
// the partitions.
#include "slurm_conf_text.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <utility>

#include "budget/read_file.hpp"
#include "budget/text.hpp"

namespace budget::cli {

namespace {

// parse_config.c sets no bound, so a file that includes itself never ends there; sites nest
// one or two levels.
constexpr int kMaxIncludeDepth = 16;

constexpr std::string_view kInclude = "include";

// `text` up to its first blank: a value, or a file name, as slurm.conf ends them.
std::string_view FirstWord(std::string_view text) {
  return text.substr(0, text.find_first_of(" \t"));
}

// What follows "Include" and a blank when `line` starts so, in any case; nullopt otherwise.
std::optional<std::string_view> AfterInclude(std::string_view line) {
  if (line.size() <= kInclude.size() ||
      !EqualsIgnoreCase(line.substr(0, kInclude.size()), kInclude) ||
      (line[kInclude.size()] != ' ' && line[kInclude.size()] != '\t')) {
    return std::nullopt;
  }
  return Trim(line.substr(kInclude.size()));
}

// An Include line as parse_config.c's _parse_include_directive reads it: "Include" at the very
// start of the line, then one file name. What else slurmctld refuses there (blanks before
// "Include" make the line a key without '='; a second word is text left over) is an error here
// too, so that sbudget never reads a slurm.conf slurmctld would not start with.
struct IncludeLine {
  std::string_view file;  // empty: not an Include line
  std::string_view error;
};

IncludeLine ReadIncludeLine(std::string_view line) {
  const std::optional<std::string_view> after = AfterInclude(line);
  if (!after) {
    if (AfterInclude(Trim(line))) {
      return {{}, "blanks before Include (slurmctld refuses the line: a parse error)"};
    }
    return {};
  }
  if (after->empty()) {
    return {{}, "no file name after Include"};
  }
  const std::string_view file = FirstWord(*after);
  if (file.size() != after->size()) {
    return {{}, "more than one word after Include (slurmctld refuses the line: a parse error)"};
  }
  return {file, {}};
}

// `name` with each %c replaced by the cluster's name in lower case.
std::string WithClusterName(std::string_view name, std::string_view cluster) {
  std::string out;
  for (std::size_t at = 0; at < name.size(); ++at) {
    if (name.substr(at, 2) == "%c") {
      out += Lower(cluster);
      ++at;
    } else {
      out += name[at];
    }
  }
  return out;
}

// `name` as Slurm opens it: absolute, or beside `including_file`.
std::string BesideIncluding(const std::string& name, const std::string& including_file) {
  if (name.front() == '/') {
    return name;
  }
  const std::size_t slash = including_file.rfind('/');
  return (slash == std::string::npos ? std::string() : including_file.substr(0, slash + 1)) + name;
}

// `line` up to its comment: the first '#' not escaped by an odd number of backslashes.
std::string_view WithoutComment(std::string_view line) {
  int backslashes = 0;
  for (std::size_t at = 0; at < line.size(); ++at) {
    if (line[at] == '#' && backslashes % 2 == 0) {
      return line.substr(0, at);
    }
    backslashes = line[at] == '\\' ? backslashes + 1 : 0;
  }
  return line;
}

// Whether `line` ends, blanks aside, in an odd number of backslashes and so goes on on the
// next line; if it does, cuts `line` before its last backslash.
bool CutContinuation(std::string_view& line) {
  const std::size_t last = line.find_last_not_of(" \t\r\n\v\f");
  if (last == std::string_view::npos || line[last] != '\\') {
    return false;
  }
  const std::size_t first = line.find_last_not_of('\\', last);
  const std::size_t backslashes = first == std::string_view::npos ? last + 1 : last - first;
  if (backslashes % 2 == 0) {
    return false;
  }
  line = line.substr(0, last);
  return true;
}

// `line` with each backslash taken as escaping the character after it: `\#` is `#`.
std::string WithoutEscapes(std::string_view line) {
  std::string out;
  for (std::size_t at = 0; at < line.size(); ++at) {
    if (line[at] == '\\' && ++at == line.size()) {
      break;
    }
    out += line[at];
  }
  return out;
}

// Slurm's next line of `lines`: its comment cut, joined with the lines after it while it
// ends in a backslash, escapes taken (parse_config.c's _get_next_line). Its number is that of
// its first line, as Slurm's messages give it.
bool NextSlurmLine(LineCursor& lines, std::string& line, int& number) {
  if (!lines.Next()) {
    return false;
  }
  number = lines.number();
  std::string joined;
  std::string_view part = WithoutComment(lines.line());
  while (CutContinuation(part)) {
    joined.append(part);
    if (!lines.Next()) {
      part = {};
      break;
    }
    part = WithoutComment(lines.line());
  }
  joined.append(part);
  line = WithoutEscapes(joined);
  return true;
}

// Appends the lines of `path` as Slurm reads them, its Includes followed, to `out`.
Status AppendExpanded(const std::string& path, int depth, std::string& out) {
  const Result<std::string> text = ReadTextFile(path);
  if (!text) {
    return Error{text.error()};
  }
  LineCursor lines(text.value());
  std::string line;
  int number = 0;
  while (NextSlurmLine(lines, line, number)) {
    const IncludeLine include = ReadIncludeLine(line);
    const auto failed = [&](std::string_view why) {
      return Error{fmt::format("{}:{}: Include: {}", path, number, why)};
    };
    if (!include.error.empty()) {
      return failed(include.error);
    }
    if (include.file.empty()) {
      out.append(line).append("\n");
      continue;
    }
    if (depth == kMaxIncludeDepth) {
      return failed(
          fmt::format("more than {} files deep (does a file include itself?)", kMaxIncludeDepth));
    }
    std::string file(include.file);
    if (file.find("%c") != std::string::npos) {
      const std::optional<std::string> cluster = SlurmConfValue(out, "ClusterName");
      if (!cluster) {
        return failed(fmt::format("{} has %c, and no ClusterName is set above it", file));
      }
      file = WithClusterName(file, *cluster);
    }
    if (const Status included = AppendExpanded(BesideIncluding(file, path), depth + 1, out);
        !included) {
      return failed(included.error());
    }
  }
  return Ok();
}

// What follows '=' on a line whose first key is `key` (in any case), the blanks around it
// trimmed; nullopt on any other line.
std::optional<std::string_view> AfterKey(std::string_view line, std::string_view key) {
  line = Trim(line);
  const std::size_t equals = line.find('=');
  if (equals == std::string_view::npos || !EqualsIgnoreCase(Trim(line.substr(0, equals)), key)) {
    return std::nullopt;
  }
  return Trim(line.substr(equals + 1));
}

}  // namespace

Result<std::string> ReadSlurmConf(const std::string& path) {
  std::string out;
  if (const Status read = AppendExpanded(path, 0, out); !read) {
    return Error{read.error()};
  }
  return out;
}

std::optional<std::string> SlurmConfValue(std::string_view text, std::string_view key) {
  std::optional<std::string> found;
  LineCursor lines(text);
  while (lines.Next()) {
    std::optional<std::string_view> value = AfterKey(lines.line(), key);
    if (!value) {
      continue;
    }
    if (value->size() >= 2 && value->front() == '"') {
      value = value->substr(1, value->find('"', 1) - 1);
    } else {
      value = FirstWord(*value);
    }
    found = std::string(*value);
  }
  return found;
}

std::vector<std::string> SlurmConfPartitions(std::string_view text) {
  std::vector<std::string> names;
  LineCursor lines(text);
  while (lines.Next()) {
    const std::optional<std::string_view> value = AfterKey(lines.line(), "PartitionName");
    if (!value) {
      continue;
    }
    std::string name(FirstWord(*value));
    if (!name.empty() && !EqualsIgnoreCase(name, "DEFAULT") &&
        std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(std::move(name));
    }
  }
  return names;
}

}  // namespace budget::cli
