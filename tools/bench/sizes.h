// Byte counts as the benchmarks take them on their command lines.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace eltwise::bench {

// "4096", "4K", "64M", "1G" (K, M, G in either case: binary multiples); nullopt for anything else,
// including a count that does not fit in 64 bits.
std::optional<uint64_t> ParseByteCount(std::string_view text);

}  // namespace eltwise::bench
