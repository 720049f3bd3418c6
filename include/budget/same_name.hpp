// Equality of two account or user names, compared inline.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace budget {

namespace same_name_detail {

template <typename Word>
[[gnu::always_inline]] inline Word Load(const char* bytes) noexcept {
  Word word;
  std::memcpy(&word, bytes, sizeof(word));  // one unaligned load
  return word;
}

// Whether a[0..n) == b[0..n) for sizeof(Word) <= n <= 2 * sizeof(Word): the
// first and the last word of each, overlapping in the middle when n is
// shorter than two words.
template <typename Word>
[[gnu::always_inline]] inline bool SameWords(const char* a, const char* b, std::size_t n) noexcept {
  const std::size_t last = n - sizeof(Word);
  return ((Load<Word>(a) ^ Load<Word>(b)) | (Load<Word>(a + last) ^ Load<Word>(b + last))) == 0;
}

}  // namespace same_name_detail

// Whether `a` and `b` hold the same bytes, as `a == b`. Why not `==`: it
// calls memcmp through the PLT for every pair, and a pass's publish step
// compares two pairs a row of Slurm's association table (the row's account
// with the row before it, its user with the ledger's next one): for 10,000
// projects of 10 users, those calls were a third of a profile of the step.
// Slurm's names are short: those of 4 to 16 bytes are compared as two words
// of each, with no call; a longer one goes to memcmp.
[[gnu::always_inline]] inline bool SameName(std::string_view a, std::string_view b) noexcept {
  using same_name_detail::SameWords;
  const std::size_t n = a.size();
  if (n != b.size()) {
    return false;
  }
  if (n >= 8) {
    return n <= 16 ? SameWords<std::uint64_t>(a.data(), b.data(), n)
                   : std::memcmp(a.data(), b.data(), n) == 0;
  }
  if (n >= 4) {
    return SameWords<std::uint32_t>(a.data(), b.data(), n);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace budget
