// Which kernel table the CPU backend runs: the tables this build has that this CPU can run (the
// reference table and one per compiled SIMD target), and the best of them.
#pragma once

#include <string_view>
#include <vector>

#include "cpu/kernel_table.h"

namespace eltwise {

struct NamedKernelTable {
  std::string_view name;  // "reference", or the SIMD target ("AVX2", "AVX3", ...)
  const KernelTable* table;
  // A target's second table, with another route where the faster one depends on the CPU (AVX2:
  // f16 Round ties away, and toward zero outside the contiguous kernels, in the integer domain,
  // CacheTuning::f16_round_in_integers); its name says which.
  bool variant = false;
};
// Every kernel table this build has that this CPU can run: the reference table first, then one per
// compiled SIMD target (and its variants). Tests run against each.
std::vector<NamedKernelTable> AvailableKernelTables();
// The table production code runs: the best SIMD target this CPU supports (Highway dynamic
// dispatch; the target's variant where this CPU's tuning picks it), or the reference table in a
// build without SIMD.
const KernelTable& BestKernelTable();

}  // namespace eltwise
