// The CPU description the layout walkers size their work from (cpu/cpu_caches.h): the parsing of
// the sizes the system reports, the figures read on this machine, and that `GetSystemInfo` passes
// them on unchanged.
#include "cpu/cpu_caches.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

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

}  // namespace
}  // namespace eltwise::cpu
