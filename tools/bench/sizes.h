// Byte counts as the benchmarks take them on their command lines and show them in their names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace eltwise::bench {

// "4096", "4K", "64M", "1G" (K, M, G in either case: binary multiples); nullopt for anything else,
// including a count that does not fit in 64 bits.
std::optional<uint64_t> ParseByteCount(std::string_view text);

// "512KiB", "64MiB": whole KiB below 1 MiB, whole MiB from there.
std::string SizeName(uint64_t bytes);

}  // namespace eltwise::bench
