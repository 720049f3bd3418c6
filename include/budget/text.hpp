// Line-oriented text: walking a file's lines with their numbers, and multi-line error texts.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace budget {

// Walks the lines of a text file's contents, numbered from 1: lines end with
// LF or CR LF (the CR is not part of the line), the last one may have no end,
// and a text ending with its last line's end has no empty line after it.
//
//   LineCursor lines(text);
//   while (lines.Next()) {
//     Parse(lines.line(), lines.number());
//   }
//
// The lines are views into `text`, which must outlive the cursor.
class LineCursor {
 public:
  explicit LineCursor(std::string_view text) : rest_(text) {}
  // Moves to the next line; false at the end of the text.
  bool Next();
  std::string_view line() const { return line_; }
  int number() const { return number_; }

 private:
  std::string_view rest_;
  std::string_view line_;
  int number_ = 0;
};

// `s` without the spaces and tabs that begin and end it.
std::string_view Trim(std::string_view s);

// `s` with A-Z lowered (ASCII only: keys and keywords of configuration files).
std::string Lower(std::string_view s);

// Whether a and b are equal but for the case of A-Z, as configuration keys compare.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// `s` between double quotes, as error messages cite a value: "abc".
std::string Quoted(std::string_view s);

// The lines joined with '\n' (no trailing newline); "" for none.
std::string JoinLines(const std::vector<std::string>& lines);

// The non-empty lines of `text`, without their '\n'.
std::vector<std::string> SplitLines(std::string_view text);

}  // namespace budget
