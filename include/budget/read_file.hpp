// A whole text file read into memory, for the configuration files the core and sbudget read.
#pragma once

#include <string>

#include "budget/result.hpp"

namespace budget {

// The bytes of the file at `path`, or "cannot read PATH: reason" (a directory, which opens
// on Linux and fails on the first read, included).
Result<std::string> ReadTextFile(const std::string& path);

}  // namespace budget
