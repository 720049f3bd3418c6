// Refuses files that users other than root and SlurmUser could have written.
#include "budget/file_trust.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <system_error>

namespace budget {

Status CheckTrustedFile(const std::string& path, std::string_view what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ENOENT) {
      return Ok();
    }
    return Error{"cannot check " + std::string(what) + " " + path + ": " +
                 std::error_code(error, std::generic_category()).message()};
  }
  const std::string refusing = "refusing " + std::string(what) + " " + path + ": ";
  const uid_t self = ::geteuid();
  if (st.st_uid != 0 && st.st_uid != self) {
    return Error{refusing + "owned by uid " + std::to_string(st.st_uid) +
                 ", not by root or this process's user (uid " + std::to_string(self) +
                 "); run: chown " + std::to_string(self) + " " + path};
  }
  const auto writable = static_cast<unsigned>(st.st_mode) & (S_IWGRP | S_IWOTH);
  if (writable != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode) & 07777U);
    const char* who = writable == (S_IWGRP | S_IWOTH) ? "group members and other users"
                      : (writable & S_IWGRP) != 0     ? "group members"
                                                      : "other users";
    return Error{refusing + "mode " + mode + " lets " + who + " write it; run: chmod go-w " + path};
  }
  return Ok();
}

}  // namespace budget
