#include "bench/sizes.h"

#include <cctype>
#include <limits>

namespace eltwise::bench {

std::optional<uint64_t> ParseByteCount(std::string_view text) {
  unsigned shift = 0;
  if (!text.empty()) {
    switch (std::toupper(static_cast<unsigned char>(text.back()))) {
      case 'K':
        shift = 10;
        break;
      case 'M':
        shift = 20;
        break;
      case 'G':
        shift = 30;
        break;
      default:
        break;
    }
    if (shift != 0) text.remove_suffix(1);
  }
  if (text.empty()) return std::nullopt;
  uint64_t count = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<uint64_t>(c - '0');
    if (count > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
    count = count * 10 + digit;
  }
  if (count > std::numeric_limits<uint64_t>::max() >> shift) return std::nullopt;
  return count << shift;
}

}  // namespace eltwise::bench
