// The ONNX commands' names and summaries, shared by their implementation (cmd_onnx.cc, in
// `eltwise-onnx`) and by `eltwise`, which lists them and forwards them (onnx_forwarding.cc).
#pragma once

#include <string>
#include <string_view>

#include "core/op_registry.h"

namespace eltwise::cli {

inline constexpr std::string_view kOnnxProgram = "eltwise-onnx";
inline constexpr std::string_view kOnnxTestSummary =
    "Run ONNX node-test directories (model.onnx + test_data_set_*/input_N.pb, output_N.pb); "
    "outputs must match bit for bit (NaN matches NaN)";
inline std::string RunSummary() {
  return "Run an ONNX model of " + OpTitles("and", OpsNamed::kWithOnnxVersions) +
         " nodes on TensorProto (.pb) or .npy tensors";
}

}  // namespace eltwise::cli
