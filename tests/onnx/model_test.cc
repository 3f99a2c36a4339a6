// ONNX models: validation errors, execution semantics (expected values written out literally from
// docs/semantics.md and the ONNX operator definitions), graph handling, and ONNX's official node
// tests.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <thread>

#include "onnx/onnx_frontend.h"
#include "scratch_files.h"
#include "untouched_bytes.h"

namespace eltwise::onnx_frontend {
namespace {

using ::onnx::TensorProto;

// ---- model building --------------------------------------------------------------------------

struct Dim {
  int64_t value = -1;  // -1: symbolic (dim_param)
  std::string param;
};
Dim D(int64_t v) { return {v, ""}; }
Dim P(std::string p) { return {-1, std::move(p)}; }

void SetValueInfo(::onnx::ValueInfoProto* v, const std::string& name, int type,
                  const std::vector<Dim>& dims) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(type);
  auto* shape = t->mutable_shape();
  for (const Dim& d : dims) {
    auto* dim = shape->add_dim();
    if (d.value >= 0) {
      dim->set_dim_value(d.value);
    } else {
      dim->set_dim_param(d.param);
    }
  }
}

::onnx::NodeProto* AddNode(::onnx::ModelProto& m, const std::string& op, const std::string& in,
                           const std::string& out, const std::string& name = "") {
  auto* n = m.mutable_graph()->add_node();
  n->set_op_type(op);
  n->add_input(in);
  n->add_output(out);
  n->set_name(name);
  return n;
}

// A model with one node op(x) -> y of `type` and shape `dims`.
::onnx::ModelProto OneNode(const std::string& op, int type, std::vector<Dim> dims, int opset,
                           int64_t ir_version = 8) {
  ::onnx::ModelProto m;
  m.set_ir_version(ir_version);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  m.mutable_graph()->set_name("g");
  AddNode(m, op, "x", "y", "n0");
  SetValueInfo(m.mutable_graph()->add_input(), "x", type, dims);
  SetValueInfo(m.mutable_graph()->add_output(), "y", type, dims);
  return m;
}

std::vector<std::byte> Bytes(const std::string& s) {
  std::vector<std::byte> out(s.size());
  std::memcpy(out.data(), s.data(), s.size());
  return out;
}

std::vector<std::byte> Bytes(const ::onnx::ModelProto& m) { return Bytes(m.SerializeAsString()); }

Expected<Model> Load(const ::onnx::ModelProto& m) { return Model::Parse(Bytes(m), "m.onnx"); }

std::string LoadError(const ::onnx::ModelProto& m) {
  Expected<Model> r = Load(m);
  EXPECT_FALSE(r.ok()) << "the model was accepted";
  return r.ok() ? "" : r.status().message();
}

template <class T>
HostTensor Tensor(DataType type, std::vector<uint64_t> shape, std::vector<T> values) {
  HostTensor t;
  t.type = type;
  t.shape = std::move(shape);
  t.data.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

template <class T>
std::vector<T> Values(const HostTensor& t) {
  std::vector<T> v(t.data.size() / sizeof(T));
  if (!t.data.empty()) std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

const Device& Cpu() {
  static const Device device = *Device::Cpu();
  return device;
}

// Runs a one-input model and returns output 0.
HostTensor RunOne(const ::onnx::ModelProto& m, HostTensor x) {
  Expected<Model> model = Load(m);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  if (!model.ok()) return {};
  Expected<std::vector<NamedTensor>> out = model->Run(Cpu(), {{"x", std::move(x)}});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? (*out)[0].tensor : HostTensor{};
}

// ---- semantics -------------------------------------------------------------------------------

TEST(OnnxSemantics, SignFloat32PropagatesNan) {
  const std::vector<uint32_t> in = {
      0xC0200000u /* -2.5 */, 0x80000000u /* -0 */,   0x00000000u, 0x7FC00000u /* NaN */,
      0x7F800000u /* +inf */, 0xFF800000u /* -inf */, 0x00000001u, 0x80000001u};
  const std::vector<uint32_t> want = {0xBF800000u, 0x00000000u, 0x00000000u, 0x7FC00000u,
                                      0x3F800000u, 0xBF800000u, 0x3F800000u, 0xBF800000u};
  for (int opset : {9, 13, 28}) {
    const HostTensor y = RunOne(OneNode("Sign", TensorProto::FLOAT, {D(8)}, opset),
                                Tensor(DataType::kFloat32, {8}, in));
    const std::vector<uint32_t> got = Values<uint32_t>(y);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      if (i == 3) {
        EXPECT_EQ(got[i] & 0x7F800000u, 0x7F800000u);  // NaN (payload free)
        EXPECT_NE(got[i] & 0x007FFFFFu, 0u);
      } else {
        EXPECT_EQ(got[i], want[i]) << "element " << i << " opset " << opset;
      }
    }
  }
}

TEST(OnnxSemantics, SignFloat16AndBFloat16Nan) {
  // float16 NaN gives NaN (ONNX Runtime's CPU kernel gives 0 here; see docs/onnx.md).
  const HostTensor y =
      RunOne(OneNode("Sign", TensorProto::FLOAT16, {D(4)}, 9),
             Tensor<uint16_t>(DataType::kFloat16, {4}, {0x7E00, 0x8000, 0xBC00, 0x0001}));
  const std::vector<uint16_t> got = Values<uint16_t>(y);
  ASSERT_EQ(got.size(), 4u);
  EXPECT_GT(got[0] & 0x7FFF, 0x7C00);  // NaN
  EXPECT_EQ(got[1], 0x0000);           // Sign(-0) = +0
  EXPECT_EQ(got[2], 0xBC00);           // -1
  EXPECT_EQ(got[3], 0x3C00);           // +1 for the smallest subnormal

  const HostTensor b = RunOne(OneNode("Sign", TensorProto::BFLOAT16, {D(3)}, 13),
                              Tensor<uint16_t>(DataType::kBFloat16, {3}, {0xFFC1, 0x8000, 0x4049}));
  const std::vector<uint16_t> bg = Values<uint16_t>(b);
  ASSERT_EQ(bg.size(), 3u);
  EXPECT_GT(bg[0] & 0x7FFF, 0x7F80);
  EXPECT_EQ(bg[1], 0x0000);
  EXPECT_EQ(bg[2], 0x3F80);
}

TEST(OnnxSemantics, SignIntegers) {
  const HostTensor i8 = RunOne(OneNode("Sign", TensorProto::INT8, {D(5)}, 13),
                               Tensor<int8_t>(DataType::kInt8, {5}, {-128, -1, 0, 1, 127}));
  EXPECT_EQ(Values<int8_t>(i8), (std::vector<int8_t>{-1, -1, 0, 1, 1}));
  const HostTensor u64 =
      RunOne(OneNode("Sign", TensorProto::UINT64, {D(3)}, 9),
             Tensor<uint64_t>(DataType::kUInt64, {3}, {0, 1, 0xFFFFFFFFFFFFFFFFull}));
  EXPECT_EQ(Values<uint64_t>(u64), (std::vector<uint64_t>{0, 1, 1}));
}

TEST(OnnxSemantics, RoundIsHalvesToEven) {
  // DirectML's table for HALVES_TO_NEAREST_EVEN, then -0.4 -> -0, 0.49999997 -> 0, 2^23 + 1 stays.
  const std::vector<float> in = {-2.5f, -1.75f, -1.5f, -1.25f,      0.0f,       1.25f,    1.5f,
                                 1.75f, 2.5f,   -0.4f, 0.49999997f, 8388609.0f, -INFINITY};
  const std::vector<float> want = {-2, -2, -2, -1, 0, 1, 2, 2, 2, -0.0f, 0, 8388609.0f, -INFINITY};
  for (int opset : {11, 22}) {
    const HostTensor y = RunOne(OneNode("Round", TensorProto::FLOAT, {D(13)}, opset),
                                Tensor(DataType::kFloat32, {13}, in));
    const std::vector<float> got = Values<float>(y);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i]))
          << "element " << i << " opset " << opset;
    }
  }
}

