// The ONNX front end: loads ONNX models made of Sign and Round nodes, decodes and encodes
// TensorProto (.pb) and NumPy (.npy) tensors, runs models on any eltwise device and runs ONNX
// node-test directories. It translates ONNX into eltwise descriptors and calls the public C++ API;
// it holds no semantics of its own:
//   ONNX Sign  (opsets 9, 13) = eltwise Sign with NanPolicy::kPropagate (the ONNX reference,
//   np.sign) ONNX Round (opsets 11, 22) = eltwise Round with RoundingMode::kHalvesToNearestEven
// Every function reports bad input (malformed protobuf, unsupported op/type/opset, wrong shapes,
// missing inputs) as a Status whose message names the node, value or field and the rule; none
// throws or crashes. This header does not depend on the protobuf or ONNX headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "eltwise/device.h"
#include "eltwise/status.h"
#include "eltwise/types.h"

namespace eltwise::onnx_frontend {

// A tensor in host memory: packed row-major (C order) elements in native (little-endian) order.
struct HostTensor {
  std::string name;  // the TensorProto name; may be empty
  DataType type = DataType::kFloat32;
  std::vector<uint64_t> shape;  // empty = a scalar (rank 0, one element)
  std::vector<std::byte> data;  // element_count() * ElementSize(type) bytes

  uint64_t element_count() const;
};

// "[2,3,4]"; "[]" for a scalar.
std::string ShapeString(const std::vector<uint64_t>& shape);

// The ONNX TensorProto.DataType code of `type` (FLOAT = 1, ..., BFLOAT16 = 16).
int OnnxDataType(DataType type);
// The eltwise type of an ONNX TensorProto.DataType code; nullopt for types eltwise has no
// equivalent of (string, bool, complex, float8, int4, ...).
std::optional<DataType> FromOnnxDataType(int onnx_type);
// ONNX's name of a TensorProto.DataType code ("FLOAT", "BFLOAT16", "STRING", "code 99").
std::string OnnxDataTypeName(int onnx_type);

// Decodes a serialized TensorProto. Accepts every storage form ONNX defines for the 12 eltwise
// types: raw_data (little-endian), float_data, double_data, int32_data (int32 and, one value per
// element, int8/int16/uint8/uint16 and the float16/bfloat16 bit patterns), int64_data and
// uint64_data (uint32, uint64). Rejects external or segmented data, string and other types, a
// value count or raw_data length that does not match dims, and int32_data/uint64_data values out
// of range for the element type.
Expected<HostTensor> DecodeTensorProto(std::span<const std::byte> bytes);
// Serializes as a TensorProto with dims, data_type, name and raw_data.
std::vector<std::byte> EncodeTensorProto(const HostTensor& tensor);

// Reads/writes a tensor file: ".npy" as NumPy (needs the eltwise_npy library), anything else as
// a serialized TensorProto. A Fortran-order .npy is converted to C order. Write replaces `path`.
Expected<HostTensor> ReadTensorFile(const std::string& path);
Status WriteTensorFile(const std::string& path, const HostTensor& tensor);
// Whether this build reads and writes .npy files.
bool NpySupported();

// The element type and shape a graph input or output declares. A dimension without a value
// (symbolic dim_param or absent) is nullopt; `rank_known` is false if no shape is declared.
struct ValueInfo {
  std::string name;
  DataType type = DataType::kFloat32;
  bool rank_known = false;
  std::vector<std::optional<uint64_t>> dims;
  std::vector<std::string> dim_params;  // per dimension; empty string if none
};

// One executable node after opset resolution.
struct NodeInfo {
  std::string name;       // the node's name, or "#<index>" when it has none
  std::string op_type;    // "Sign" or "Round"
  int since_version = 0;  // the operator version the model's opset resolves to (9/13, 11/22)
  std::string input;
  std::string output;
  DataType type = DataType::kFloat32;
};

struct NamedTensor {
  std::string name;
  HostTensor tensor;
};

// A graph input the caller owns and Model::RunInto reads in place: packed row-major (C order)
// elements in native order, `size_in_bytes` of them at `data`, aligned to the element size. The
// name, shape and data must stay valid and unchanged for the call; nothing is written to them.
struct InputView {
  std::string_view name;
  DataType type = DataType::kFloat32;
  std::span<const uint64_t> shape;  // empty = a scalar
  const void* data = nullptr;
  uint64_t size_in_bytes = 0;
};

// Where Model::RunInto writes graph output `index` (of Model::outputs()): the address of
// ElementCount(shape) * ElementSize(type) writable bytes, aligned to the element size, overlapping
// no input and no other output; the run writes them once with the packed result. Called once per
// output, in graph order, after every check passed and before any node runs. Returning nullptr
// for an output with elements aborts the run (kOutOfMemory) before anything is written.
using OutputAllocator =
    std::function<void*(size_t index, DataType type, std::span<const uint64_t> shape)>;

// A loaded, validated model. Immutable; Run may be called from many threads at once.
class Model {
 public:
  // Parses and validates: protobuf well-formed, the ONNX checker (see docs/onnx.md for models
  // newer than the linked ONNX library), an ai.onnx opset import in [1, kMaxKnownOpset], only
  // Sign/Round nodes with exactly one input and output and no attributes, every node input
  // defined (graph input, initializer or another node's output), no name defined twice, no cycle,
  // and each node's element type allowed by its operator version. Nodes may be in any order;
  // they run in a topological order.
  static Expected<Model> Load(const std::string& path);
  static Expected<Model> Parse(std::span<const std::byte> bytes,
                               const std::string& source = "model");

