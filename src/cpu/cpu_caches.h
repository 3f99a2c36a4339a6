// What the CPU reports about itself: its model name and its data caches. Read once, on first use,
// from the operating system (Linux: sysfs, then glibc's sysconf; Windows:
// GetLogicalProcessorInformation). The layout walkers size their work from these figures, `eltwise
// info` and the Python module's info() show them, and every benchmark record carries them.
#pragma once

#include <cstdint>
#include <istream>
#include <string>

namespace eltwise::cpu {

struct CpuCaches {
  // The CPU's model name as the system reports it, on x86 with CPUID's family and model numbers
  // ("AMD EPYC 7763 64-Core Processor (family 25, model 1)"); on Linux/Arm the implementer and
  // part codes; "unknown" where the system reports nothing.
  std::string model;
  // x86 only (CPUID): the vendor ("AuthenticAMD", "GenuineIntel"), family and model numbers; ""
  // and 0 elsewhere. Choices that depend on the microarchitecture read these.
  std::string x86_vendor;
  unsigned x86_family = 0;
  unsigned x86_model = 0;
  // Bytes of one instance of each data (or unified) cache level, as seen by one core; 0 where the
  // system reports no such level. The last level is usually shared by several cores.
  uint64_t l1d_bytes = 0;
  uint64_t l2_bytes = 0;
  uint64_t l3_bytes = 0;
  // True when none of the three sizes above was reported and the ones below are assumed.
  bool assumed = false;

  // The largest reported level (L3, else L2, else L1d); never 0.
  uint64_t LastLevelBytes() const;
};

// This machine's figures, read on the first call. Where the system reports no level at all, common
// ones are assumed (32 KiB L1d, 1 MiB L2, 32 MiB L3) and `assumed` says so.
const CpuCaches& MachineCaches();

// The steps, exposed for tests. The model from the text of Linux's /proc/cpuinfo: its first
// "model name", else "CPU implementer X, part Y" (Arm); "" if neither is there.
std::string ModelFromCpuinfo(std::istream& cpuinfo);
// The sizes from glibc's sysconf, the fallback where sysfs has none; false if it reports none.
bool ReadSysconfCaches(CpuCaches& caches);
// The sizes assumed where the system reports no level at all, with `assumed` set.
void AssumeCommonCaches(CpuCaches& caches);
// The cache size text sysfs gives ("32K", "1024K", "32M", "512") in bytes; 0 for text that is not
// a size.
uint64_t ParseCacheSize(const std::string& text);

}  // namespace eltwise::cpu
