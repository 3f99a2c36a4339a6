// `eltwise round` on a file larger than 4 GiB (opt-in: CTest label `huge`, skipped unless
// ELTWISE_HUGE_TESTS=1): 2.3 Gi big-endian float16 elements in Fortran order (4.5 GiB of data)
// streamed through the tool, every element checked bit for bit against tests/oracle.h, and the
// tool's peak resident memory (printed) must stay below 256 MiB. Needs ~9.2 GiB free in the
// temporary directory. POSIX only (the peak RSS comes from wait4).
//   ELTWISE_HUGE_TESTS=1 ctest --test-dir <build> -L huge --output-on-failure
#include <gtest/gtest.h>
#if !defined(_WIN32)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "npy_bytes.h"
#include "oracle.h"

#ifndef ELTWISE_CLI_PATH
#error "ELTWISE_CLI_PATH must name the eltwise executable"
#endif

namespace eltwise::testing {
namespace {

namespace fs = std::filesystem;

// Columns x rows: 3 x 805306403 = 2415919209 elements, 4831838418 bytes (> 4 GiB, > 2^31
// elements, not a whole number of chunks).
constexpr uint64_t kRows = 3;
constexpr uint64_t kColumns = 805306403;
constexpr uint64_t kCount = kRows * kColumns;
constexpr uint64_t kPiece = uint64_t{1} << 24;  // elements generated or checked at a time
constexpr uint64_t kRssLimitKiB = 256 << 10;

// The input bits of element i (file order), from all 64 bits of i.
inline uint16_t Pattern(uint64_t i) {
  return static_cast<uint16_t>((i * 0x9E3779B97F4A7C15ull) >> 48);
}

inline uint16_t ByteSwapped(uint16_t v) { return static_cast<uint16_t>((v >> 8) | (v << 8)); }

bool Enabled() {
  const char* v = std::getenv("ELTWISE_HUGE_TESTS");
  return v != nullptr && std::strcmp(v, "0") != 0 && v[0] != '\0';
}

TEST(CliHuge, RoundsAFileLargerThan4GiBInBoundedMemory) {
  if (!Enabled()) GTEST_SKIP() << "set ELTWISE_HUGE_TESTS=1 to run (needs ~9.2 GiB of disk)";
#if defined(_WIN32)
  GTEST_SKIP() << "POSIX only";
#else
  const fs::path dir = fs::temp_directory_path() / ("eltwise_cli_huge_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path in = dir / "in.npy", out = dir / "out.npy";
  ASSERT_GT(fs::space(dir).available, 2 * kCount * 2 + (uint64_t{256} << 20))
      << "not enough free space in " << dir;

  // The oracle's result for every float16 pattern: its bits, or "any NaN".
  std::map<uint64_t, uint16_t> bits_of;  // the bits of each non-NaN value (double's bits)
  std::vector<uint16_t> want(65536);
  std::vector<bool> want_nan(65536);
  for (uint32_t p = 0; p < 65536; ++p) {
    const uint16_t bits = static_cast<uint16_t>(p);
    const Decoded x = Decode(DataType::kFloat16, &bits);
    if (!x.is_nan) {
      uint64_t key;
      std::memcpy(&key, &x.real, 8);
      bits_of[key] = bits;
    }
  }
  for (uint32_t p = 0; p < 65536; ++p) {
    const uint16_t bits = static_cast<uint16_t>(p);
    const Decoded r = OracleRound(DataType::kFloat16, Decode(DataType::kFloat16, &bits),
                                  RoundingMode::kHalvesToNearestEven);
    want_nan[p] = r.is_nan;
    if (!r.is_nan) {
      uint64_t key;
      std::memcpy(&key, &r.real, 8);
      ASSERT_EQ(bits_of.count(key), 1u) << "oracle result not a float16 value for " << p;
      want[p] = bits_of[key];
    }
  }

  {  // IN: big-endian float16, Fortran order
    std::ofstream file(in, std::ios::binary);
    const std::vector<std::byte> header = TestNpyFile(
        1,
        TestDict(">f2", true, "(" + std::to_string(kRows) + ", " + std::to_string(kColumns) + ")"),
        {});
    file.write(reinterpret_cast<const char*>(header.data()),
               static_cast<std::streamsize>(header.size()));
    std::vector<uint16_t> piece(kPiece);
    for (uint64_t begin = 0; begin < kCount; begin += kPiece) {
      const uint64_t n = std::min(kPiece, kCount - begin);
      for (uint64_t i = 0; i < n; ++i) piece[i] = ByteSwapped(Pattern(begin + i));  // host: LE
      file.write(reinterpret_cast<const char*>(piece.data()), static_cast<std::streamsize>(2 * n));
    }
    ASSERT_TRUE(file.good()) << "cannot write " << in;
  }

  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl(ELTWISE_CLI_PATH, ELTWISE_CLI_PATH, "round", "--quiet", in.c_str(), out.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  ASSERT_EQ(wait4(pid, &status, 0, &usage), pid);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "eltwise round failed";
  const uint64_t peak_kib = static_cast<uint64_t>(usage.ru_maxrss);
  std::printf("eltwise round on a %.2f GiB file: peak RSS %.1f MiB\n",
              static_cast<double>(kCount * 2) / (1 << 30), static_cast<double>(peak_kib) / 1024);
  EXPECT_LT(peak_kib, kRssLimitKiB);
  fs::remove(in);

  // OUT: the same header; every element the oracle's result, in big-endian order.
  std::ifstream file(out, std::ios::binary);
  const std::vector<std::byte> expected_header = TestNpyFile(
      1, TestDict(">f2", true, "(" + std::to_string(kRows) + ", " + std::to_string(kColumns) + ")"),
      {});
  std::vector<std::byte> header(expected_header.size());
  file.read(reinterpret_cast<char*>(header.data()), static_cast<std::streamsize>(header.size()));
  EXPECT_EQ(TestSplitNpy(header).header, TestSplitNpy(expected_header).header);
  std::vector<uint16_t> piece(kPiece);
  uint64_t failures = 0;
  for (uint64_t begin = 0; begin < kCount; begin += kPiece) {
    const uint64_t n = std::min(kPiece, kCount - begin);
    file.read(reinterpret_cast<char*>(piece.data()), static_cast<std::streamsize>(2 * n));
    ASSERT_EQ(static_cast<uint64_t>(file.gcount()), 2 * n) << "OUT is truncated at " << begin;
    for (uint64_t i = 0; i < n; ++i) {
      const uint16_t p = Pattern(begin + i);
      const uint16_t got = ByteSwapped(piece[i]);
      const bool ok =
          want_nan[p] ? (got & 0x7c00) == 0x7c00 && (got & 0x03ff) != 0 : got == want[p];
      if (!ok && ++failures <= 10) {
        ADD_FAILURE() << "element " << begin + i << ": input 0x" << std::hex << p << " got 0x"
                      << got << " want 0x" << want[p] << std::dec;
      }
    }
  }
  char extra;
  EXPECT_FALSE(file.read(&extra, 1)) << "OUT has trailing bytes";
  EXPECT_EQ(failures, 0u);
  file.close();
  fs::remove_all(dir);
#endif
}

}  // namespace
}  // namespace eltwise::testing
