// Tests for same_name.hpp: SameName answers as string_view's == for every length.
#include "budget/same_name.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace budget {
namespace {

// A name of `n` bytes, none of them zero, each differing from its neighbours.
std::string NameOf(std::size_t n) {
  std::string name;
  for (std::size_t i = 0; i < n; ++i) {
    name.push_back(static_cast<char>('a' + (i * 7) % 26));
  }
  return name;
}

TEST(SameName, EqualNamesAtOtherAddressesAreTheSameForEveryLength) {
  for (std::size_t n = 0; n <= 40; ++n) {
    const std::string a = NameOf(n);
    const std::string b = a;  // another buffer
    ASSERT_NE(static_cast<const void*>(a.data()), static_cast<const void*>(b.data()));
    EXPECT_TRUE(SameName(a, b)) << "length " << n;
  }
}

TEST(SameName, OneChangedByteAnywhereMakesNamesDiffer) {
  // The words of 4 to 16 bytes overlap in the middle: a byte in the overlap,
  // in the first word only and in the last word only all count.
  for (std::size_t n = 1; n <= 40; ++n) {
    const std::string a = NameOf(n);
    for (std::size_t at = 0; at < n; ++at) {
      for (const char flip : {'\x01', '\x80'}) {
        std::string b = a;
        b[at] = static_cast<char>(b[at] ^ flip);
        EXPECT_FALSE(SameName(a, b)) << "length " << n << ", byte " << at;
        EXPECT_EQ(SameName(a, b), std::string_view(a) == std::string_view(b));
      }
    }
  }
}

TEST(SameName, NamesOfOtherLengthsDiffer) {
  // A prefix is not the name, nor is the name with a zero byte after it.
  EXPECT_FALSE(SameName("physics", "physics2"));
  EXPECT_FALSE(SameName("physics", std::string_view("physics\0", 8)));
  EXPECT_FALSE(SameName("", "a"));
  EXPECT_TRUE(SameName("", ""));
  EXPECT_TRUE(SameName(std::string_view(), ""));
}

TEST(SameName, ReadsOnlyTheNamesBytes) {
  // Views into the middle of longer texts: the bytes around them, which
  // differ, are not read as part of the name.
  const std::string left = "XXXXXXXXs00042-physicsYYYYYYYY";
  const std::string right = "ZZZZZZZZs00042-physicsWWWWWWWW";
  for (std::size_t n = 0; n <= 14; ++n) {
    EXPECT_TRUE(SameName(std::string_view(left).substr(8, n), std::string_view(right).substr(8, n)))
        << "length " << n;
  }
}

}  // namespace
}  // namespace budget
