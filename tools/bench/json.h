// The JSON the benchmarks write: an array of objects, one a line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace eltwise::bench {

// `text` as a JSON string, quotes included; control characters become spaces (one line).
std::string JsonString(std::string_view text);

// The machine every record was measured on, as JSON members without braces: `"cpu": "<model>",
// "l1d_cache_bytes": N, "l2_cache_bytes": N, "l3_cache_bytes": N` (eltwise::GetSystemInfo; 0 for
// a level the system does not report).
std::string MachineJson();

// "[\n  <object>,\n  <object>\n]\n": each object (already JSON) on its own line.
std::string JsonArray(const std::vector<std::string>& objects);

}  // namespace eltwise::bench
