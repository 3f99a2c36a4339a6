// Shared by the ONNX front end's sources; needs the ONNX protobuf headers.
#pragma once

#include <onnx/onnx_pb.h>

#include <span>
#include <string>
#include <vector>

#include "onnx/onnx_frontend.h"

namespace eltwise::onnx_frontend::internal {

// Decodes a TensorProto already parsed (an initializer or a .pb file). `what` names the tensor in
// messages ("initializer 'w'", "input_0.pb").
Expected<HostTensor> DecodeTensor(const ::onnx::TensorProto& proto, const std::string& what);

// Reads a whole file; errors name the path and the reason.
Expected<std::vector<std::byte>> ReadFileBytes(const std::string& path);

// Formats element `index` of `tensor` for messages: "-1.5 (0xbfc00000)" or "-7".
std::string FormatElement(const HostTensor& tensor, uint64_t index);

// Runs the ONNX checker (check_graph) on `model`'s graph with its nodes in `order` (a topological
// order of node indices), the ai.onnx domain at `opset`, and schemas that include Round-22. A
// rejection is kInvalidArgument with the checker's message on one line.
Status RunChecker(const ::onnx::ModelProto& model, const std::vector<int>& order, int opset);

// Whether `domain` names the default ONNX operator set ("" or "ai.onnx").
inline bool IsOnnxDomain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

// `s` in single quotes, as messages name values, nodes and tensors.
inline std::string Quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace eltwise::onnx_frontend::internal
