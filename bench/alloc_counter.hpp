// Live heap bytes of the benchmark binary, counted by its replaced operator new and delete.
#pragma once

#include <cstdint>

namespace budget::bench {

// Bytes currently allocated through operator new (malloc_usable_size of each
// block, so allocator rounding counts; malloc's own headers do not). Every
// thread's allocations count; read it from one thread with the others idle.
std::int64_t LiveHeapBytes();

}  // namespace budget::bench
