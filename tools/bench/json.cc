#include "bench/json.h"

#include <string>

#include "eltwise/info.h"

namespace eltwise::bench {

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  return out + "\"";
}

std::string MachineJson() {
  static const std::string members = [] {
    const SystemInfo info = GetSystemInfo();
    return "\"cpu\": " + JsonString(info.cpu_model) +
           ", \"l1d_cache_bytes\": " + std::to_string(info.l1d_cache_bytes) +
           ", \"l2_cache_bytes\": " + std::to_string(info.l2_cache_bytes) +
           ", \"l3_cache_bytes\": " + std::to_string(info.l3_cache_bytes);
  }();
  return members;
}

std::string JsonArray(const std::vector<std::string>& objects) {
  std::string out = "[\n";
  for (size_t i = 0; i < objects.size(); ++i) {
    out += "  " + objects[i] + (i + 1 < objects.size() ? ",\n" : "\n");
  }
  return out + "]\n";
}

}  // namespace eltwise::bench
