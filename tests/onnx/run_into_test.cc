// Model::RunInto: borrowed inputs, caller-allocated outputs, in-place chains, pass-through and
// repeated outputs, intermediate values read twice, and the compile cache; results compared bit
// for bit with the oracle (tests/oracle.h), on a CPU device at the extended level (the host path)
// and at a DirectML level (the staged path).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstring>
#include <string>
#include <vector>

#include "../oracle.h"
#include "onnx/onnx_frontend.h"

namespace eltwise::onnx_frontend {
namespace {

using ::onnx::TensorProto;
using testing::Decode;
using testing::Decoded;
using testing::OracleRound;
using testing::OracleSign;
using testing::SameValue;

// A graph of float16 [N] values: `nodes` as (op, input, output), graph inputs `inputs`, graph
// outputs `outputs`.
struct Node {
  std::string op, input, output;
};
Expected<Model> Graph(const std::vector<Node>& nodes, const std::vector<std::string>& inputs,
                      const std::vector<std::string>& outputs, int type = TensorProto::FLOAT16) {
  ::onnx::ModelProto m;
  m.set_ir_version(10);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(22);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto declare = [&](::onnx::ValueInfoProto* v, const std::string& name) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    t->mutable_shape()->add_dim()->set_dim_param("N");
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    auto* n = g->add_node();
    n->set_op_type(nodes[i].op);
    n->add_input(nodes[i].input);
    n->add_output(nodes[i].output);
    n->set_name("n" + std::to_string(i));
  }
  for (const std::string& name : inputs) declare(g->add_input(), name);
  for (const std::string& name : outputs) declare(g->add_output(), name);
  const std::string s = m.SerializeAsString();
  return Model::Parse(std::as_bytes(std::span(s.data(), s.size())), "g.onnx");
}

const Device& Cpu() {
  static const Device device = *Device::Cpu();
  return device;
}
const Device& DirectMLLevelCpu() {
  static const Device device = *Device::Cpu(CpuOptions{.feature_level = FeatureLevel::k5_0});
  return device;
}

// Every float16 bit pattern.
std::vector<uint16_t> AllHalves() {
  std::vector<uint16_t> v(65536);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint16_t>(i);
  return v;
}

// What `ops` (applied in order, with ONNX's meanings) make of float16 `bits`.
Decoded Oracle(const std::vector<std::string>& ops, uint16_t bits) {
  Decoded d = Decode(DataType::kFloat16, &bits);
  for (const std::string& op : ops) {
    d = op == "Sign" ? OracleSign(DataType::kFloat16, d, NanPolicy::kPropagate)
                     : OracleRound(DataType::kFloat16, d, RoundingMode::kHalvesToNearestEven);
  }
  return d;
}

// Element i of `out` matches the oracle of `ops` on x[i], for every i.
void ExpectOracle(const std::vector<std::string>& ops, const std::vector<uint16_t>& x,
                  const std::vector<uint16_t>& out, const std::string& what) {
  ASSERT_EQ(out.size(), x.size()) << what;
  int failures = 0;
  for (size_t i = 0; i < x.size() && failures < 5; ++i) {
    const Decoded want = Oracle(ops, x[i]);
    if (!SameValue(Decode(DataType::kFloat16, &out[i]), want)) {
      ADD_FAILURE() << what << ": x = 0x" << std::hex << x[i] << " gave 0x" << out[i] << ", want "
                    << testing::ToString(DataType::kFloat16, want);
      ++failures;
    }
  }
}

// Runs `model` on input "x" = `x` (borrowed), outputs into buffers allocated here; checks every
// allocation's type and shape and that x was not written.
struct Outcome {
  Status status;
  std::vector<std::vector<uint16_t>> outputs;
  int allocations = 0;
};
Outcome RunHalves(const Model& model, const Device& device, const std::vector<uint16_t>& x) {
  const std::vector<uint16_t> before = x;
  const std::vector<uint64_t> shape = {x.size()};
  const InputView input{"x", DataType::kFloat16, shape, x.data(), x.size() * 2};
  Outcome r;
  r.outputs.resize(model.outputs().size());
  r.status = model.RunInto(device, std::span(&input, 1),
                           [&](size_t k, DataType type, std::span<const uint64_t> s) -> void* {
                             ++r.allocations;
                             EXPECT_EQ(type, DataType::kFloat16);
                             EXPECT_EQ(std::vector<uint64_t>(s.begin(), s.end()), shape);
                             r.outputs.at(k).assign(x.size(), 0x7e01);  // a NaN no op makes
                             return r.outputs[k].data();
                           });
  EXPECT_EQ(x, before) << "the borrowed input was written";
  return r;
}

TEST(OnnxRunInto, ChainRunsInPlaceInTheOutputBufferExhaustiveFloat16) {
  // x -> Round -> a -> Sign -> b -> Round -> y: a and b are single-use, so all three nodes write
  // y's buffer (the last two in place).
  Expected<Model> model =
      Graph({{"Round", "x", "a"}, {"Sign", "a", "b"}, {"Round", "b", "y"}}, {"x"}, {"y"});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const std::vector<uint16_t> x = AllHalves();
  for (const Device* device : {&Cpu(), &DirectMLLevelCpu()}) {
    Outcome r = RunHalves(*model, *device, x);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.allocations, 1);
    ExpectOracle({"Round", "Sign", "Round"}, x, r.outputs[0], device->description());
  }
}

