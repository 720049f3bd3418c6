// Result<T>: a value or an error message, for every fallible call of the core.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace budget {

struct Error {
  std::string message;
};

// Like std::expected (not visible to clang-tidy 14 here). Accessing the value of
// an error result, or the error of a value result, is a programming error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }

  const T& value() const& {
    assert(ok() && "Result::value() on an error");
    return std::get<T>(v_);
  }
  T& value() & {
    assert(ok() && "Result::value() on an error");
    return std::get<T>(v_);
  }
  T&& value() && {
    assert(ok() && "Result::value() on an error");
    return std::get<T>(std::move(v_));
  }
  const std::string& error() const {
    assert(!ok() && "Result::error() on a value");
    return std::get<Error>(v_).message;
  }

 private:
  std::variant<T, Error> v_;
};

// Result for calls that produce nothing but can fail.
struct Unit {};
using Status = Result<Unit>;
inline Status Ok() { return Unit{}; }

}  // namespace budget
