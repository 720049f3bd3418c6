// ParseOk: a budget.conf text the test expects to parse (shared by the unit tests that build a
// configuration from text).
#pragma once

#include <gtest/gtest.h>

#include <string_view>
#include <utility>

#include "budget/config.hpp"

namespace budget {

// `text` parsed as "budget.conf"; a parse error fails the test (with the error) and yields an
// empty configuration.
inline BudgetConfig ParseOk(std::string_view text) {
  Result<BudgetConfig> r = ParseBudgetConfig(text, "budget.conf");
  EXPECT_TRUE(r.ok()) << r.error();
  return r.ok() ? std::move(r).value() : BudgetConfig{};
}

}  // namespace budget
