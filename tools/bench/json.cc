#include "bench/json.h"

namespace eltwise::bench {

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  return out + "\"";
}

std::string JsonArray(const std::vector<std::string>& objects) {
  std::string out = "[\n";
  for (size_t i = 0; i < objects.size(); ++i) {
    out += "  " + objects[i] + (i + 1 < objects.size() ? ",\n" : "\n");
  }
  return out + "]\n";
}

}  // namespace eltwise::bench
