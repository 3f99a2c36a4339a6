// Model::Impl, a loaded model: the values and nodes model_load.cc validates, the execution plan
// and what model_run.cc runs it with.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "eltwise/device.h"
#include "eltwise/operators.h"
#include "onnx/onnx_frontend.h"
#include "staging/operator_cache.h"

namespace eltwise::onnx_frontend {

struct Model::Impl {
  enum class Kind { kInput, kInitializer, kNodeOutput };
  struct Value {
    Kind kind = Kind::kInput;
    DataType type = DataType::kFloat32;
    int initializer = -1;      // index into initializers (an initializer, or an input's default)
    bool overridable = false;  // a graph input that also has an initializer
    // Static shape of the value (Sign and Round keep their input's shape).
    bool rank_known = false;
    std::vector<std::optional<uint64_t>> dims;
  };

  int64_t ir_version = 0;
  int opset = 0;
  std::vector<ValueInfo> inputs;              // required graph inputs
  std::vector<ValueInfo> overridable_inputs;  // graph inputs with an initializer
  std::vector<ValueInfo> outputs;
  std::vector<NodeInfo> nodes;  // execution order
  std::vector<HostTensor> initializers;
  std::unordered_map<std::string, Value> values;

  // Compiled operators come from the library's one cache (staging::CompileCached), in a scope of
  // this model's own per node (cache_owner, node index), so that Run compiles each node once per
  // device and input shape (as long as the bounded cache keeps it) and compile_count counts this
  // model's compiles. A CompiledOperator holds its Device, so a cached device's state (part of
  // the key) cannot be freed and its address reused.
  const uint64_t cache_owner = staging::NewCacheOwner();
  mutable std::mutex compiled_mutex;  // guards compile_count
  mutable uint64_t compile_count = 0;

  // The compiled operator of node `index` for `device` and `input` (type and shape), its
  // buffers `buffer_bytes` long.
  Expected<CompiledOperator> CompiledNode(const Device& device, size_t index, DataType type,
                                          std::span<const uint64_t> shape,
                                          uint64_t buffer_bytes) const;

  // The execution plan, fixed by the graph (PlanExecution, the last step of loading). Roots are the
  // values no node computes: [required inputs][overridable inputs][other initializers], so a
  // given input's root is its position in inputs (or inputs.size() + its position in
  // overridable_inputs). Sign and Round keep their input's type and shape, so every node's
  // result has the type and shape of its chain's root.
  struct Root {
    std::string name;
    int initializer = -1;  // the default value, if any
  };
  // Where a node writes its result when it runs on host memory: a graph output's buffer or a
  // temporary. A value read by exactly one node and not a graph output shares the storage of that
  // node's result (that node then runs in place), so a chain of single-use values ending in a
  // graph output is written only into that output's buffer.
  struct Storage {
    bool graph_output = false;
    int index = 0;  // into outputs, or a temporary
  };
  struct Step {
    int input_node = -1;  // the node (execution position) whose result this node reads, or -1
    int input_root = -1;  // else the root it reads
    int root = -1;        // the root of its chain (its type and shape)
    Storage storage;
  };
  struct OutputSource {
    int node = -1;  // the node computing it, or -1: a root passed through
    int root = -1;  // the root of its chain
    int first = 0;  // the first graph output listing the same value (itself if none earlier)
  };
  std::vector<Root> roots;
  std::vector<Step> steps;  // per node, in execution order
  std::vector<OutputSource> output_sources;
  std::vector<int> temporary_roots;  // per temporary: the root of the values it holds
  // Fills roots, steps, output_sources and temporary_roots from a validated graph.
  void PlanExecution();
};

namespace internal {

// A declared shape for messages: "[2,N,?]" (a dim_param where a dimension has no value, "?" where
// it has neither), or "(unknown rank)".
std::string DimsString(bool rank_known, const std::vector<std::optional<uint64_t>>& dims,
                       const std::vector<std::string>& params);

}  // namespace internal

}  // namespace eltwise::onnx_frontend