TEST(OnnxSemantics, RoundFloat16BFloat16Float64) {
  const HostTensor h =
      RunOne(OneNode("Round", TensorProto::FLOAT16, {D(5)}, 11),
             Tensor<uint16_t>(DataType::kFloat16, {5},
                              {0x4100 /* 2.5 */, 0x3800 /* 0.5 */, 0xB800 /* -0.5 */,
                               0x3E00 /* 1.5 */, 0x6401 /* 1025 */}));
  EXPECT_EQ(Values<uint16_t>(h), (std::vector<uint16_t>{0x4000, 0x0000, 0x8000, 0x4000, 0x6401}));
  // bfloat16 needs Round-22 (opset 22 or later).
  const HostTensor b =
      RunOne(OneNode("Round", TensorProto::BFLOAT16, {D(3)}, 22, /*ir_version=*/10),
             Tensor<uint16_t>(DataType::kBFloat16, {3},
                              {0x4020 /* 2.5 */, 0xBFC0 /* -1.5 */, 0x4301 /* 129 */}));
  EXPECT_EQ(Values<uint16_t>(b), (std::vector<uint16_t>{0x4000, 0xC000, 0x4301}));
  const HostTensor d = RunOne(OneNode("Round", TensorProto::DOUBLE, {}, 13),
                              Tensor<double>(DataType::kFloat64, {}, {-3.5}));
  EXPECT_EQ(Values<double>(d), (std::vector<double>{-4.0}));
}

TEST(OnnxSemantics, RanksZeroToEightAndEmpty) {
  for (int rank = 0; rank <= 8; ++rank) {
    std::vector<Dim> dims;
    std::vector<uint64_t> shape;
    for (int i = 0; i < rank; ++i) {
      dims.push_back(D(i % 2 + 1));
      shape.push_back(i % 2 + 1);
    }
    HostTensor x = Tensor<float>(DataType::kFloat32, shape, {});
    const uint64_t n = x.element_count();
    std::vector<float> in(n), want(n);
    for (uint64_t i = 0; i < n; ++i) {
      in[i] = static_cast<float>(i) - 2.5f;  // -2.5, -1.5, -0.5, 0.5, ...
      want[i] = in[i] < 0 ? -1.0f : 1.0f;
    }
    const HostTensor y = RunOne(OneNode("Sign", TensorProto::FLOAT, dims, 13),
                                Tensor(DataType::kFloat32, shape, in));
    EXPECT_EQ(y.shape, shape) << rank;
    EXPECT_EQ(Values<float>(y), want) << rank;
  }
  const HostTensor e = RunOne(OneNode("Round", TensorProto::FLOAT, {D(0), D(5)}, 11),
                              Tensor<float>(DataType::kFloat32, {0, 5}, {}));
  EXPECT_EQ(e.shape, (std::vector<uint64_t>{0, 5}));
  EXPECT_TRUE(e.data.empty());
}

