// Allocation faults through the ONNX front end (see alloc_fault_test.cc for the loop): a model
// file loaded and run into caller-owned memory, and run into new tensors.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "fault/until_success.h"
#include "onnx/onnx_frontend.h"
#include "oracle.h"
#include "scratch_files.h"

namespace eltwise::testing {
namespace {

using onnx_frontend::InputView;
using onnx_frontend::Model;
using onnx_frontend::NamedTensor;

constexpr uint64_t kCount = 3000;

// Y = Round(Sign(X)) over float [N], opset 22, as a serialized model.
std::string SignRoundModel() {
  ::onnx::ModelProto m;
  m.set_ir_version(10);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(22);
  auto* g = m.mutable_graph();
  g->set_name("g");
  const auto declare = [](::onnx::ValueInfoProto* v, const std::string& name) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(::onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("N");
  };
  auto* sign = g->add_node();
  sign->set_op_type("Sign");
  sign->add_input("X");
  sign->add_output("S");
  auto* round = g->add_node();
  round->set_op_type("Round");
  round->add_input("S");
  round->add_output("Y");
  declare(g->add_input(), "X");
  declare(g->add_output(), "Y");
  return m.SerializeAsString();
}

class OnnxAllocationFaults : public ScratchDirTest {};

TEST_F(OnnxAllocationFaults, LoadAndRunInto) {
  const std::string path = (dir_ / "m.onnx").string();
  std::ofstream(path, std::ios::binary) << SignRoundModel();
  Expected<Device> device = Device::Cpu(CpuOptions{.threads = 2});
  ASSERT_TRUE(device.ok());
  std::vector<float> x(kCount);
  for (uint64_t i = 0; i < kCount; ++i) x[i] = static_cast<float>(i % 7) - 3.25f;
  // The output buffer: a sentinel before every run; Sign then Round per element after success.
  const std::vector<float> sentinel(kCount, 1234.5f);
  std::vector<float> expected(kCount);
  for (uint64_t i = 0; i < kCount; ++i) {
    const Decoded s =
        OracleSign(DataType::kFloat32, Decode(DataType::kFloat32, &x[i]), NanPolicy::kZero);
    const float sf = static_cast<float>(s.real);
    const Decoded r = OracleRound(DataType::kFloat32, Decode(DataType::kFloat32, &sf),
                                  RoundingMode::kHalvesToNearestEven);
    expected[i] = static_cast<float>(r.real);
  }
  std::vector<float> y;
  const uint64_t shape[1] = {kCount};
  const InputView input{"X", DataType::kFloat32, shape, x.data(), 4 * kCount};
  const auto same_bits = [](const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), 4 * a.size()) == 0;
  };
  // At a DirectML level the values go through aligned buffers of DirectML's sizes (DeviceBuffers
  // on the host) rather than straight between the caller's arrays.
  Expected<Device> directml_level =
      Device::Cpu(CpuOptions{.feature_level = FeatureLevel::k6_4, .threads = 2});
  ASSERT_TRUE(directml_level.ok());
  for (const auto& [label, run_device] :
       {std::pair{"onnx Model::Load+RunInto", &*device},
        std::pair{"onnx Model::Load+RunInto at level 6_4", &*directml_level}}) {
    UntilSuccess(
        label,
        [&, run_device = run_device]() -> Status {
          Expected<Model> model = Model::Load(path);
          if (!model.ok()) return model.status();
          return model->RunInto(
              *run_device, std::span(&input, 1),
              [&](size_t, DataType, std::span<const uint64_t>) -> void* { return y.data(); });
        },
        Checks{[&] { y = sentinel; },
               [&] { EXPECT_TRUE(same_bits(y, sentinel)) << "a failing run wrote the output"; },
               [&] { EXPECT_TRUE(same_bits(y, expected)) << "the result is not the oracle's"; }});
  }

  Expected<Model> model = Model::Load(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  std::vector<NamedTensor> inputs(1);
  inputs[0].name = "X";
  inputs[0].tensor.shape = {kCount};
  inputs[0].tensor.data.resize(4 * kCount);
  std::memcpy(inputs[0].tensor.data.data(), x.data(), 4 * kCount);
  std::vector<NamedTensor> outputs;
  UntilSuccess(
      "onnx Model::Run",
      [&]() -> Status {
        Expected<std::vector<NamedTensor>> r = model->Run(*device, inputs);
        if (!r.ok()) return r.status();
        outputs = std::move(*r);
        return Status::Ok();
      },
      Checks{[&] { outputs.clear(); }, [] {},
             [&] {
               ASSERT_EQ(outputs.size(), 1u);
               ASSERT_EQ(outputs[0].tensor.data.size(), 4 * kCount);
               EXPECT_EQ(std::memcmp(outputs[0].tensor.data.data(), expected.data(), 4 * kCount),
                         0);
             }});
}

}  // namespace
}  // namespace eltwise::testing
