// Fuzzes TensorProto decoding (onnx_frontend::DecodeTensorProto). Any input must either be
// rejected with a message, or decode to a tensor whose data size matches its shape and type and
// which survives EncodeTensorProto -> DecodeTensorProto unchanged. The input bytes are exactly the
// bytes the decoder may read (ASan).
#include <cstring>
#include <vector>

#include "fuzz_util.h"
#include "onnx/onnx_frontend.h"

namespace eltwise::fuzz {
namespace {

void Run(const uint8_t* data, size_t size) {
  std::vector<std::byte> bytes(reinterpret_cast<const std::byte*>(data),
                               reinterpret_cast<const std::byte*>(data) + size);
  bytes.shrink_to_fit();
  Expected<onnx_frontend::HostTensor> decoded =
      onnx_frontend::DecodeTensorProto(std::span<const std::byte>(bytes.data(), size));
  if (!decoded.ok()) {
    ELTWISE_FUZZ_CHECK(!decoded.status().message().empty());
    return;
  }
  const onnx_frontend::HostTensor& t = *decoded;
  ELTWISE_FUZZ_CHECK(t.data.size() == t.element_count() * ElementSize(t.type));
  const std::vector<std::byte> encoded = onnx_frontend::EncodeTensorProto(t);
  Expected<onnx_frontend::HostTensor> again = onnx_frontend::DecodeTensorProto(encoded);
  ELTWISE_FUZZ_CHECK(again.ok());
  ELTWISE_FUZZ_CHECK(again->name == t.name && again->type == t.type && again->shape == t.shape &&
                     again->data == t.data);
}

}  // namespace
}  // namespace eltwise::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  eltwise::fuzz::Run(data, size);
  return 0;
}