TEST(OnnxSemantics, DirectMLFeatureLevelDevice) {
  // Buffers are sized for DirectML's rounded-up TotalTensorSizeInBytes, so a DirectML-level
  // device runs what that level supports (3 float16 elements: 6 bytes, rounded up to 8) ...
  const Device dml = *Device::Cpu(CpuOptions{.feature_level = FeatureLevel::k3_0});
  Expected<Model> m = Load(OneNode("Round", TensorProto::FLOAT16, {D(3)}, 11));
  ASSERT_TRUE(m.ok());
  Expected<std::vector<NamedTensor>> out =
      m->Run(dml, {{"x", Tensor<uint16_t>(DataType::kFloat16, {3}, {0x3E00, 0xBE00, 0x4100})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values<uint16_t>((*out)[0].tensor), (std::vector<uint16_t>{0x4000, 0xC000, 0x4000}));
  // ... and reports what it does not, naming the node.
  Expected<Model> b = Load(OneNode("Sign", TensorProto::BFLOAT16, {D(3)}, 13));
  ASSERT_TRUE(b.ok());
  Expected<std::vector<NamedTensor>> bad =
      b->Run(dml, {{"x", Tensor<uint16_t>(DataType::kBFloat16, {3}, {1, 2, 3})}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("node 'n0' (Sign): ", 0), 0u) << bad.status().message();
}

// ---- graphs ----------------------------------------------------------------------------------

TEST(OnnxGraph, UnsortedChainRunsInTopologicalOrder) {
  ::onnx::ModelProto m = OneNode("Sign", TensorProto::FLOAT, {D(4)}, 13);
  m.mutable_graph()->mutable_node(0)->set_input(0, "r");  // y = Sign(r), listed first
  AddNode(m, "Round", "x", "r", "round");                 // r = Round(x), listed second
  Expected<Model> model = Load(m);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ASSERT_EQ(model->nodes().size(), 2u);
  EXPECT_EQ(model->nodes()[0].op_type, "Round");
  EXPECT_EQ(model->nodes()[1].op_type, "Sign");
  EXPECT_EQ(model->nodes()[0].since_version, 11);
  EXPECT_EQ(model->nodes()[1].since_version, 13);
  Expected<std::vector<NamedTensor>> out = model->Run(
      Cpu(), {{"x", Tensor<float>(DataType::kFloat32, {4}, {-0.4f, 0.4f, 0.6f, -0.6f})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Round gives -0, 0, 1, -1; Sign of those: +0, +0, 1, -1.
  const std::vector<float> got = Values<float>((*out)[0].tensor);
  EXPECT_EQ(std::bit_cast<uint32_t>(got[0]), 0u);
  EXPECT_EQ(got, (std::vector<float>{0, 0, 1, -1}));
}

TEST(OnnxGraph, InitializersDefaultsAndPassThrough) {
  ::onnx::ModelProto m = OneNode("Sign", TensorProto::INT32, {D(2)}, 13);
  // w: an initializer that is also a graph input (a default the caller may override).
  TensorProto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(TensorProto::INT32);
  w->add_dims(2);
  w->add_int32_data(-5);
  w->add_int32_data(0);
  SetValueInfo(m.mutable_graph()->add_input(), "w", TensorProto::INT32, {D(2)});
  AddNode(m, "Sign", "w", "sw");
  SetValueInfo(m.mutable_graph()->add_output(), "sw", TensorProto::INT32, {D(2)});
  SetValueInfo(m.mutable_graph()->add_output(), "x", TensorProto::INT32, {D(2)});  // pass-through
  Expected<Model> model = Load(m);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ASSERT_EQ(model->inputs().size(), 1u);  // w has a default
  EXPECT_EQ(model->inputs()[0].name, "x");

  const HostTensor x = Tensor<int32_t>(DataType::kInt32, {2}, {7, -7});
  Expected<std::vector<NamedTensor>> out = model->Run(Cpu(), {{"x", x}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ(Values<int32_t>((*out)[0].tensor), (std::vector<int32_t>{1, -1}));
  EXPECT_EQ(Values<int32_t>((*out)[1].tensor), (std::vector<int32_t>{-1, 0}));
  EXPECT_EQ(Values<int32_t>((*out)[2].tensor), (std::vector<int32_t>{7, -7}));

  Expected<std::vector<NamedTensor>> over =
      model->Run(Cpu(), {{"x", x}, {"w", Tensor<int32_t>(DataType::kInt32, {2}, {3, 0})}});
  ASSERT_TRUE(over.ok()) << over.status().ToString();
  EXPECT_EQ(Values<int32_t>((*over)[1].tensor), (std::vector<int32_t>{1, 0}));
}

TEST(OnnxGraph, SymbolicDimsBindConsistently) {
  ::onnx::ModelProto m = OneNode("Sign", TensorProto::FLOAT, {P("N"), D(2)}, 13);
  SetValueInfo(m.mutable_graph()->add_input(), "x2", TensorProto::FLOAT, {P("N")});
  AddNode(m, "Round", "x2", "y2");
  SetValueInfo(m.mutable_graph()->add_output(), "y2", TensorProto::FLOAT, {P("N")});
  Expected<Model> model = Load(m);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const HostTensor x = Tensor<float>(DataType::kFloat32, {3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(
      model->Run(Cpu(), {{"x", x}, {"x2", Tensor<float>(DataType::kFloat32, {3}, {1, 2, 3})}})
          .ok());
  Expected<std::vector<NamedTensor>> bad =
      model->Run(Cpu(), {{"x", x}, {"x2", Tensor<float>(DataType::kFloat32, {4}, {1, 2, 3, 4})}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'N') is 4 but another tensor bound 'N' to 3"),
            std::string::npos)
      << bad.status().message();
}

TEST(OnnxGraph, CompiledOncePerDeviceAndShape) {
  // y = Sign(Round(x)) with a symbolic dimension: two nodes to compile per input shape.
  ::onnx::ModelProto m = OneNode("Sign", TensorProto::FLOAT, {P("N")}, 13);
  m.mutable_graph()->mutable_node(0)->set_input(0, "r");
  AddNode(m, "Round", "x", "r", "round");
  Expected<Model> model = Load(m);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(model->compile_count(), 0u);
  auto run = [&](const Device& device, std::vector<float> x) {
    const uint64_t n = x.size();
    Expected<std::vector<NamedTensor>> out =
        model->Run(device, {{"x", Tensor<float>(DataType::kFloat32, {n}, std::move(x))}});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? Values<float>((*out)[0].tensor) : std::vector<float>();
  };
  for (int rep = 0; rep < 5; ++rep) {
    EXPECT_EQ(run(Cpu(), {-2.5f, 0.4f, 0.6f}), (std::vector<float>{-1, 0, 1}));
    EXPECT_EQ(model->compile_count(), 2u) << "run " << rep;
  }
  // A new shape compiles both nodes again, once; the first shape stays compiled.
  for (int rep = 0; rep < 3; ++rep) {
    EXPECT_EQ(run(Cpu(), {1.5f, -0.5f}), (std::vector<float>{1, 0}));
    EXPECT_EQ(run(Cpu(), {-2.5f, 0.4f, 0.6f}), (std::vector<float>{-1, 0, 1}));
    EXPECT_EQ(model->compile_count(), 4u) << "run " << rep;
  }
  // Another device (here: one running on the caller's thread only) has operators of its own.
  Expected<Device> other = Device::Cpu(CpuOptions{.threads = 1});
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  for (int rep = 0; rep < 3; ++rep) {
    EXPECT_EQ(run(*other, {-2.5f, 0.4f, 0.6f}), (std::vector<float>{-1, 0, 1}));
    EXPECT_EQ(model->compile_count(), 6u) << "run " << rep;
  }
}

TEST(OnnxGraph, ConcurrentRuns) {
  Expected<Model> model = Load(OneNode("Round", TensorProto::DOUBLE, {D(1000)}, 11));
  ASSERT_TRUE(model.ok());
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      std::vector<double> in(1000, t + 0.5);
      const double want = (t % 2 == 0) ? t : t + 1;  // halves to even
      for (int rep = 0; rep < 20; ++rep) {
        Expected<std::vector<NamedTensor>> out =
            model->Run(Cpu(), {{"x", Tensor(DataType::kFloat64, {1000}, in)}});
        if (!out.ok()) return;
        for (double v : Values<double>((*out)[0].tensor)) {
          if (v != want) return;
        }
      }
      ok[t] = 1;
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(ok, std::vector<int>(8, 1));
}

// ---- validation errors -----------------------------------------------------------------------

// Expects loading to fail with a message containing `text`.
#define EXPECT_LOAD_ERROR(model, text)                             \
  do {                                                             \
    const std::string message_ = LoadError(model);                 \
    EXPECT_NE(message_.find(text), std::string::npos) << message_; \
    EXPECT_EQ(message_.rfind("m.onnx: ", 0), 0u) << message_;      \
  } while (0)

#if !defined(_WIN32)
// More than protobuf's 2 GiB limit is refused before a byte is read.
TEST(OnnxModelErrors, OverTwoGiBIsRefusedUnread) {
  const testing::UntouchedBytes huge(size_t{1} << 31);
  ASSERT_TRUE(huge.ok());
  Expected<Model> r = Model::Parse(huge.bytes(), "big.onnx");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "big.onnx: 2147483648 bytes; protobuf messages (ONNX models without external data) "
            "are limited to 2 GiB");
}
#endif

TEST(OnnxModelErrors, MalformedBytes) {
  const std::vector<std::byte> good = Bytes(OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13));
  for (size_t cut = 1; cut < good.size(); cut += 3) {  // never a crash; an error or a valid prefix
    Expected<Model> r = Model::Parse(std::span(good.data(), cut), "m.onnx");
    if (!r.ok()) EXPECT_FALSE(r.status().message().empty());
  }
  Expected<Model> r = Model::Parse(std::span(good.data(), good.size() - 3), "m.onnx");
  ASSERT_FALSE(r.ok());
  std::vector<std::byte> garbage(64, std::byte{0xFF});
  Expected<Model> g = Model::Parse(garbage, "m.onnx");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("not a valid ONNX model"), std::string::npos);
  Expected<Model> missing = Model::Load("/nonexistent/model.onnx");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kIoError);
}

TEST(OnnxModelErrors, VersionsAndOpsets) {
  ::onnx::ModelProto m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.clear_ir_version();
  EXPECT_LOAD_ERROR(m, "ir_version is not set");
  EXPECT_LOAD_ERROR(OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13, 2),
                    "ir_version 2 has no opset");
  // 0 (and below) is no version; 1 is one, without opsets.
  EXPECT_LOAD_ERROR(OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13, 0), "ir_version is not set");
  EXPECT_LOAD_ERROR(OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13, -1), "ir_version is not set");
  EXPECT_LOAD_ERROR(OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13, 1),
                    "ir_version 1 has no opset");
  EXPECT_LOAD_ERROR(OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13, 15),
                    "ir_version 15 is newer than eltwise knows (14)");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_opset_import(0)->set_domain("com.example");
  EXPECT_LOAD_ERROR(m, "opset_import has no entry for the ai.onnx");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  auto* second = m.add_opset_import();
  second->set_domain("ai.onnx");
  second->set_version(9);
  EXPECT_LOAD_ERROR(m, "lists the ai.onnx domain twice, with versions 13 and 9");
  EXPECT_LOAD_ERROR(OneNode("Sign", TensorProto::FLOAT, {D(2)}, 29),
                    "ai.onnx opset 29 is not supported; eltwise knows opsets 1-28");
  EXPECT_LOAD_ERROR(OneNode("Sign", TensorProto::FLOAT, {D(2)}, 0), "opset 0 is not supported");
  // Opset 1 is known; Sign is not in it.
  EXPECT_LOAD_ERROR(
      OneNode("Sign", TensorProto::FLOAT, {D(2)}, 1),
      "node 'n0' (Sign): Sign needs ai.onnx opset 9 or later; the model imports opset 1");
  EXPECT_LOAD_ERROR(
      OneNode("Sign", TensorProto::FLOAT, {D(2)}, 8),
      "node 'n0' (Sign): Sign needs ai.onnx opset 9 or later; the model imports opset 8");
  EXPECT_LOAD_ERROR(OneNode("Round", TensorProto::FLOAT, {D(2)}, 10),
                    "Round needs ai.onnx opset 11 or later");
  // "ai.onnx" is the same domain as "".
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_opset_import(0)->set_domain("ai.onnx");
  m.mutable_graph()->mutable_node(0)->set_domain("ai.onnx");
  EXPECT_TRUE(Load(m).ok()) << Load(m).status().ToString();
  // Round-22 needs IR version 10, newer than the linked ONNX checker's; it is still checked.
  EXPECT_TRUE(Load(OneNode("Round", TensorProto::BFLOAT16, {D(2)}, 22, 10)).ok());
}

TEST(OnnxModelErrors, OperatorsAndTypes) {
  EXPECT_LOAD_ERROR(OneNode("Abs", TensorProto::FLOAT, {D(2)}, 13),
                    "node 'n0' (Abs): operator 'Abs' is not supported; eltwise runs Sign (opsets "
                    "9, 13) and Round (opsets 11, 22) only");
  ::onnx::ModelProto m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->mutable_node(0)->set_domain("com.microsoft");
  EXPECT_LOAD_ERROR(m, "domain 'com.microsoft' is not supported");
  EXPECT_LOAD_ERROR(OneNode("Round", TensorProto::INT32, {D(2)}, 22),
                    "node 'n0' (Round): input 'x' is INT32, which Round-22 (selected by opset 22) "
                    "does not allow; it accepts FLOAT16, FLOAT, DOUBLE, BFLOAT16");
  EXPECT_LOAD_ERROR(OneNode("Round", TensorProto::BFLOAT16, {D(2)}, 21),
                    "BFLOAT16, which Round-11 (selected by opset 21) does not allow; it accepts "
                    "FLOAT16, FLOAT, DOUBLE (Round-22, from opset 22, adds BFLOAT16)");
  EXPECT_LOAD_ERROR(OneNode("Sign", TensorProto::BFLOAT16, {D(2)}, 12),
                    "BFLOAT16, which Sign-9 (selected by opset 12) does not allow");
  EXPECT_TRUE(Load(OneNode("Sign", TensorProto::BFLOAT16, {D(2)}, 13)).ok());
  EXPECT_LOAD_ERROR(OneNode("Sign", TensorProto::BOOL, {D(2)}, 13),
                    "graph input 'x' has element type BOOL, which eltwise does not support; it "
                    "supports FLOAT, FLOAT16, BFLOAT16, DOUBLE, INT8, INT16, INT32, INT64, UINT8, "
                    "UINT16, UINT32, UINT64");
  EXPECT_LOAD_ERROR(OneNode("Sign", TensorProto::STRING, {D(2)}, 13), "element type STRING");
  EXPECT_LOAD_ERROR(OneNode("Sign", TensorProto::FLOAT, std::vector<Dim>(9, D(1)), 13),
                    "graph input 'x' has rank 9; eltwise supports ranks 0-8");
}

TEST(OnnxModelErrors, NodeShape) {
  ::onnx::ModelProto m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->mutable_node(0)->add_input("x");
  EXPECT_LOAD_ERROR(m, "node 'n0' (Sign) has 2 inputs; Sign takes exactly 1");
  m = OneNode("Round", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->mutable_node(0)->add_output("z");
  EXPECT_LOAD_ERROR(m, "node 'n0' (Round) has 2 outputs; Round produces exactly 1");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->mutable_node(0)->set_input(0, "");
  EXPECT_LOAD_ERROR(m, "node 'n0' (Sign): input 0 is missing (empty name)");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  auto* attr = m.mutable_graph()->mutable_node(0)->add_attribute();
  attr->set_name("mode");
  attr->set_type(::onnx::AttributeProto::INT);
  attr->set_i(1);
  EXPECT_LOAD_ERROR(m, "node 'n0' (Sign) has attribute 'mode'; Sign has no attributes");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->mutable_node(0)->set_name("");
  m.mutable_graph()->mutable_node(0)->set_op_type("Relu");
  EXPECT_LOAD_ERROR(m, "node #0 (Relu): operator 'Relu' is not supported");
}

TEST(OnnxModelErrors, GraphStructure) {
  ::onnx::ModelProto m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->mutable_node(0)->set_input(0, "q");
  EXPECT_LOAD_ERROR(m,
                    "node 'n0' (Sign): input 'q' is not a graph input, an initializer or any "
                    "node's output");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  AddNode(m, "Round", "x", "y", "n1");
  EXPECT_LOAD_ERROR(m, "node 'n1' (Round): output 'y' is also produced by node 'n0' (Sign)");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  AddNode(m, "Round", "y", "x", "n1");
  EXPECT_LOAD_ERROR(m, "node 'n1' (Round): output 'x' redefines a graph input or initializer");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  AddNode(m, "Sign", "b", "a", "c0");
  AddNode(m, "Sign", "a", "b", "c1");
  EXPECT_LOAD_ERROR(m, "the graph has a cycle through node 'c0' (Sign)");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  AddNode(m, "Sign", "s", "s", "self");
  EXPECT_LOAD_ERROR(m, "the graph has a cycle through node 'self' (Sign)");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->mutable_output(0)->set_name("nothing");
  EXPECT_LOAD_ERROR(m, "graph output 'nothing' is not produced by any node");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(
      TensorProto::DOUBLE);
  EXPECT_LOAD_ERROR(m, "graph output 'y' is declared DOUBLE but the graph computes FLOAT");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()
      ->mutable_output(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_value(3);
  EXPECT_LOAD_ERROR(m, "graph output 'y' declares shape [3] but the graph's value has shape [2]");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_sequence_type();
  EXPECT_LOAD_ERROR(m, "graph input 'x' is a sequence, not a tensor; eltwise runs tensors only");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_map_type();
  EXPECT_LOAD_ERROR(m, "graph output 'y' is a map, not a tensor");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->add_input()->CopyFrom(m.graph().input(0));
  EXPECT_LOAD_ERROR(m, "graph input 'x' is listed twice");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->clear_output();
  EXPECT_LOAD_ERROR(m, "the graph has no outputs");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.clear_graph();
  EXPECT_NE(LoadError(m).find("m.onnx: "), std::string::npos);
}

TEST(OnnxModelErrors, Initializers) {
  ::onnx::ModelProto m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->mutable_node(0)->set_input(0, "w");
  TensorProto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(TensorProto::FLOAT);
  w->add_dims(2);
  w->set_raw_data(std::string(7, '\0'));
  EXPECT_LOAD_ERROR(m,
                    "initializer 'w': raw_data has 7 bytes; dims [2] (2 elements) of FLOAT "
                    "need 8");
  w->set_raw_data(std::string(8, '\0'));
  EXPECT_TRUE(Load(m).ok()) << Load(m).status().ToString();
  m.mutable_graph()->add_initializer()->CopyFrom(*w);
  EXPECT_LOAD_ERROR(m, "initializer 'w' is defined twice");
}

// Declarations eltwise rejects with its own message: value types that are not tensors, negative
// dims, unnamed inputs and initializers, sparse initializers, an initializer above the rank limit
// or of another element type than the input it gives a default to.
TEST(OnnxModelErrors, DeclarationsAndInitializers) {
  ::onnx::ModelProto m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_optional_type();
  EXPECT_LOAD_ERROR(m, "graph input 'x' is an optional, not a tensor");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_sparse_tensor_type();
  EXPECT_LOAD_ERROR(m, "graph output 'y' is a sparse tensor, not a tensor");
#if defined(ONNX_ML)
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_opaque_type();  // ONNX-ML's
  EXPECT_LOAD_ERROR(m, "graph input 'x' is of type kind 7, not a tensor");
#endif
  m = OneNode("Sign", TensorProto::FLOAT, {D(2), D(3)}, 13);
  m.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_value(-3);
  EXPECT_LOAD_ERROR(m, "graph input 'x' declares dims[1] = -3; dims must be >= 0");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  m.mutable_graph()->add_sparse_initializer();
  EXPECT_LOAD_ERROR(m, "graph has sparse initializers, which are not supported");
  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  SetValueInfo(m.mutable_graph()->add_input(), "", TensorProto::FLOAT, {D(2)});
  EXPECT_LOAD_ERROR(m, "graph input 1 has no name");

  const auto with_initializer = [](int type, int rank) {
    ::onnx::ModelProto model = OneNode("Sign", TensorProto::FLOAT, {D(1)}, 13);
    TensorProto* w = model.mutable_graph()->add_initializer();
    w->set_name("x");  // the default value of graph input x
    w->set_data_type(type);
    for (int i = 0; i < rank; ++i) w->add_dims(1);
    w->set_raw_data(std::string(type == TensorProto::DOUBLE ? 8 : 4, '\0'));
    return model;
  };
  EXPECT_TRUE(Load(with_initializer(TensorProto::FLOAT, 1)).ok());
  EXPECT_LOAD_ERROR(with_initializer(TensorProto::DOUBLE, 1),
                    "graph input 'x' is declared FLOAT but its initializer is DOUBLE");
  EXPECT_LOAD_ERROR(with_initializer(TensorProto::FLOAT, 9),
                    "initializer 'x' has rank 9; eltwise supports ranks 0-8");
  m = with_initializer(TensorProto::FLOAT, 1);
  m.mutable_graph()->mutable_initializer(0)->clear_name();
  EXPECT_LOAD_ERROR(m, "initializer 0 has no name");
}

// Declarations checked against other values: an input's initializer, the value an output names.
TEST(OnnxModelErrors, DeclarationsAgainstTheirValues) {
  const auto add_initializer = [](::onnx::ModelProto& model, uint64_t size) {
    TensorProto* w = model.mutable_graph()->add_initializer();
    w->set_name("x");
    w->set_data_type(TensorProto::FLOAT);
    w->add_dims(static_cast<int64_t>(size));
    w->set_raw_data(std::string(4 * size, '\0'));
  };
  ::onnx::ModelProto m = OneNode("Sign", TensorProto::FLOAT, {D(1)}, 13);
  add_initializer(m, 2);
  EXPECT_LOAD_ERROR(m, "graph input 'x' declares shape [1] but its initializer has shape [2]");

  // An input without an element type, with an initializer or not.
  m = OneNode("Sign", TensorProto::FLOAT, {D(1)}, 13);
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->clear_elem_type();
  EXPECT_LOAD_ERROR(m, "graph input 'x' has no element type");
  add_initializer(m, 1);
  EXPECT_LOAD_ERROR(m, "graph input 'x' has no element type");

  m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13);
  ::onnx::ValueInfoProto* info = m.mutable_graph()->add_value_info();
  info->set_name("y");
  info->mutable_type()->mutable_sequence_type();
  EXPECT_LOAD_ERROR(m, "value_info 'y' is a sequence, not a tensor");

  // A value_info entry without a type, or with an empty one, declares nothing (here of an int8
  // value, so a default element type would show).
  for (const bool empty_type : {false, true}) {
    m = OneNode("Sign", TensorProto::INT8, {D(2)}, 13);
    info = m.mutable_graph()->add_value_info();
    info->set_name("y");
    if (empty_type) info->mutable_type();
    Expected<Model> loaded = Load(m);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    const HostTensor y = RunOne(m, Tensor<int8_t>(DataType::kInt8, {2}, {-3, 0}));
    EXPECT_EQ(Values<int8_t>(y), (std::vector<int8_t>{-1, 0}));
  }

  // An initializer of rank 8, the most eltwise runs, is accepted.
  m = OneNode("Sign", TensorProto::FLOAT, std::vector<Dim>(8, D(1)), 13);
  TensorProto* w = m.mutable_graph()->add_initializer();
  w->set_name("x");
  w->set_data_type(TensorProto::FLOAT);
  for (int i = 0; i < 8; ++i) w->add_dims(1);
  w->add_float_data(-2.0F);
  Expected<Model> rank8 = Load(m);
  ASSERT_TRUE(rank8.ok()) << rank8.status().ToString();
  Expected<std::vector<NamedTensor>> ran = rank8->Run(Cpu(), {});
  ASSERT_TRUE(ran.ok()) << ran.status().ToString();
  EXPECT_EQ(Values<float>((*ran)[0].tensor), (std::vector<float>{-1.0F}));

  // A graph output declared without a shape: the ONNX checker requires one.
  m = OneNode("Sign", TensorProto::FLOAT, {D(2), D(3)}, 13);
  m.mutable_graph()->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  EXPECT_LOAD_ERROR(m, "the ONNX checker rejects the model: Field 'shape' of 'type' is required");

  Expected<Model> model = Load(OneNode("Sign", TensorProto::FLOAT, {D(2)}, 13, 7));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(model->ir_version(), 7);
}

TEST(OnnxModelErrors, TheOnnxCheckerRuns) {
  // IR version 3 requires every initializer to be a graph input too: only the checker knows.
  ::onnx::ModelProto m = OneNode("Sign", TensorProto::FLOAT, {D(2)}, 9, 3);
  TensorProto* w = m.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(TensorProto::FLOAT);
  w->add_dims(1);
  w->add_float_data(1);
  EXPECT_LOAD_ERROR(m, "the ONNX checker rejects the model");
}

TEST(OnnxRunErrors, Inputs) {
  Expected<Model> model = Load(OneNode("Sign", TensorProto::FLOAT, {D(2), P("N")}, 13));
  ASSERT_TRUE(model.ok());
  const HostTensor good = Tensor<float>(DataType::kFloat32, {2, 1}, {1, 2});
  auto error = [&](std::vector<NamedTensor> inputs) {
    Expected<std::vector<NamedTensor>> r = model->Run(Cpu(), inputs);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(error({}), "graph input 'x' (FLOAT [2,N]) has no value");
  EXPECT_EQ(error({{"z", good}}), "the model has no input 'z' (its inputs: x)");
  EXPECT_EQ(error({{"x", good}, {"x", good}}), "input 'x' is given twice");
  EXPECT_EQ(error({{"x", Tensor<double>(DataType::kFloat64, {2, 1}, {1, 2})}}),
            "input 'x' is DOUBLE; the model declares FLOAT");
  EXPECT_EQ(error({{"x", Tensor<float>(DataType::kFloat32, {3, 1}, {1, 2, 3})}}),
            "input 'x' has shape [3,1]; the model declares [2,N] (dimension 0 differs)");
  EXPECT_EQ(error({{"x", Tensor<float>(DataType::kFloat32, {2}, {1, 2})}}),
            "input 'x' has shape [2] (rank 1); the model declares [2,N] (rank 2)");
  HostTensor short_data = good;
  short_data.data.pop_back();
  EXPECT_EQ(error({{"x", short_data}}), "input 'x' has 7 bytes of data; shape [2,1] needs 8");
  EXPECT_TRUE(
      model->Run(Cpu(), {{"x", Tensor<float>(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6})}})
          .ok());
}

// A graph output declared more precisely than its input: checked at run time, before anything
// runs, against the shape it would get and the dim_params the inputs bound.
TEST(OnnxRunErrors, OutputsAgainstTheirDeclarations) {
  const auto declare_output = [](::onnx::ModelProto& model, std::vector<Dim> dims) {
    model.mutable_graph()->mutable_output(0)->Clear();
    SetValueInfo(model.mutable_graph()->mutable_output(0), "y", TensorProto::FLOAT, dims);
  };
  ::onnx::ModelProto m = OneNode("Sign", TensorProto::FLOAT, {P("N")}, 13);
  declare_output(m, {D(3)});
  Expected<Model> model = Load(m);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Expected<std::vector<NamedTensor>> r =
      model->Run(Cpu(), {{"x", Tensor<float>(DataType::kFloat32, {2}, {1, 2})}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "graph output 'y' has shape [2]; the model declares [3] (dimension 0 differs)");
  EXPECT_TRUE(model->Run(Cpu(), {{"x", Tensor<float>(DataType::kFloat32, {3}, {-1, 0, 2})}}).ok());

  // A dim with neither a value nor a name prints as '?'.
  m = OneNode("Sign", TensorProto::FLOAT, {P("N"), P("K")}, 13);
  declare_output(m, {P(""), D(3)});
  model = Load(m);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  r = model->Run(Cpu(), {{"x", Tensor<float>(DataType::kFloat32, {2, 4}, std::vector<float>(8))}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "graph output 'y' has shape [2,4]; the model declares [?,3] (dimension 1 differs)");

  // y declared [K,N] while it gets x's [N,K]: fine for a square x only.
  m = OneNode("Sign", TensorProto::FLOAT, {P("N"), P("K")}, 13);
  declare_output(m, {P("K"), P("N")});
  model = Load(m);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  r = model->Run(Cpu(), {{"x", Tensor<float>(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6})}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "graph output 'y' has shape [2,3]: dimension 0 ('K') is 2 but another tensor bound "
            "'K' to 3");
  EXPECT_TRUE(
      model->Run(Cpu(), {{"x", Tensor<float>(DataType::kFloat32, {2, 2}, {1, 2, 3, 4})}}).ok());
}

// ---- node-test directories, built here ---------------------------------------------------------

class NodeTestDirectories : public testing::ScratchDirTest {
 protected:
  // dir/model.onnx: Sign of a float32 [3].
  void WriteModel(const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    testing::WriteFileBytes(dir / "model.onnx",
                            Bytes(OneNode("Sign", TensorProto::FLOAT, {D(3)}, 13)));
  }
  // dir/<stem>_0.pb, <stem>_1.pb, ... from `tensors`.
  static void WriteSet(const std::filesystem::path& dir, const std::string& stem,
                       const std::vector<HostTensor>& tensors) {
    std::filesystem::create_directories(dir);
    for (size_t i = 0; i < tensors.size(); ++i) {
      const std::string path = (dir / (stem + "_" + std::to_string(i) + ".pb")).string();
      ASSERT_TRUE(WriteTensorFile(path, tensors[i]).ok()) << path;
    }
  }
  static HostTensor F32(std::vector<float> v) {
    const uint64_t n = v.size();
    return Tensor<float>(DataType::kFloat32, {n}, std::move(v));
  }
};

TEST_F(NodeTestDirectories, FindsTheModelFoldersUnderAPath) {
  // A folder that holds model.onnx is the one node test.
  WriteModel(dir_ / "one");
  EXPECT_EQ(FindNodeTestDirectories((dir_ / "one").string()),
            std::vector<std::string>{(dir_ / "one").string()});
  // A folder of them: its subfolders that hold a model, sorted; not files, not other folders.
  WriteModel(dir_ / "many" / "b");
  WriteModel(dir_ / "many" / "a");
  std::filesystem::create_directories(dir_ / "many" / "c_without_model");
  testing::WriteFileBytes(dir_ / "many" / "file", Bytes("x"));
  EXPECT_EQ(
      FindNodeTestDirectories((dir_ / "many").string()),
      (std::vector<std::string>{(dir_ / "many" / "a").string(), (dir_ / "many" / "b").string()}));
  // Neither: the path itself, for RunNodeTestDirectory to say why.
  std::filesystem::create_directories(dir_ / "empty");
  EXPECT_EQ(FindNodeTestDirectories((dir_ / "empty").string()),
            std::vector<std::string>{(dir_ / "empty").string()});
  EXPECT_EQ(FindNodeTestDirectories((dir_ / "missing").string()),
            std::vector<std::string>{(dir_ / "missing").string()});
}

TEST_F(NodeTestDirectories, AFolderThatIsNoNodeTestIsOneFailedCase) {
  const std::string missing = (dir_ / "missing").string();
  std::vector<CaseResult> r = RunNodeTestDirectory(Cpu(), missing);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].name, "missing");
  EXPECT_FALSE(r[0].passed);
  EXPECT_EQ(r[0].message, missing + " is not a directory");

  // A model without data sets; named after the folder even when the path ends in '/'.
  WriteModel(dir_ / "no_sets");
  std::filesystem::create_directories(dir_ / "no_sets" / "other_folder");
  const std::string no_sets = (dir_ / "no_sets").string() + "/";
  r = RunNodeTestDirectory(Cpu(), no_sets);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].name, "no_sets");
  EXPECT_FALSE(r[0].passed);
  EXPECT_EQ(r[0].message, no_sets + " has no test_data_set_* directories");
}