TEST(OnnxRunInto, PassThroughRepeatedAndIntermediateOutputs) {
  // Outputs: y = Sign(Round(x)), x itself, y again, r = Round(x) (also read by Sign), and from a
  // value read twice (t = Sign(x) -> Round -> u, -> Sign -> v); `dead` is computed but unused.
  Expected<Model> model = Graph({{"Round", "x", "r"},
                                 {"Sign", "r", "y"},
                                 {"Sign", "x", "t"},
                                 {"Round", "t", "u"},
                                 {"Sign", "t", "v"},
                                 {"Round", "x", "dead"}},
                                {"x"}, {"y", "x", "y", "r", "u", "v"});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const std::vector<uint16_t> x = AllHalves();
  for (const Device* device : {&Cpu(), &DirectMLLevelCpu()}) {
    const std::string where = device->description();
    Outcome r = RunHalves(*model, *device, x);
    ASSERT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_EQ(r.allocations, 6);
    ExpectOracle({"Round", "Sign"}, x, r.outputs[0], where + " y");
    EXPECT_EQ(r.outputs[1], x) << where << " pass-through x";
    EXPECT_EQ(r.outputs[2], r.outputs[0]) << where << " y listed twice";
    ExpectOracle({"Round"}, x, r.outputs[3], where + " r");
    ExpectOracle({"Sign", "Round"}, x, r.outputs[4], where + " u");
    ExpectOracle({"Sign", "Sign"}, x, r.outputs[5], where + " v");
  }
}

TEST(OnnxRunInto, SharesTheCompileCacheWithRun) {
  Expected<Model> model = Graph({{"Round", "x", "a"}, {"Sign", "a", "y"}}, {"x"}, {"y"});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const std::vector<uint16_t> x = AllHalves();
  for (int rep = 0; rep < 3; ++rep) {
    ASSERT_TRUE(RunHalves(*model, Cpu(), x).status.ok());
    EXPECT_EQ(model->compile_count(), 2u);
  }
  const std::vector<uint16_t> small(x.begin(), x.begin() + 100);
  for (int rep = 0; rep < 3; ++rep) {
    Outcome r = RunHalves(*model, Cpu(), small);
    ASSERT_TRUE(r.status.ok());
    ExpectOracle({"Round", "Sign"}, small, r.outputs[0], "100 elements");
    EXPECT_EQ(model->compile_count(), 4u);
  }
  // Run (HostTensor) goes through RunInto and finds the same operators.
  HostTensor t;
  t.type = DataType::kFloat16;
  t.shape = {100};
  t.data.resize(200);
  std::memcpy(t.data.data(), small.data(), 200);
  Expected<std::vector<NamedTensor>> out = model->Run(Cpu(), {{"x", t}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<uint16_t> got(100);
  std::memcpy(got.data(), (*out)[0].tensor.data.data(), 200);
  ExpectOracle({"Round", "Sign"}, small, got, "Run");
  EXPECT_EQ(model->compile_count(), 4u);
}

TEST(OnnxRunInto, RejectedInputsAllocateAndWriteNothing) {
  Expected<Model> model = Graph({{"Round", "x", "y"}}, {"x"}, {"y"});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const std::vector<uint16_t> x(8, 0x3c00);
  const std::vector<uint64_t> shape = {8}, wrong_rank = {2, 4};
  int allocations = 0;
  auto allocate = [&](size_t, DataType, std::span<const uint64_t>) -> void* {
    ++allocations;
    return nullptr;
  };
  auto run = [&](InputView in) { return model->RunInto(Cpu(), std::span(&in, 1), allocate); };
  Status s = run({"x", DataType::kFloat16, shape, x.data(), 15});
  EXPECT_EQ(s.message(), "input 'x' has 15 bytes of data; shape [8] needs 16");
  s = run({"x", DataType::kFloat32, shape, x.data(), 32});
  EXPECT_EQ(s.message(), "input 'x' is FLOAT; the model declares FLOAT16");
  s = run({"x", DataType::kFloat16, wrong_rank, x.data(), 16});
  EXPECT_EQ(s.message(), "input 'x' has shape [2,4] (rank 2); the model declares [N] (rank 1)");
  s = run({"z", DataType::kFloat16, shape, x.data(), 16});
  EXPECT_EQ(s.message(), "the model has no input 'z' (its inputs: x)");
  s = run({"x", DataType::kFloat16, shape, nullptr, 16});
  EXPECT_EQ(s.message(), "input 'x' has no data (a null pointer)");
  EXPECT_EQ(allocations, 0);
  // An allocator that fails stops the run before any node runs.
  s = run({"x", DataType::kFloat16, shape, x.data(), 16});
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(s.message(), "graph output 'y': no buffer for its 16 bytes");
  EXPECT_EQ(allocations, 1);
}

}  // namespace
}  // namespace eltwise::onnx_frontend
