// ScopedTz: TZ set for one test and restored after it, so that other tests
// see the process's zone (shared by the unit tests that need a local zone).
#pragma once

#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>

namespace budget {

class ScopedTz {
 public:
  explicit ScopedTz(const char* tz) {
    if (const char* old = std::getenv("TZ")) {
      old_ = old;
    }
    setenv("TZ", tz, 1);
    tzset();
  }
  ~ScopedTz() {
    if (old_) {
      setenv("TZ", old_->c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }
  ScopedTz(const ScopedTz&) = delete;
  ScopedTz& operator=(const ScopedTz&) = delete;

 private:
  std::optional<std::string> old_;
};

}  // namespace budget