TEST_F(NodeTestDirectories, EachDataSetIsRunInNumberOrderAndItsFaultNamed) {
  const std::filesystem::path dir = dir_ / "sign";
  WriteModel(dir);
  const HostTensor x = F32({-2.5F, 0.0F, 7.0F});
  const HostTensor y = F32({-1.0F, 0.0F, 1.0F});  // Sign, written out
  WriteSet(dir / "test_data_set_10", "input", {x});
  WriteSet(dir / "test_data_set_10", "output", {y});
  WriteSet(dir / "test_data_set_2", "output", {y});  // no input
  WriteSet(dir / "test_data_set_1", "input", {x});
  WriteSet(dir / "test_data_set_1", "output", {F32({-1.0F, 0.0F, -1.0F})});  // wrong at 2
  WriteSet(dir / "test_data_set_0", "input", {x});
  WriteSet(dir / "test_data_set_0", "output", {y, y});              // one output too many
  WriteSet(dir / "test_data_set_3", "input", {F32({1.0F, 2.0F})});  // the model takes [3]
  WriteSet(dir / "test_data_set_3", "output", {y});
  WriteSet(dir / "test_data_set_4", "input", {x});
  testing::WriteFileBytes(dir / "test_data_set_4" / "output_0.pb", Bytes("\xff\xff\xff"));
  std::filesystem::create_directories(dir / "test_data_set_5");
  testing::WriteFileBytes(dir / "test_data_set_5" / "input_0.pb", Bytes("\xff\xff\xff"));
  // Names past the number: other names sort after every number, among themselves by name.
  for (const char* name :
       {"test_data_set_x", "test_data_set_1234567890", "test_data_set_", "test_data_set_-1"}) {
    WriteSet(dir / name, "input", {x});
    WriteSet(dir / name, "output", {y});
  }
  const std::vector<CaseResult> r = RunNodeTestDirectory(Cpu(), dir.string());
  std::vector<std::string> names;
  for (const CaseResult& c : r) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "sign/test_data_set_0", "sign/test_data_set_1", "sign/test_data_set_2",
                       "sign/test_data_set_3", "sign/test_data_set_4", "sign/test_data_set_5",
                       "sign/test_data_set_10", "sign/test_data_set_", "sign/test_data_set_-1",
                       "sign/test_data_set_1234567890", "sign/test_data_set_x"}));
  ASSERT_EQ(r.size(), 11u);
  const std::vector<bool> passed = {false, false, false, false, false, false,
                                    true,  true,  true,  true,  true};
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].passed, passed[i]) << r[i].name << ": " << r[i].message;
    EXPECT_EQ(r[i].message.empty(), passed[i]) << r[i].name;
  }
  EXPECT_EQ(r[0].message, "2 output_N.pb files; the model has 1 output");
  EXPECT_EQ(r[1].message.rfind("output 0 'y': ", 0), 0u) << r[1].message;
  EXPECT_EQ(r[2].message, "0 input_N.pb files; the model has 1 input");
  EXPECT_NE(r[3].message.find("'x'"), std::string::npos) << r[3].message;
  EXPECT_NE(r[4].message.find("output_0.pb"), std::string::npos) << r[4].message;
  EXPECT_NE(r[5].message.find("input_0.pb"), std::string::npos) << r[5].message;
}

