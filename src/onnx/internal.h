// Shared by the ONNX front end's sources; needs the ONNX protobuf headers.
#pragma once

#include <onnx/onnx_pb.h>

#include <span>
#include <string>

#include "onnx/onnx_frontend.h"

namespace eltwise::onnx_frontend::internal {

// Decodes a TensorProto already parsed (an initializer or a .pb file). `what` names the tensor in
// messages ("initializer 'w'", "input_0.pb").
Expected<HostTensor> DecodeTensor(const ::onnx::TensorProto& proto, const std::string& what);

// Reads a whole file; errors name the path and the reason.
Expected<std::vector<std::byte>> ReadFileBytes(const std::string& path);

// Formats element `index` of `tensor` for messages: "-1.5 (0xbfc00000)" or "-7".
std::string FormatElement(const HostTensor& tensor, uint64_t index);

}  // namespace eltwise::onnx_frontend::internal
