// The copy loop that `eltwise bench` holds every operator against (bench/toolkit/baselines.h):
// every byte copied, none beyond, at lengths around its 256-byte steps, unaligned, and in place,
// whichever vector width the running CPU picked.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "toolkit/baselines.h"

namespace eltwise::bench {
namespace {

std::vector<std::byte> Pattern(size_t bytes, unsigned seed) {
  std::vector<std::byte> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = static_cast<std::byte>((i * 131 + seed) & 0xff);
  return v;
}

TEST(BenchBaselines, CopyLoopCopiesEveryByteAndNoMore) {
  constexpr size_t kGuard = 64;
  for (size_t bytes : {0, 1, 63, 255, 256, 257, 511, 512, 1000, 4096 + 17}) {
    for (size_t offset : {0, 1, 7, 32}) {
      const std::vector<std::byte> in = Pattern(bytes + offset, 3);
      std::vector<std::byte> out = Pattern(bytes + offset + kGuard, 200);
      const std::vector<std::byte> before = out;
      CopyLoop(in.data() + offset, out.data() + offset, bytes);
      for (size_t i = 0; i < out.size(); ++i) {
        const bool copied = i >= offset && i < offset + bytes;
        ASSERT_EQ(out[i], copied ? in[i] : before[i])
            << "byte " << i << " of a " << bytes << "-byte copy at offset " << offset;
      }
    }
  }
}

TEST(BenchBaselines, CopyLoopInPlaceKeepsTheBytes) {
  std::vector<std::byte> buffer = Pattern(4096 + 99, 11);
  const std::vector<std::byte> before = buffer;
  CopyLoop(buffer.data() + 3, buffer.data() + 3, buffer.size() - 3);
  EXPECT_EQ(buffer, before);
}

}  // namespace
}  // namespace eltwise::bench
