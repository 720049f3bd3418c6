// Gives the ledger files root wrote to the owner of their directory (see ledger_owner.hpp).
#include "ledger_owner.hpp"

#include <fcntl.h>
#include <fmt/core.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>
#include <vector>

namespace budget::cli {
namespace {

std::string SystemError(int error) {
  return std::error_code(error, std::generic_category()).message();
}

// A descriptor closed when it goes out of scope.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// "slurm:slurm", or the numbers when the names are unknown.
std::string OwnerName(uid_t uid, gid_t gid) {
  const passwd* user = ::getpwuid(uid);
  const group* grp = ::getgrgid(gid);
  return fmt::format("{}:{}", user != nullptr ? user->pw_name : std::to_string(uid),
                     grp != nullptr ? grp->gr_name : std::to_string(gid));
}

// What ChownIfRoots did to one file.
enum class Changed { kNo, kYes };

// Gives `name` in `dir_fd` to uid:gid if root owns it; a missing file is left alone.
Result<Changed> ChownIfRoots(int dir_fd, const std::string& name, const std::string& path,
                             uid_t uid, gid_t gid) {
  // Looked at before it is opened: opening a device as root can act on it.
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    const int error = errno;
    if (error == ENOENT) {
      return Changed::kNo;
    }
    return Error{fmt::format("cannot stat {}: {}", path, SystemError(error))};
  }
  if (st.st_uid != 0) {
    return Changed::kNo;  // not written by root: SlurmUser's own copy, or someone else's
  }
  // SaveLedgerFile leaves regular files with one link. Anything else was put there: a chown, by
  // hand too, would give away what it points to.
  const auto refuse = [&path] {
    return Error{fmt::format(
        "owner of {} not changed: not a regular file with one link, as a ledger is; look at it, "
        "and remove it if it is not a ledger",
        path)};
  };
  if (!S_ISREG(st.st_mode) || st.st_nlink != 1) {
    return refuse();
  }
  // The same file, with no link followed on the way, or nothing is changed.
  const Descriptor file(
      ::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  struct stat opened {};
  if (file.get() < 0 || ::fstat(file.get(), &opened) != 0) {
    return Error{fmt::format("cannot open {} to change its owner: {}", path, SystemError(errno))};
  }
  if (opened.st_dev != st.st_dev || opened.st_ino != st.st_ino || opened.st_nlink != 1) {
    return refuse();
  }
  if (::fchown(file.get(), uid, gid) != 0) {
    return Error{fmt::format("cannot change the owner of {}: {}; run: chown {}:{} {}", path,
                             SystemError(errno), uid, gid, path)};
  }
  return Changed::kYes;
}

}  // namespace

Result<std::string> GiveLedgerToDirectoryOwner(const std::string& ledger_path) {
  if (ledger_path == "/dev/null" || ::geteuid() != 0) {
    return std::string();
  }
  const std::size_t slash = ledger_path.rfind('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : ledger_path.substr(0, slash);
  const std::string base = slash == std::string::npos ? ledger_path : ledger_path.substr(slash + 1);
  const Descriptor dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.get() < 0) {
    return Error{fmt::format("cannot open directory {}: {}", dir, SystemError(errno))};
  }
  struct stat dir_st {};
  if (::fstat(dir_fd.get(), &dir_st) != 0) {
    return Error{fmt::format("cannot stat directory {}: {}", dir, SystemError(errno))};
  }
  if (dir_st.st_uid == 0) {
    return std::string();  // SlurmUser is root, or not the ledger's directory: nothing to give
  }
  std::vector<std::string> changed;
  for (const std::string& name : {base, base + ".old"}) {
    const std::string path = ledger_path.substr(0, slash + 1) + name;  // npos + 1 == 0
    Result<Changed> result = ChownIfRoots(dir_fd.get(), name, path, dir_st.st_uid, dir_st.st_gid);
    if (!result) {
      return Error{result.error()};
    }
    if (result.value() == Changed::kYes) {
      changed.push_back(name);
    }
  }
  if (changed.empty()) {
    return std::string();
  }
  return fmt::format("{} given to {}, the owner of {}",
                     changed.size() == 1 ? changed[0] : changed[0] + " and " + changed[1],
                     OwnerName(dir_st.st_uid, dir_st.st_gid), dir);
}

}  // namespace budget::cli
