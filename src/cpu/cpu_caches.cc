#include "cpu/cpu_caches.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>

#if defined(_WIN32)
#include <windows.h>

#include <vector>
#elif defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#endif

namespace eltwise::cpu {
namespace {

std::string Trimmed(std::string text) {
  const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  text.erase(text.begin(), std::find_if_not(text.begin(), text.end(), space));
  text.erase(std::find_if_not(text.rbegin(), text.rend(), space).base(), text.end());
  return text;
}

// The x86 brand string (CPUID leaves 0x80000002-4) with the family and model numbers (leaf 1),
// which tell the microarchitecture where the brand does not ("AMD EPYC (family 25, model 1)" is
// Zen 3); empty elsewhere.
// The brand string with CPUID's family and model numbers appended, and the vendor, family and
// model in `caches`; "" (and nothing set) off x86.
std::string X86Model(CpuCaches& caches) {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  unsigned regs[4] = {};
  std::string model;
  if (__get_cpuid(0, &regs[0], &regs[1], &regs[2], &regs[3]) != 0) {
    char vendor[13] = {};
    std::memcpy(vendor, &regs[1], 4);  // EBX, EDX, ECX
    std::memcpy(vendor + 4, &regs[3], 4);
    std::memcpy(vendor + 8, &regs[2], 4);
    caches.x86_vendor = vendor;
  }
  if (__get_cpuid(0x80000000u, &regs[0], &regs[1], &regs[2], &regs[3]) != 0 &&
      regs[0] >= 0x80000004u) {
    char brand[49] = {};
    for (unsigned leaf = 0; leaf < 3; ++leaf) {
      __get_cpuid(0x80000002u + leaf, &regs[0], &regs[1], &regs[2], &regs[3]);
      std::memcpy(brand + 16 * leaf, regs, sizeof(regs));
    }
    model = Trimmed(brand);
  }
  if (__get_cpuid(1, &regs[0], &regs[1], &regs[2], &regs[3]) != 0) {
    const unsigned base_family = (regs[0] >> 8) & 0xf;
    caches.x86_family = base_family == 0xf ? base_family + ((regs[0] >> 20) & 0xff) : base_family;
    caches.x86_model = (base_family == 0x6 || base_family == 0xf)
                           ? ((regs[0] >> 4) & 0xf) | (((regs[0] >> 16) & 0xf) << 4)
                           : (regs[0] >> 4) & 0xf;
    if (!model.empty()) {
      model += " (family " + std::to_string(caches.x86_family) + ", model " +
               std::to_string(caches.x86_model) + ")";
    }
  }
  return model;
#else
  (void)caches;
  return "";
#endif
}

std::string ReadFirstLine(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return Trimmed(line);
}

void Record(CpuCaches& caches, int level, uint64_t bytes) {
  if (bytes == 0) return;
  if (level == 1) caches.l1d_bytes = bytes;
  if (level == 2) caches.l2_bytes = bytes;
  if (level == 3) caches.l3_bytes = bytes;
}

// Linux's per-CPU cache description of the first CPU: one folder per cache, instruction caches
// skipped. Sizes are per instance (what one core sees), unlike glibc's sysconf, which on some
// virtual machines reports the whole host's last-level cache.
[[maybe_unused]] bool ReadSysfs(CpuCaches& caches) {
  bool found = false;
  for (int index = 0; index < 16; ++index) {
    const std::string folder = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    const std::string type = ReadFirstLine(folder + "/type");
    if (type.empty()) break;
    if (type == "Instruction") continue;
    const std::string level = ReadFirstLine(folder + "/level");
    if (level.size() != 1 || level[0] < '1' || level[0] > '3') continue;
    const uint64_t bytes = ParseCacheSize(ReadFirstLine(folder + "/size"));
    Record(caches, level[0] - '0', bytes);
    found = found || bytes != 0;
  }
  return found;
}

bool ReadSystem(CpuCaches& caches) {
#if defined(_WIN32)
  DWORD length = 0;
  GetLogicalProcessorInformation(nullptr, &length);
  if (length == 0) return false;
  std::vector<SYSTEM_LOGICAL_PROCESSOR_INFORMATION> entries(
      length / sizeof(SYSTEM_LOGICAL_PROCESSOR_INFORMATION) + 1);
  if (!GetLogicalProcessorInformation(entries.data(), &length)) return false;
  bool found = false;
  for (size_t i = 0; i < length / sizeof(SYSTEM_LOGICAL_PROCESSOR_INFORMATION); ++i) {
    if (entries[i].Relationship != RelationCache) continue;
    const CACHE_DESCRIPTOR& cache = entries[i].Cache;
    if (cache.Type == CacheInstruction || cache.Level > 3) continue;
    Record(caches, cache.Level, cache.Size);
    found = found || cache.Size != 0;
  }
  return found;
#else
  return ReadSysfs(caches) || ReadSysconfCaches(caches);
#endif
}

}  // namespace

std::string ModelFromCpuinfo(std::istream& cpuinfo) {
  std::string line, implementer, part;
  while (std::getline(cpuinfo, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = Trimmed(line.substr(0, colon));
    const std::string value = Trimmed(line.substr(colon + 1));
    if (key == "model name" && !value.empty()) return value;
    if (key == "CPU implementer" && implementer.empty()) implementer = value;
    if (key == "CPU part" && part.empty()) part = value;
  }
  if (!implementer.empty()) return "CPU implementer " + implementer + ", part " + part;
  return "";
}

bool ReadSysconfCaches(CpuCaches& caches) {
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && \
    defined(_SC_LEVEL3_CACHE_SIZE)
  const long sizes[3] = {sysconf(_SC_LEVEL1_DCACHE_SIZE), sysconf(_SC_LEVEL2_CACHE_SIZE),
                         sysconf(_SC_LEVEL3_CACHE_SIZE)};
  bool found = false;
  for (int level = 1; level <= 3; ++level) {
    const long bytes = sizes[level - 1];
    if (bytes > 0) Record(caches, level, static_cast<uint64_t>(bytes));
    found = found || bytes > 0;
  }
  return found;
#else
  (void)caches;
  return false;
#endif
}

void AssumeCommonCaches(CpuCaches& caches) {
  caches.l1d_bytes = uint64_t{32} << 10;
  caches.l2_bytes = uint64_t{1} << 20;
  caches.l3_bytes = uint64_t{32} << 20;
  caches.assumed = true;
}

uint64_t ParseCacheSize(const std::string& text) {
  uint64_t value = 0;
  size_t i = 0;
  // At most 10 digits: no cache is that large, and even in gigabytes the value fits in 64 bits.
  for (; i < text.size() && i < 10 && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    value = value * 10 + static_cast<uint64_t>(text[i] - '0');
  }
  if (i == 0) return 0;
  const std::string unit = text.substr(i);
  if (unit.empty()) return value;
  if (unit == "K") return value << 10;
  if (unit == "M") return value << 20;
  if (unit == "G") return value << 30;
  return 0;
}

uint64_t CpuCaches::LastLevelBytes() const {
  if (l3_bytes != 0) return l3_bytes;
  if (l2_bytes != 0) return l2_bytes;
  return l1d_bytes != 0 ? l1d_bytes : uint64_t{32} << 20;
}

const CpuCaches& MachineCaches() {
  static const CpuCaches caches = [] {
    CpuCaches read;
    std::ifstream cpuinfo("/proc/cpuinfo");  // Linux; elsewhere it does not open and gives ""
    read.model = X86Model(read);
    if (read.model.empty()) read.model = ModelFromCpuinfo(cpuinfo);
    if (read.model.empty()) read.model = "unknown";
    if (!ReadSystem(read)) AssumeCommonCaches(read);
    return read;
  }();
  return caches;
}

}  // namespace eltwise::cpu