  // Graph inputs that are not initializers, in graph order (what a caller must provide).
  const std::vector<ValueInfo>& inputs() const;
  // Graph outputs in graph order.
  const std::vector<ValueInfo>& outputs() const;
  // Nodes in execution (topological) order.
  const std::vector<NodeInfo>& nodes() const;
  int64_t ir_version() const;
  int opset() const;  // the ai.onnx opset version imported
  // How many operators Run has compiled so far. Run compiles each node once per device and input
  // shape and reuses it on later runs (up to a bounded number of cached operators), so repeated
  // runs of one shape on one device leave this unchanged.
  uint64_t compile_count() const;

  // Runs the graph on `device`. Every input in inputs() must be given exactly once by name (a
  // graph input that also has an initializer may be overridden); each must have the declared
  // element type and match every declared dimension, and inputs that share a dim_param must
  // agree on it. Returns the graph outputs in graph order. Any device kind works (see RunInto,
  // which this calls). Each node is compiled on its first run for a device and input shape and
  // only executed afterwards.
  Expected<std::vector<NamedTensor>> Run(const Device& device,
                                         const std::vector<NamedTensor>& inputs) const;

  // Run with caller-owned memory, same rules and messages: reads `inputs` in place and writes
  // each graph output into the buffer `allocate` returns for it. On a CPU device at the extended
  // level every node runs on host memory: the graph inputs are not copied, each node writes its
  // result once (a chain of single-use values runs in place in its graph output's buffer), and a
  // graph output that is a graph input, an initializer or listed twice is copied into its
  // buffer. Other devices stage through device buffers like Run. Every node is compiled (or
  // found in the cache) before `allocate` is called; on an error before then nothing is written.
  Status RunInto(const Device& device, std::span<const InputView> inputs,
                 const OutputAllocator& allocate) const;

  struct Impl;

 private:
  explicit Model(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

// The highest ai.onnx opset this front end knows. Sign and Round are unchanged from their
// versions 13 and 22 up to it; a newer opset could redefine them, so it is rejected.
inline constexpr int kMaxKnownOpset = 28;

// Compares bit for bit; NaN equals NaN whatever its payload or sign. Returns nullopt when
// equal, otherwise a message naming the first difference (type, shape or element index/values).
std::optional<std::string> CompareTensors(const HostTensor& expected, const HostTensor& actual);

// One test_data_set_* of an ONNX node-test directory.
struct CaseResult {
  std::string name;  // "<dir name>/<data set name>"
  bool passed = false;
  std::string message;  // why it failed; empty if it passed
};

// Runs an ONNX node-test directory: DIR/model.onnx and DIR/test_data_set_*/input_N.pb and
// output_N.pb (N from 0, matched to the graph inputs and outputs by position). Data sets run in
// name order. A directory that cannot be loaded yields one failed case named after it.
std::vector<CaseResult> RunNodeTestDirectory(const Device& device, const std::string& dir);

// `path` itself if it holds a model.onnx; otherwise its subdirectories that hold one, sorted by
// name (so a folder such as onnx/backend/test/data/node can be passed whole); otherwise `path`
// (RunNodeTestDirectory then reports why it is not a node test).
std::vector<std::string> FindNodeTestDirectories(const std::string& path);

}  // namespace eltwise::onnx_frontend
