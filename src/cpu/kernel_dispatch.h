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
};
// Every kernel table this build has that this CPU can run: the reference table first, then one per
// compiled SIMD target. Tests run against each.
std::vector<NamedKernelTable> AvailableKernelTables();
// The table production code runs: the best SIMD target this CPU supports (Highway dynamic
// dispatch), or the reference table in a build without SIMD.
const KernelTable& BestKernelTable();

}  // namespace eltwise
