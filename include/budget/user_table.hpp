// A project's users in the ledger: their records by name, side by side in name order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace budget {

// A map from a user's name to their record `T` (the ledger's UserUsage) kept
// as one vector sorted by name, with the part of std::map's interface the
// ledger, the state file and the reports use, and the same order. Why not
// std::map: every pass reads every user's decayed usage for sshare, a
// project's users one after the other in name order (assoc_mgr lists them
// so); a map's nodes lie wherever the heap put them, about a cache miss a
// user, where here a project's users are consecutive and read as one stream.
// A user also costs about 40 bytes less than a map node.
//
// Unlike std::map, an insert (emplace, or operator[] of a new name) moves the
// records after the new one: it invalidates every iterator, pointer and
// reference into the table. A project gains a user a few times in its life,
// so inserts may be slow. The names must not be changed through an iterator.
template <typename T>
class UserTable {
 public:
  using value_type = std::pair<std::string, T>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  // end() when `name` has no record.
  iterator find(std::string_view name) {
    const auto it = LowerBound(name);
    return it != entries_.end() && it->first == name ? it : entries_.end();
  }
  const_iterator find(std::string_view name) const {
    return const_cast<UserTable*>(this)->find(name);
  }
  bool contains(std::string_view name) const { return find(name) != end(); }
  std::size_t count(std::string_view name) const { return contains(name) ? 1 : 0; }

  // The record of `name`; throws std::out_of_range when there is none.
  T& at(std::string_view name) {
    const auto it = find(name);
    if (it == entries_.end()) {
      throw std::out_of_range("UserTable::at: no user " + std::string(name));
    }
    return it->second;
  }
  const T& at(std::string_view name) const { return const_cast<UserTable*>(this)->at(name); }

  // Adds `name` with `record` unless the name has a record already: where the
  // name's record is, and whether it was added.
  std::pair<iterator, bool> emplace(std::string name, T record) {
    auto it = LowerBound(name);
    if (it != entries_.end() && it->first == name) {
      return {it, false};
    }
    if (entries_.size() == entries_.capacity()) {
      // A quarter more, not vector's double: the ledger lives as long as the
      // controller, and most projects stop gaining users early.
      const auto at = it - entries_.begin();
      entries_.reserve(entries_.size() + std::max<std::size_t>(1, entries_.size() / 4));
      it = entries_.begin() + at;
    }
    return {entries_.emplace(it, std::move(name), std::move(record)), true};
  }
  // The record of `name`, added empty when there is none.
  T& operator[](std::string_view name) { return emplace(std::string(name), T{}).first->second; }

  friend bool operator==(const UserTable&, const UserTable&) = default;

 private:
  iterator LowerBound(std::string_view name) {
    return std::lower_bound(
        entries_.begin(), entries_.end(), name,
        [](const value_type& entry, std::string_view key) { return entry.first < key; });
  }

  std::vector<value_type> entries_;  // sorted by name, each name once
};

}  // namespace budget
