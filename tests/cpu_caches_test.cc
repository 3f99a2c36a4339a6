// The CPU description the layout walkers size their work from (cpu/cpu_caches.h): the parsing of
// the sizes the system reports, the figures read on this machine, that `GetSystemInfo` passes
// them on unchanged, and the sizes derived from them (cpu/cache_tuning.h).
#include "cpu/cpu_caches.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string_view>
#include <vector>

#include "cpu/cache_tuning.h"
#include "cpu/kernel_dispatch.h"
#include "eltwise/info.h"

namespace eltwise::cpu {
namespace {

TEST(CpuCaches, ParsesTheSizesSysfsWrites) {
  EXPECT_EQ(ParseCacheSize("32K"), uint64_t{32} << 10);
  EXPECT_EQ(ParseCacheSize("1024K"), uint64_t{1} << 20);
  EXPECT_EQ(ParseCacheSize("32768K"), uint64_t{32} << 20);
  EXPECT_EQ(ParseCacheSize("32M"), uint64_t{32} << 20);
  EXPECT_EQ(ParseCacheSize("2G"), uint64_t{2} << 30);
  EXPECT_EQ(ParseCacheSize("512"), 512u);
  EXPECT_EQ(ParseCacheSize("9999999999G"), uint64_t{9999999999} << 30);
}

TEST(CpuCaches, RefusesTextThatIsNotASize) {
  for (const char* text :
       {"", "K", "-32K", "32KB", "32 K", "0x20K", "32k", "12345678901", "12345678901G"}) {
    EXPECT_EQ(ParseCacheSize(text), 0u) << '"' << text << '"';
  }
}

TEST(CpuCaches, ModelFromCpuinfoOfX86AndArm) {
  std::istringstream x86(
      "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7763 "
      "64-Core Processor\nmodel name\t: another\n");
  EXPECT_EQ(ModelFromCpuinfo(x86), "AMD EPYC 7763 64-Core Processor");
  std::istringstream arm(
      "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n\n"
      "processor\t: 1\nCPU implementer\t: 0x42\nCPU part\t: 0xd40\n");
  EXPECT_EQ(ModelFromCpuinfo(arm), "CPU implementer 0x41, part 0xd0c");
  std::istringstream none("processor\t: 0\nflags\t: fpu\nno colon here\nmodel name\t:\n");
  EXPECT_EQ(ModelFromCpuinfo(none), "");
}

TEST(CpuCaches, SysconfFallbackAndAssumedSizes) {
  CpuCaches from_sysconf;
  const bool found = ReadSysconfCaches(from_sysconf);
  EXPECT_EQ(found, from_sysconf.l1d_bytes != 0 || from_sysconf.l2_bytes != 0 ||
                       from_sysconf.l3_bytes != 0);
  EXPECT_FALSE(from_sysconf.assumed);
  CpuCaches assumed;
  AssumeCommonCaches(assumed);
  EXPECT_TRUE(assumed.assumed);
  EXPECT_EQ(assumed.l1d_bytes, uint64_t{32} << 10);
  EXPECT_EQ(assumed.l2_bytes, uint64_t{1} << 20);
  EXPECT_EQ(assumed.l3_bytes, uint64_t{32} << 20);
  EXPECT_EQ(assumed.LastLevelBytes(), uint64_t{32} << 20);
  CpuCaches only_l2;
  only_l2.l2_bytes = 512 << 10;
  EXPECT_EQ(only_l2.LastLevelBytes(), uint64_t{512} << 10);
  CpuCaches only_l1;
  only_l1.l1d_bytes = 48 << 10;
  EXPECT_EQ(only_l1.LastLevelBytes(), uint64_t{48} << 10);
  EXPECT_EQ(CpuCaches().LastLevelBytes(), uint64_t{32} << 20);
}

TEST(CpuCaches, ThisMachinesFiguresAreOrdered) {
  const CpuCaches& caches = MachineCaches();
  EXPECT_FALSE(caches.model.empty());
  EXPECT_GT(caches.LastLevelBytes(), 0u);
  // Each reported level is at least as large as the reported levels below it.
  uint64_t below = 0;
  for (const uint64_t bytes : {caches.l1d_bytes, caches.l2_bytes, caches.l3_bytes}) {
    if (bytes == 0) continue;
    EXPECT_GE(bytes, below);
    below = bytes;
  }
  EXPECT_EQ(caches.LastLevelBytes(), below != 0 ? below : uint64_t{32} << 20);
  // Where Linux describes the caches, they are read, not assumed.
  if (std::filesystem::exists("/sys/devices/system/cpu/cpu0/cache/index0/size")) {
    EXPECT_FALSE(caches.assumed);
    EXPECT_GT(caches.l1d_bytes, 0u);
  }
  EXPECT_EQ(&caches, &MachineCaches()) << "read once";
}

TEST(CpuCaches, SystemInfoCarriesThem) {
  const CpuCaches& caches = MachineCaches();
  const SystemInfo info = GetSystemInfo();
  EXPECT_EQ(info.cpu_model, caches.model);
  EXPECT_EQ(info.l1d_cache_bytes, caches.l1d_bytes);
  EXPECT_EQ(info.l2_cache_bytes, caches.l2_bytes);
  EXPECT_EQ(info.l3_cache_bytes, caches.l3_bytes);
}

CpuCaches Caches(uint64_t l1d, uint64_t l2, uint64_t l3) {
  CpuCaches caches;
  caches.l1d_bytes = l1d;
  caches.l2_bytes = l2;
  caches.l3_bytes = l3;
  return caches;
}

constexpr uint64_t KiB = uint64_t{1} << 10;
constexpr uint64_t MiB = uint64_t{1} << 20;

// A Zen 3 core's caches, without its CPUID identity, give the constants measured there before
// they were derived (the scattered size as first chosen on x86-64 VMs; Zen 3's own is below).
TEST(CacheTuning, Zen3CachesGiveTheSizesMeasuredThere) {
  const CacheTuning t = TuningFor(Caches(32 * KiB, 512 * KiB, 32 * MiB));
  EXPECT_EQ(t.transpose_tile_edge, (std::array<size_t, 4>{128, 64, 64, 32}));
  EXPECT_EQ(t.stream_output_bytes, 8 * MiB);
  EXPECT_EQ(t.stream_scattered_output_bytes, 2 * MiB);
}

TEST(CacheTuning, StreamingSizesFollowL2AndTheLastLevel) {
  const CacheTuning xeon = TuningFor(Caches(48 * KiB, 2 * MiB, 105 * MiB));
  EXPECT_EQ(xeon.stream_output_bytes, 105 * MiB / 4);
  EXPECT_EQ(xeon.stream_scattered_output_bytes, 8 * MiB);
  // No L2 reported: a sixteenth of the last level.
  const CacheTuning no_l2 = TuningFor(Caches(32 * KiB, 0, 64 * MiB));
  EXPECT_EQ(no_l2.stream_scattered_output_bytes, 4 * MiB);
  // The scattered size never exceeds the other.
  const CacheTuning big_l2 = TuningFor(Caches(32 * KiB, 4 * MiB, 32 * MiB));
  EXPECT_EQ(big_l2.stream_scattered_output_bytes, 8 * MiB);
}

// Every L1d from 4 KiB to 1 MiB (and none reported): each edge is a power of two of at least 16,
// its tile fits the stream buffer, and, above 16, input and output tiles fit L1d together while
// twice the edge would not fit one of the two bounds.
TEST(CacheTuning, TileEdgesFitL1dAndTheStreamBuffer) {
  for (uint64_t l1d = 0; l1d <= MiB; l1d = l1d == 0 ? 4 * KiB : l1d + 4 * KiB) {
    const CacheTuning t = TuningFor(Caches(l1d, 0, 0));
    const uint64_t bound = l1d != 0 ? l1d : 32 * KiB;  // none reported: 32 KiB assumed
    for (size_t log_size = 0; log_size < 4; ++log_size) {
      const uint64_t size = uint64_t{1} << log_size;
      const uint64_t edge = t.transpose_tile_edge[log_size];
      SCOPED_TRACE("L1d " + std::to_string(l1d) + ", element size " + std::to_string(size));
      EXPECT_GE(edge, 16u);
      EXPECT_EQ(edge & (edge - 1), 0u);
      EXPECT_LE(edge * edge * size, kTransposeTileBytes);
      if (edge > 16) EXPECT_LE(2 * edge * edge * size, bound);
      const uint64_t next = 2 * edge;
      EXPECT_TRUE(2 * next * next * size > bound || next * next * size > kTransposeTileBytes);
    }
  }
}

// The tuning of a CPU with Zen 3's caches and the given x86 identity.
CacheTuning TuningOfCpu(const char* vendor, unsigned family, unsigned model) {
  CpuCaches caches = Caches(32 * KiB, 512 * KiB, 32 * MiB);
  caches.x86_vendor = vendor;
  caches.x86_family = family;
  caches.x86_model = model;
  return TuningFor(caches);
}

// Non-temporal stores past the last level: measured to gain on one thread on Zen 3 EPYC (AMD
// family 25, models 0-15), and on 1 and 2 threads on an Intel Xeon (family 6, model 207).
TEST(CacheTuning, StreamingThreadsOnTheFamiliesItWasMeasuredOn) {
  auto threads = [](const char* vendor, unsigned family, unsigned model) {
    return TuningOfCpu(vendor, family, model).stream_past_last_level_threads;
  };
  EXPECT_EQ(threads("AuthenticAMD", 25, 1), 1);
  EXPECT_EQ(threads("AuthenticAMD", 25, 15), 1);
  EXPECT_EQ(threads("AuthenticAMD", 25, 16), 0);  // Zen 4 (Genoa): not measured
  EXPECT_EQ(threads("AuthenticAMD", 26, 2), 0);   // Zen 5: tied on one thread, lost on 2
  EXPECT_GE(threads("GenuineIntel", 6, 207), 1024);
  EXPECT_GE(threads("GenuineIntel", 6, 143), 1024);  // the same family
  EXPECT_EQ(threads("GenuineIntel", 19, 1), 0);      // another Intel family: not measured
  EXPECT_EQ(threads("", 0, 0), 0);                   // not x86
}

// Rows stream with those contiguous outputs from the row length each family gained at: every row
// on Zen 3; on Intel rows of 4000 bytes gained and rows of 1000 bytes lost.
TEST(CacheTuning, StreamedRowLengthOnTheFamiliesItWasMeasuredOn) {
  EXPECT_EQ(TuningOfCpu("AuthenticAMD", 25, 1).stream_row_bytes, 0u);
  const uint64_t intel = TuningOfCpu("GenuineIntel", 6, 207).stream_row_bytes;
  EXPECT_GT(intel, 1000u);
  EXPECT_LE(intel, 4000u);
}

// Scattered transposed outputs stream from the size the others do on Zen 3 EPYC (AMD family 25,
// models 0-15), where streaming them from four times L2 lost inside the last level; elsewhere
// from four times L2.
TEST(CacheTuning, ScatteredStreamingSizeOnTheFamilyItWasMeasuredOn) {
  auto size = [](const char* vendor, unsigned family, unsigned model) {
    return TuningOfCpu(vendor, family, model).stream_scattered_output_bytes;
  };
  EXPECT_EQ(size("AuthenticAMD", 25, 1), 8 * MiB);
  EXPECT_EQ(size("AuthenticAMD", 25, 15), 8 * MiB);
  EXPECT_EQ(size("AuthenticAMD", 25, 16), 2 * MiB);  // Zen 4 (Genoa): not measured
  EXPECT_EQ(size("GenuineIntel", 6, 85), 2 * MiB);
  EXPECT_EQ(size("", 0, 0), 2 * MiB);  // not x86
}

// f16 Round on AVX2 in the integer domain: measured faster on Zen 3 (AMD family 25); F16C was
// faster on Intel. Family 25's AVX-512 models (Zen 4) run the AVX3 table, which the flag does not
// touch.
TEST(CacheTuning, F16RoundInIntegersOnTheFamilyItWasMeasuredOn) {
  auto with = [](const char* vendor, unsigned family, unsigned model) {
    return TuningOfCpu(vendor, family, model).f16_round_in_integers;
  };
  EXPECT_TRUE(with("AuthenticAMD", 25, 1));
  EXPECT_TRUE(with("AuthenticAMD", 25, 33));
  EXPECT_FALSE(with("AuthenticAMD", 23, 49));  // Zen 2: not measured
  EXPECT_FALSE(with("GenuineIntel", 6, 85));
  EXPECT_FALSE(with("", 0, 0));  // not x86
}

// Where AVX2 is this CPU's best target, the backend runs its f16-integer table exactly where the
// tuning says so (both tables are checked against the oracle by the kernel tests).
TEST(CacheTuning, BestTableFollowsTheF16RoundRoute) {
  const std::vector<NamedKernelTable> tables = AvailableKernelTables();
  std::string_view best;
  const KernelTable* avx2 = nullptr;
  const KernelTable* integers = nullptr;
  for (const NamedKernelTable& t : tables) {  // worst to best
    if (!t.variant) best = t.name;
    if (t.name == "AVX2") avx2 = t.table;
    if (t.name == "AVX2_F16RoundInIntegers") integers = t.table;
  }
  if (best != "AVX2") GTEST_SKIP() << "the best target here is " << best;
  ASSERT_NE(avx2, nullptr);
  ASSERT_NE(integers, nullptr);
  EXPECT_EQ(&BestKernelTable(), MachineTuning().f16_round_in_integers ? integers : avx2);
}

TEST(CacheTuning, MachineTuningIsThisMachinesDerivation) {
  const CacheTuning want = TuningFor(MachineCaches());
  const CacheTuning& got = MachineTuning();
  EXPECT_EQ(got.transpose_tile_edge, want.transpose_tile_edge);
  EXPECT_EQ(got.stream_output_bytes, want.stream_output_bytes);
  EXPECT_EQ(got.stream_scattered_output_bytes, want.stream_scattered_output_bytes);
  EXPECT_EQ(got.stream_past_last_level_threads, want.stream_past_last_level_threads);
  EXPECT_EQ(got.stream_row_bytes, want.stream_row_bytes);
  EXPECT_EQ(got.f16_round_in_integers, want.f16_round_in_integers);
}

}  // namespace
}  // namespace eltwise::cpu
