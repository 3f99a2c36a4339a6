// `eltwise info`: version, CPU targets, backends and GPUs, and the support table the validator
// enforces (generated from eltwise::Supports, which reads the same tables as validation).
#include <iostream>
#include <memory>

#include "commands.h"
#include "core/levels.h"
#include "core/op_registry.h"

namespace eltwise::cli {
namespace {

// A cache size as "32 KiB" or "32 MiB"; "none" for a level the system does not report.
std::string CacheText(uint64_t bytes) {
  const char* unit = " bytes";
  for (const char* larger : {" KiB", " MiB"}) {
    if (bytes == 0 || bytes % 1024 != 0) break;
    bytes /= 1024;
    unit = larger;
  }
  return bytes == 0 ? "none" : std::to_string(bytes) + unit;
}

// "4", "1-8", "0-8", or "-" when no rank is supported; disjoint ranges are joined with ','.
std::string RankText(FeatureLevel level, Op op, DataType type) {
  std::string text;
  for (int rank = 0; rank <= kMaxRank; ++rank) {
    if (!Supports(level, op, type, rank)) continue;
    int last = rank;
    while (last + 1 <= kMaxRank && Supports(level, op, type, last + 1)) ++last;
    if (!text.empty()) text += ",";
    text += std::to_string(rank);
    if (last != rank) {
      text += '-';
      text += std::to_string(last);
    }
    rank = last;
  }
  return text.empty() ? "-" : text;
}

std::string Pad(std::string_view text, size_t width) {
  std::string padded(text);
  if (padded.size() < width) padded.insert(0, width - padded.size(), ' ');
  return padded;
}

void PrintLevelHeader(std::string_view corner, size_t label_width, size_t cell_width) {
  std::cout << "  " << corner << std::string(label_width - corner.size(), ' ');
  for (FeatureLevel level : AllFeatureLevels()) {
    std::cout << " " << Pad(level == FeatureLevel::kExtended ? "ext" : Name(level), cell_width);
  }
  std::cout << "\n";
}

void PrintSupportTable() {
  constexpr size_t kLabelWidth = 24;
  constexpr size_t kCellWidth = 4;
  std::cout << "Support (ranks accepted per operator, type and DirectML feature level; "
               "ext = extended, '-' = rejected):\n";
  for (const OpInfo& info : AllOps()) {
    const Op op = info.op;
    std::cout << "\n";
    PrintLevelHeader(std::string(Name(op)), kLabelWidth, kCellWidth);
    for (int t = 0; t < kDataTypeCount; ++t) {
      const DataType type = static_cast<DataType>(t);
      std::cout << "    " << Name(type) << std::string(kLabelWidth - 2 - Name(type).size(), ' ');
      for (FeatureLevel level : AllFeatureLevels()) {
        std::cout << " " << Pad(RankText(level, op, type), kCellWidth);
      }
      std::cout << "\n";
    }
  }
  // Options whose values differ by level (round --mode).
  for (const OpInfo& info : AllOps()) {
    const OptionInfo& option = info.option;
    if (option.directml_values >= static_cast<int>(option.names.size())) continue;
    std::cout << "\n";
    PrintLevelHeader(std::string(info.name) + " --" + std::string(option.field), kLabelWidth,
                     kCellWidth);
    for (size_t v = 0; v < option.names.size(); ++v) {
      const std::string_view name = option.names[v];
      std::cout << "    " << name << std::string(kLabelWidth - 2 - name.size(), ' ');
      for (FeatureLevel level : AllFeatureLevels()) {
        std::cout << " "
                  << Pad(SupportsOption(level, info.op, static_cast<int>(v)) ? "yes" : "-",
                         kCellWidth);
      }
      std::cout << "\n";
    }
  }
}

void RunInfo() {
  const SystemInfo info = GetSystemInfo();
  std::cout << "eltwise " << info.version << "\n";
  std::cout << "CPU: " << info.cpu_model << ", " << info.hardware_threads
            << " hardware threads; kernel targets (best first):";
  for (const std::string& target : info.cpu_targets) std::cout << " " << target;
  std::cout << "\nSIMD targets:";
  for (const std::string& target : info.simd_targets) std::cout << " " << target;
  if (info.simd_targets.empty()) {
    std::cout << " none (built without Highway, or this CPU has none of its targets; scalar "
                 "kernels run: exact but slow)";
  }
  std::cout << "\nCaches (one instance of each): L1d " << CacheText(info.l1d_cache_bytes) << ", L2 "
            << CacheText(info.l2_cache_bytes) << ", L3 " << CacheText(info.l3_cache_bytes) << "\n";
  std::cout << "Backends: cpu";
  if (info.cuda_backend_built) {
    std::cout << ", cuda (" << info.cuda_devices.size() << " GPU"
              << (info.cuda_devices.size() == 1 ? "" : "s") << ")\n";
    for (const std::string& gpu : info.cuda_devices) std::cout << "  GPU " << gpu << "\n";
  } else {
    std::cout << " (cuda: not built)\n";
  }
  std::cout << "\n";
  PrintSupportTable();
}

void AddInfoCommand(CLI::App& app) {
  CLI::App* info = app.add_subcommand(
      "info", "Version, CPU targets, backends and GPUs, and the feature-level support table");
  info->callback([] { RunInfo(); });
}

}  // namespace

ELTWISE_CLI_COMMAND("info", AddInfoCommand);

}  // namespace eltwise::cli
