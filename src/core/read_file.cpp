// A whole text file read into memory.
#include "budget/read_file.hpp"

#include <array>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <system_error>

namespace budget {

Result<std::string> ReadTextFile(const std::string& path) {
  auto fail = [&path](int err) {
    return Error{"cannot read " + path + ": " + std::generic_category().message(err)};
  };
  errno = 0;
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                             &std::fclose);
  if (!file) {
    return fail(errno);
  }
  std::string text;
  std::array<char, 8192> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), file.get())) > 0) {
    text.append(buffer.data(), n);
  }
  // A directory opens fine on Linux and fails on the first read (EISDIR).
  if (std::ferror(file.get()) != 0) {
    return fail(errno != 0 ? errno : EIO);
  }
  return text;
}

}  // namespace budget
