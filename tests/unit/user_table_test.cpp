// Tests for user_table.hpp: a std::map of names in a sorted vector, compared with std::map.
#include "budget/user_table.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace budget {
namespace {

template <typename Table>
std::vector<std::pair<std::string, int>> Entries(const Table& table) {
  std::vector<std::pair<std::string, int>> entries;
  for (const auto& [name, value] : table) {
    entries.emplace_back(name, value);
  }
  return entries;
}

TEST(UserTable, KeepsNamesInTheOrderOfStdMap) {
  UserTable<int> table;
  std::map<std::string, int, std::less<>> map;
  // Byte order: upper case before lower, "b" before "b2", and a byte above
  // 127 after every ASCII name, as std::string compares them.
  for (const std::string name : {"bob", "Zoe", "b2", "alice", "b", "\xc3\xa9mile", "", "carl"}) {
    EXPECT_TRUE(table.emplace(name, static_cast<int>(name.size())).second);
    map.emplace(name, static_cast<int>(name.size()));
  }
  EXPECT_EQ(Entries(table), Entries(map));
  EXPECT_EQ(table.size(), map.size());
}

TEST(UserTable, EmplaceKeepsTheFirstRecordOfAName) {
  UserTable<int> table;
  const auto [first, added] = table.emplace("ana", 1);
  EXPECT_TRUE(added);
  EXPECT_EQ(first->second, 1);
  const auto [again, added_again] = table.emplace("ana", 2);
  EXPECT_FALSE(added_again);
  EXPECT_EQ(again->second, 1);
  EXPECT_EQ(table.size(), 1U);
}

TEST(UserTable, FindCountContainsAndAtSeeOnlyRecordedNames) {
  UserTable<int> table;
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(table.find("ana"), table.end());
  table.emplace("ana", 7);
  table.emplace("cleo", 9);
  EXPECT_FALSE(table.empty());
  EXPECT_EQ(table.find("cleo")->second, 9);
  EXPECT_EQ(table.find("bob"), table.end());  // between two names
  EXPECT_EQ(table.find("dan"), table.end());  // after the last
  EXPECT_EQ(table.find("an"), table.end());   // a prefix of a name
  EXPECT_TRUE(table.contains("ana"));
  EXPECT_EQ(table.count("ana"), 1U);
  EXPECT_EQ(table.count("bob"), 0U);
  EXPECT_EQ(table.at("ana"), 7);
  EXPECT_THROW(static_cast<void>(table.at("bob")), std::out_of_range);
  const UserTable<int>& constant = table;
  EXPECT_EQ(constant.at("cleo"), 9);
  EXPECT_EQ(constant.find("ana")->second, 7);
}

TEST(UserTable, SubscriptAddsAnEmptyRecordOnce) {
  UserTable<int> table;
  table["bob"] += 5;
  table["bob"] += 5;
  table["ana"] = 1;
  EXPECT_EQ(Entries(table), (std::vector<std::pair<std::string, int>>{{"ana", 1}, {"bob", 10}}));
}

TEST(UserTable, EqualityComparesNamesAndRecordsNotInsertionOrder) {
  UserTable<int> a;
  UserTable<int> b;
  a.emplace("ana", 1);
  a.emplace("bob", 2);
  b.emplace("bob", 2);
  b.emplace("ana", 1);
  EXPECT_EQ(a, b);
  b["bob"] = 3;
  EXPECT_NE(a, b);
}

// Property: any sequence of inserts and lookups answers as std::map does.
TEST(UserTable, AnswersAsStdMapForRandomInserts) {
  std::mt19937 random(20261201);
  std::uniform_int_distribution<int> pick(0, 199);
  UserTable<int> table;
  std::map<std::string, int, std::less<>> map;
  for (int step = 0; step < 2000; ++step) {
    const std::string name = "u" + std::to_string(pick(random));
    if (step % 3 == 0) {
      EXPECT_EQ(table.emplace(name, step).second, map.emplace(name, step).second) << name;
    } else {
      table[name] += 1;
      map[name] += 1;
    }
    const std::string probe = "u" + std::to_string(pick(random));
    ASSERT_EQ(table.contains(probe), map.contains(probe)) << probe;
  }
  EXPECT_EQ(Entries(table), Entries(map));
}

}  // namespace
}  // namespace budget