// ---- ONNX's own node tests -------------------------------------------------------------------

bool HaveTestData() {
  return std::filesystem::exists(std::string(ELTWISE_ONNX_TESTDATA) + "/test_sign/model.onnx");
}

TEST(OnnxOfficialNodeTests, SignAndRoundPass) {
  if (!HaveTestData()) GTEST_SKIP() << ELTWISE_ONNX_TESTDATA << " has no ONNX node tests";
  for (const char* name : {"test_sign", "test_round"}) {
    const std::vector<CaseResult> results =
        RunNodeTestDirectory(Cpu(), std::string(ELTWISE_ONNX_TESTDATA) + "/" + name);
    ASSERT_FALSE(results.empty()) << name;
    for (const CaseResult& r : results) EXPECT_TRUE(r.passed) << r.name << ": " << r.message;
  }
}

TEST(OnnxOfficialNodeTests, EveryOtherNodeTestFailsCleanly) {
  // Over a thousand models of every kind: each is run or rejected with a message; none crashes.
  if (!HaveTestData()) GTEST_SKIP() << ELTWISE_ONNX_TESTDATA << " has no ONNX node tests";
  const std::vector<std::string> dirs = FindNodeTestDirectories(ELTWISE_ONNX_TESTDATA);
  ASSERT_GT(dirs.size(), 100u);
  int passed = 0;
  for (const std::string& dir : dirs) {
    for (const CaseResult& r : RunNodeTestDirectory(Cpu(), dir)) {
      if (r.passed) {
        ++passed;
      } else {
        EXPECT_FALSE(r.message.empty()) << r.name;
      }
    }
  }
  EXPECT_GE(passed, 2);
}

}  // namespace
}  // namespace eltwise::onnx_frontend
