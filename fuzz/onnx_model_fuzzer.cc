// Fuzzes ONNX model loading (onnx_frontend::Model::Parse) and, for loaded models with small
// declared inputs, running them on the CPU device. Any input must either be rejected with a
// message or load; a loaded model's nodes must be registered ops (core/op_registry.h), and a run
// with inputs of the declared types and shapes must either succeed with one output per graph
// output of the declared type, or fail with a message. The model bytes are exactly the bytes the
// loader may read (ASan).
#include <cstring>
#include <vector>

#include "core/op_registry.h"
#include "fuzz_util.h"
#include "onnx/onnx_frontend.h"

namespace eltwise::fuzz {
namespace {

constexpr uint64_t kMaxInputElements = 4096;

void Run(const uint8_t* data, size_t size) {
  std::vector<std::byte> bytes(reinterpret_cast<const std::byte*>(data),
                               reinterpret_cast<const std::byte*>(data) + size);
  bytes.shrink_to_fit();
  Expected<onnx_frontend::Model> model =
      onnx_frontend::Model::Parse(std::span<const std::byte>(bytes.data(), size), "fuzz");
  if (!model.ok()) {
    ELTWISE_FUZZ_CHECK(!model.status().message().empty());
    return;
  }
  for (const onnx_frontend::NodeInfo& node : model->nodes()) {
    ELTWISE_FUZZ_CHECK(FindOpByTitle(node.op_type) != nullptr);
  }
  // Inputs of the declared types; unknown dimensions are 1 (consistent for shared dim_params).
  std::vector<onnx_frontend::NamedTensor> inputs;
  for (const onnx_frontend::ValueInfo& info : model->inputs()) {
    onnx_frontend::NamedTensor input;
    input.name = info.name;
    input.tensor.type = info.type;
    uint64_t count = 1;
    for (const std::optional<uint64_t>& d : info.dims) {
      const uint64_t dim = d.value_or(1);
      input.tensor.shape.push_back(dim);
      if (dim != 0 && count > kMaxInputElements / dim) return;  // too large to run here
      count *= dim;
    }
    input.tensor.data.resize(count * ElementSize(info.type));
    for (size_t i = 0; i < input.tensor.data.size(); ++i) {
      input.tensor.data[i] = static_cast<std::byte>(data[i % size] ^ i);
    }
    inputs.push_back(std::move(input));
  }
  static const Device device = *Device::Cpu({FeatureLevel::kExtended, 1});
  Expected<std::vector<onnx_frontend::NamedTensor>> outputs = model->Run(device, inputs);
  if (!outputs.ok()) {
    ELTWISE_FUZZ_CHECK(!outputs.status().message().empty());
    return;
  }
  ELTWISE_FUZZ_CHECK(outputs->size() == model->outputs().size());
  for (size_t i = 0; i < outputs->size(); ++i) {
    const onnx_frontend::HostTensor& t = (*outputs)[i].tensor;
    ELTWISE_FUZZ_CHECK(t.type == model->outputs()[i].type);
    ELTWISE_FUZZ_CHECK(t.data.size() == t.element_count() * ElementSize(t.type));
  }
}

}  // namespace
}  // namespace eltwise::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  eltwise::fuzz::Run(data, size);
  return 0;
}
