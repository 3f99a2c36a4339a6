// ONNX model loading, validation and execution through the eltwise C++ API.
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <map>
#include <memory_resource>
#include <mutex>
#include <new>
#include <optional>
#include <queue>
#include <set>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/op_registry.h"
#include "eltwise/device.h"
#include "eltwise/operators.h"
#include "onnx/internal.h"
#include "staging/staging.h"

namespace eltwise::onnx_frontend {

namespace {

// The highest IR version this front end knows (ONNX 1.23). Newer IR versions may change the
// meaning of a model, so they are rejected like ONNX's own checker does.
constexpr int64_t kMaxKnownIrVersion = 14;

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

bool IsOnnxDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// The version of `op` (an ONNX op_type) that ai.onnx opset `opset` selects (the highest
// since_version <= opset), or nullptr when the op is unknown or newer than the opset.
const OnnxVersion* ResolveOp(const std::string& op, int opset) {
  const OpInfo* info = FindOpByTitle(op);
  if (info == nullptr) return nullptr;
  const OnnxVersion* best = nullptr;
  for (const OnnxVersion& v : info->onnx_versions) {
    if (v.since_version <= opset) best = &v;
  }
  return best;
}

// The first later version of `op` that accepts `type`, or nullptr.
const OnnxVersion* VersionAdding(const OpInfo& op, int after, DataType type) {
  for (const OnnxVersion& v : op.onnx_versions) {
    if (v.since_version > after &&
        std::find(v.types.begin(), v.types.end(), type) != v.types.end()) {
      return &v;
    }
  }
  return nullptr;
}

std::string TypeList(std::span<const DataType> types) {
  std::string s;
  for (DataType t : types) s += (s.empty() ? "" : ", ") + OnnxDataTypeName(OnnxDataType(t));
  return s;
}

// ONNX's names of every element type eltwise supports, in eltwise's order.
std::string SupportedTypeList() {
  static constexpr DataType kAll[] = {
#define ELTWISE_DATA_TYPE(e, T, name) DataType::e,
      ELTWISE_FOR_EACH_DATA_TYPE(ELTWISE_DATA_TYPE)
#undef ELTWISE_DATA_TYPE
  };
  return TypeList(kAll);
}

// "A, B and C" of every op, each written by `text`.
template <class Text>
std::string OpList(Text text) {
  std::string s;
  const std::span<const OpInfo> ops = AllOps();
  for (size_t i = 0; i < ops.size(); ++i) {
    s += (i == 0 ? "" : i + 1 == ops.size() ? " and " : ", ") + text(ops[i]);
  }
  return s;
}

// "Sign (opsets 9, 13) and Round (opsets 11, 22)".
std::string OpsWithOpsets() {
  return OpList([](const OpInfo& op) {
    std::string opsets;
    for (const OnnxVersion& v : op.onnx_versions) {
      opsets += (opsets.empty() ? "" : ", ") + std::to_string(v.since_version);
    }
    return std::string(op.title) + " (opsets " + opsets + ")";
  });
}

std::string OneLine(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// The schemas the ONNX checker uses: the linked ONNX library's registry, plus Round-22 when that
// library predates it (ONNX 1.12 knows Round up to version 11). Round-22 only widens Round-11's
// type constraint with bfloat16; inputs, outputs and attributes are the same.
class SchemaRegistry final : public ::onnx::ISchemaRegistry {
 public:
  SchemaRegistry() {
    round22_.SetName("Round")
        .SetDomain(::onnx::ONNX_DOMAIN)
        .SinceVersion(22)
        .SetDoc("Round to nearest integer, halves to even (ONNX Round-22).")
        .Input(0, "X", "Input tensor", "T")
        .Output(0, "Y", "Output tensor", "T")
        .TypeConstraint("T",
                        {"tensor(float16)", "tensor(float)", "tensor(double)", "tensor(bfloat16)"},
                        "Input and output types: floating point.")
        .TypeAndShapeInferenceFunction(::onnx::propagateShapeAndTypeFromFirstInput);
    round22_.Finalize();
  }
  const ::onnx::OpSchema* GetSchema(const std::string& key, const int max_inclusive_version,
                                    const std::string& domain) const override {
    const std::string d = IsOnnxDomain(domain) ? ::onnx::ONNX_DOMAIN : domain;
    const ::onnx::OpSchema* s = ::onnx::OpSchemaRegistry::Schema(key, max_inclusive_version, d);
    if (key == "Round" && IsOnnxDomain(domain) && max_inclusive_version >= 22 &&
        (s == nullptr || s->since_version() < 22)) {
      return &round22_;
    }
    return s;
  }

 private:
  ::onnx::OpSchema round22_;
};

const SchemaRegistry& Registry() {
  static const SchemaRegistry registry;
  return registry;
}

// A declared type: element type code (0 if absent) and shape.
struct Declared {
  int elem_type = 0;
  bool rank_known = false;
  std::vector<std::optional<uint64_t>> dims;
  std::vector<std::string> dim_params;
};

// "a sequence", "a map", ... for a TypeProto that is not a tensor.
std::string TypeKind(const ::onnx::TypeProto& type) {
  switch (type.value_case()) {
    case ::onnx::TypeProto::kSequenceType:
      return "a sequence";
    case ::onnx::TypeProto::kMapType:
      return "a map";
    case ::onnx::TypeProto::kOptionalType:
      return "an optional";
    case ::onnx::TypeProto::kSparseTensorType:
      return "a sparse tensor";
    default:
      return "of type kind " + std::to_string(static_cast<int>(type.value_case()));
  }
}

Expected<Declared> ParseDeclared(const ::onnx::ValueInfoProto& v, const std::string& what) {
  Declared d;
  if (!v.has_type() || v.type().value_case() == ::onnx::TypeProto::VALUE_NOT_SET) return d;
  if (v.type().value_case() != ::onnx::TypeProto::kTensorType) {
    return InvalidArgument(what + " is " + TypeKind(v.type()) +
                           ", not a tensor; eltwise runs tensors only (sequence, map, optional "
                           "and sparse types are not supported)");
  }
  const auto& tensor = v.type().tensor_type();
  d.elem_type = tensor.has_elem_type() ? tensor.elem_type() : 0;
  if (tensor.has_shape()) {
    d.rank_known = true;
    for (int i = 0; i < tensor.shape().dim_size(); ++i) {
      const auto& dim = tensor.shape().dim(i);
      if (dim.value_case() == ::onnx::TensorShapeProto::Dimension::kDimValue) {
        if (dim.dim_value() < 0) {
          return InvalidArgument(what + " declares dims[" + std::to_string(i) +
                                 "] = " + std::to_string(dim.dim_value()) + "; dims must be >= 0");
        }
        d.dims.push_back(static_cast<uint64_t>(dim.dim_value()));
        d.dim_params.emplace_back();
      } else {
        d.dims.push_back(std::nullopt);
        d.dim_params.push_back(dim.value_case() == ::onnx::TensorShapeProto::Dimension::kDimParam
                                   ? dim.dim_param()
                                   : std::string());
      }
    }
    if (d.dims.size() > kMaxRank) {
      return InvalidArgument(what + " has rank " + std::to_string(d.dims.size()) +
                             "; eltwise supports ranks 0-" + std::to_string(kMaxRank));
    }
  }
  return d;
}

std::string DimsString(bool rank_known, const std::vector<std::optional<uint64_t>>& dims,
                       const std::vector<std::string>& params) {
  if (!rank_known) return "(unknown rank)";
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    if (dims[i]) {
      s += std::to_string(*dims[i]);
    } else {
      s += i < params.size() && !params[i].empty() ? params[i] : "?";
    }
  }
  return s + "]";
}

// Checks that a static shape and a declared one do not contradict each other.
Status CheckCompatible(const Declared& declared, bool rank_known,
                       const std::vector<std::optional<uint64_t>>& dims, const std::string& what,
                       const std::string& source) {
  if (!declared.rank_known || !rank_known) return Status::Ok();
  bool ok = declared.dims.size() == dims.size();
  for (size_t i = 0; ok && i < dims.size(); ++i) {
    if (declared.dims[i] && dims[i] && *declared.dims[i] != *dims[i]) ok = false;
  }
  if (ok) return Status::Ok();
  return InvalidArgument(what + " declares shape " +
                         DimsString(true, declared.dims, declared.dim_params) + " but " + source +
                         " has shape " + DimsString(true, dims, {}));
}

}  // namespace

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

  // Compiled operators by (device, node index, input shape): Run compiles each node once per
  // device and shape and afterwards only executes it. A CompiledOperator holds its Device, so a
  // cached device's state (the key) cannot be freed and its address reused. The cache is bounded
  // (a model run with ever new symbolic dimensions would otherwise grow it without limit).
  // Looked up by a key over the caller's shape (KeyView), without copying it.
  template <class Shape>
  struct Key {
    const void* device = nullptr;
    size_t node = 0;
    Shape shape;
  };
  using CompiledKey = Key<std::vector<uint64_t>>;
  using KeyView = Key<std::span<const uint64_t>>;
  struct KeyLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      if (a.device != b.device) return std::less<const void*>()(a.device, b.device);
      if (a.node != b.node) return a.node < b.node;
      return std::lexicographical_compare(a.shape.begin(), a.shape.end(), b.shape.begin(),
                                          b.shape.end());
    }
  };
  static constexpr size_t kMaxCompiled = 256;
  mutable std::mutex compiled_mutex;
  mutable std::map<CompiledKey, CompiledOperator, KeyLess> compiled;
  mutable uint64_t compile_count = 0;

  // The compiled operator of node `index` for `device` and `input` (type and shape), its
  // buffers `buffer_bytes` long.
  Expected<CompiledOperator> CompiledNode(const Device& device, size_t index, DataType type,
                                          std::span<const uint64_t> shape,
                                          uint64_t buffer_bytes) const;

  // The execution plan, fixed by the graph (PlanExecution, at the end of Build). Roots are the
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
  void PlanExecution();

  static Expected<std::shared_ptr<Impl>> Build(const ::onnx::ModelProto& model);
};

namespace {

ValueInfo MakeValueInfo(const std::string& name, DataType type, const Declared& d) {
  ValueInfo v;
  v.name = name;
  v.type = type;
  v.rank_known = d.rank_known;
  v.dims = d.dims;
  v.dim_params = d.dim_params;
  return v;
}

Status RunChecker(const ::onnx::ModelProto& model, const std::vector<int>& order, int opset) {
  // ONNX 1.12's check_model rejects IR versions above its own (8) outright; the graph rules that
  // matter to Sign/Round graphs are unchanged in IR 9-14, so the graph is checked with the
  // library's IR version and our own code checks the rest (IR version, opset range, types).
  ::onnx::checker::CheckerContext ctx;
  ctx.set_ir_version(static_cast<int>(
      std::min<int64_t>(model.ir_version(), static_cast<int64_t>(::onnx::Version::IR_VERSION))));
  std::unordered_map<std::string, int> imports;
  for (const auto& o : model.opset_import()) {
    imports[o.domain()] = static_cast<int>(std::clamp<int64_t>(o.version(), INT_MIN, INT_MAX));
  }
  imports[""] = opset;
  imports["ai.onnx"] = opset;
  ctx.set_opset_imports(imports);
  ctx.set_schema_registry(&Registry());
  ::onnx::checker::LexicalScopeContext lex;
  bool sorted = true;
  for (size_t i = 0; i < order.size(); ++i) sorted = sorted && order[i] == static_cast<int>(i);
  try {
    if (sorted) {
      ::onnx::checker::check_graph(model.graph(), ctx, lex);
    } else {
      // ONNX requires nodes in topological order; we accept any order (as ONNX Runtime does) and
      // check the graph as we will run it.
      ::onnx::GraphProto graph = model.graph();
      graph.clear_node();
      for (int i : order) *graph.add_node() = model.graph().node(i);
      ::onnx::checker::check_graph(graph, ctx, lex);
    }
  } catch (const std::exception& e) {
    return InvalidArgument("the ONNX checker rejects the model: " + OneLine(e.what()));
  }
  return Status::Ok();
}

}  // namespace

Expected<std::shared_ptr<Model::Impl>> Model::Impl::Build(const ::onnx::ModelProto& model) {
  auto impl = std::make_shared<Impl>();
  // IR version and opset.
  if (!model.has_ir_version() || model.ir_version() <= 0) {
    return InvalidArgument("ir_version is not set");
  }
  impl->ir_version = model.ir_version();
  if (model.ir_version() < 3) {
    return InvalidArgument("ir_version " + std::to_string(model.ir_version()) +
                           " has no opset imports (they start at IR version 3); re-export the "
                           "model with a newer ONNX");
  }
  if (model.ir_version() > kMaxKnownIrVersion) {
    return InvalidArgument("ir_version " + std::to_string(model.ir_version()) +
                           " is newer than eltwise knows (" + std::to_string(kMaxKnownIrVersion) +
                           ")");
  }
  std::optional<int64_t> opset;
  for (const auto& o : model.opset_import()) {
    if (!IsOnnxDomain(o.domain())) continue;
    if (opset && *opset != o.version()) {
      return InvalidArgument("opset_import lists the ai.onnx domain twice, with versions " +
                             std::to_string(*opset) + " and " + std::to_string(o.version()));
    }
    opset = o.version();
  }
  if (!opset) {
    return InvalidArgument("opset_import has no entry for the ai.onnx (\"\") domain");
  }
  if (*opset < 1 || *opset > kMaxKnownOpset) {
    return InvalidArgument("ai.onnx opset " + std::to_string(*opset) +
                           " is not supported; eltwise knows opsets 1-" +
                           std::to_string(kMaxKnownOpset));
  }
  impl->opset = static_cast<int>(*opset);
  if (!model.has_graph()) return InvalidArgument("the model has no graph");
  const ::onnx::GraphProto& graph = model.graph();
  if (graph.sparse_initializer_size() != 0) {
    return InvalidArgument("graph has sparse initializers, which are not supported");
  }

  // Operators first: an unsupported one is the most useful thing to report.
  const int node_count = graph.node_size();
  std::vector<std::string> labels(node_count);
  for (int i = 0; i < node_count; ++i) {
    const auto& node = graph.node(i);
    labels[i] = "node " + (node.name().empty() ? "#" + std::to_string(i) : Quoted(node.name())) +
                " (" + node.op_type() + ")";
    const std::string& label = labels[i];
    if (!IsOnnxDomain(node.domain())) {
      return InvalidArgument(
          label + ": domain " + Quoted(node.domain()) + " is not supported; eltwise runs ai.onnx " +
          OpList([](const OpInfo& op) { return std::string(op.title); }) + " only");
    }
    const OpInfo* op = FindOpByTitle(node.op_type());
    if (op == nullptr) {
      return InvalidArgument(label + ": operator " + Quoted(node.op_type()) +
                             " is not supported; eltwise runs " + OpsWithOpsets() + " only");
    }
    if (!ResolveOp(node.op_type(), impl->opset)) {
      const int first = op->onnx_versions.front().since_version;
      return InvalidArgument(label + ": " + node.op_type() + " needs ai.onnx opset " +
                             std::to_string(first) + " or later; the model imports opset " +
                             std::to_string(impl->opset));
    }
  }

  // Initializers.
  for (int i = 0; i < graph.initializer_size(); ++i) {
    const auto& init = graph.initializer(i);
    const std::string what = "initializer " + Quoted(init.name());
    if (init.name().empty()) {
      return InvalidArgument("initializer " + std::to_string(i) + " has no name");
    }
    if (impl->values.count(init.name())) return InvalidArgument(what + " is defined twice");
    Expected<HostTensor> t = internal::DecodeTensor(init, what);
    if (!t.ok()) return t.status();
    if (t->shape.size() > kMaxRank) {
      return InvalidArgument(what + " has rank " + std::to_string(t->shape.size()) +
                             "; eltwise supports ranks 0-" + std::to_string(kMaxRank));
    }
    Value v;
    v.kind = Kind::kInitializer;
    v.type = t->type;
    v.initializer = static_cast<int>(impl->initializers.size());
    v.rank_known = true;
    for (uint64_t d : t->shape) v.dims.push_back(d);
    impl->values.emplace(init.name(), std::move(v));
    impl->initializers.push_back(std::move(*t));
  }

  // Graph inputs.
  std::set<std::string> input_names;
  for (int i = 0; i < graph.input_size(); ++i) {
    const auto& in = graph.input(i);
    const std::string what = "graph input " + Quoted(in.name());
    if (in.name().empty())
      return InvalidArgument("graph input " + std::to_string(i) + " has no name");
    if (!input_names.insert(in.name()).second) return InvalidArgument(what + " is listed twice");
    Expected<Declared> d = ParseDeclared(in, what);
    if (!d.ok()) return d.status();
    auto it = impl->values.find(in.name());
    if (d->elem_type == 0) {
      if (it == impl->values.end()) return InvalidArgument(what + " has no element type");
      d->elem_type = OnnxDataType(it->second.type);
    }
    const std::optional<DataType> type = FromOnnxDataType(d->elem_type);
    if (!type) {
      return InvalidArgument(what + " has element type " + OnnxDataTypeName(d->elem_type) +
                             ", which eltwise does not support; it supports " +
                             SupportedTypeList());
    }
    if (it != impl->values.end()) {  // an input with a default value
      Value& v = it->second;
      if (v.type != *type) {
        return InvalidArgument(what + " is declared " + OnnxDataTypeName(d->elem_type) +
                               " but its initializer is " + OnnxDataTypeName(OnnxDataType(v.type)));
      }
      if (Status s = CheckCompatible(*d, v.rank_known, v.dims, what, "its initializer"); !s.ok()) {
        return s;
      }
      v.overridable = true;
      // A caller may override the default with any shape the declaration allows.
      v.rank_known = d->rank_known;
      v.dims = d->dims;
      impl->overridable_inputs.push_back(MakeValueInfo(in.name(), *type, *d));
      continue;
    }
    Value v;
    v.kind = Kind::kInput;
    v.type = *type;
    v.rank_known = d->rank_known;
    v.dims = d->dims;
    impl->values.emplace(in.name(), std::move(v));
    impl->inputs.push_back(MakeValueInfo(in.name(), *type, *d));
  }

  // Nodes: arity, attributes, and who produces what.
  std::unordered_map<std::string, int> producer;
  for (int i = 0; i < node_count; ++i) {
    const auto& node = graph.node(i);
    const std::string& label = labels[i];
    if (node.input_size() != 1) {
      return InvalidArgument(label + " has " + std::to_string(node.input_size()) + " inputs; " +
                             node.op_type() + " takes exactly 1");
    }
    if (node.output_size() != 1) {
      return InvalidArgument(label + " has " + std::to_string(node.output_size()) + " outputs; " +
                             node.op_type() + " produces exactly 1");
    }
    if (node.input(0).empty()) return InvalidArgument(label + ": input 0 is missing (empty name)");
    if (node.output(0).empty()) return InvalidArgument(label + ": output 0 has an empty name");
    if (node.attribute_size() != 0) {
      return InvalidArgument(label + " has attribute " + Quoted(node.attribute(0).name()) + "; " +
                             node.op_type() + " has no attributes");
    }
    const std::string& out = node.output(0);
    if (auto it = producer.find(out); it != producer.end()) {
      return InvalidArgument(label + ": output " + Quoted(out) + " is also produced by " +
                             labels[it->second] + "; every value must be defined once");
    }
    if (impl->values.count(out)) {
      return InvalidArgument(label + ": output " + Quoted(out) +
                             " redefines a graph input or initializer");
    }
    producer.emplace(out, i);
  }

  // Topological order (Kahn's algorithm, lowest node index first, so a sorted graph keeps its
  // order). Each node has one input, so its only possible dependency is that input's producer.
  std::vector<std::vector<int>> consumers(node_count);
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < node_count; ++i) {
    const std::string& in = graph.node(i).input(0);
    if (auto it = producer.find(in); it != producer.end()) {
      consumers[it->second].push_back(i);
    } else if (impl->values.count(in)) {
      ready.push(i);
    } else {
      return InvalidArgument(labels[i] + ": input " + Quoted(in) +
                             " is not a graph input, an initializer or any node's output");
    }
  }
  std::vector<int> order;
  while (!ready.empty()) {
    const int i = ready.top();
    ready.pop();
    order.push_back(i);
    for (int c : consumers[i]) ready.push(c);
  }
  if (static_cast<int>(order.size()) != node_count) {
    std::vector<bool> done(node_count);
    for (int i : order) done[i] = true;
    const int stuck = static_cast<int>(std::find(done.begin(), done.end(), false) - done.begin());
    return InvalidArgument("the graph has a cycle through " + labels[stuck]);
  }

  // Types along the order.
  for (int i : order) {
    const auto& node = graph.node(i);
    const Value& in = impl->values.at(node.input(0));
    const OnnxVersion* version = ResolveOp(node.op_type(), impl->opset);
    if (std::find(version->types.begin(), version->types.end(), in.type) == version->types.end()) {
      std::string hint;
      if (const OnnxVersion* later =
              VersionAdding(*FindOpByTitle(node.op_type()), version->since_version, in.type)) {
        const std::string v = std::to_string(later->since_version);
        hint = " (" + node.op_type() + "-" + v + ", from opset " + v + ", adds " +
               OnnxDataTypeName(OnnxDataType(in.type)) + ")";
      }
      return InvalidArgument(labels[i] + ": input " + Quoted(node.input(0)) + " is " +
                             OnnxDataTypeName(OnnxDataType(in.type)) + ", which " + node.op_type() +
                             "-" + std::to_string(version->since_version) + " (selected by opset " +
                             std::to_string(impl->opset) + ") does not allow; it accepts " +
                             TypeList(version->types) + hint);
    }
    Value out;
    out.kind = Kind::kNodeOutput;
    out.type = in.type;
    out.rank_known = in.rank_known;
    out.dims = in.dims;
    impl->values.emplace(node.output(0), out);
    NodeInfo info;
    info.name = node.name().empty() ? "#" + std::to_string(i) : node.name();
    info.op_type = node.op_type();
    info.since_version = version->since_version;
    info.input = node.input(0);
    info.output = node.output(0);
    info.type = in.type;
    impl->nodes.push_back(std::move(info));
  }

  // Declared value_info and graph outputs must agree with what the graph computes.
  auto check_declared = [&](const ::onnx::ValueInfoProto& v,
                            const std::string& what) -> Expected<Declared> {
    Expected<Declared> d = ParseDeclared(v, what);
    if (!d.ok()) return d;
    auto it = impl->values.find(v.name());
    if (it == impl->values.end()) return d;
    const Value& value = it->second;
    if (d->elem_type != 0 && d->elem_type != OnnxDataType(value.type)) {
      return InvalidArgument(what + " is declared " + OnnxDataTypeName(d->elem_type) +
                             " but the graph computes " +
                             OnnxDataTypeName(OnnxDataType(value.type)));
    }
    if (Status s = CheckCompatible(*d, value.rank_known, value.dims, what, "the graph's value");
        !s.ok()) {
      return s;
    }
    return d;
  };
  for (const auto& v : graph.value_info()) {
    if (Expected<Declared> d = check_declared(v, "value_info " + Quoted(v.name())); !d.ok()) {
      return d.status();
    }
  }
  if (graph.output_size() == 0) return InvalidArgument("the graph has no outputs");
  for (int i = 0; i < graph.output_size(); ++i) {
    const auto& o = graph.output(i);
    const std::string what = "graph output " + Quoted(o.name());
    auto it = impl->values.find(o.name());
    if (it == impl->values.end()) {
      return InvalidArgument(what +
                             " is not produced by any node, nor a graph input or "
                             "initializer");
    }
    Expected<Declared> d = check_declared(o, what);
    if (!d.ok()) return d.status();
    ValueInfo info = MakeValueInfo(o.name(), it->second.type, *d);
    if (!d->rank_known) {
      info.rank_known = it->second.rank_known;
      info.dims = it->second.dims;
      info.dim_params.assign(info.dims.size(), std::string());
    }
    impl->outputs.push_back(std::move(info));
  }

  // Finally the ONNX checker, for everything else the standard requires.
  if (Status s = RunChecker(model, order, impl->opset); !s.ok()) return s;
  impl->PlanExecution();
  return impl;
}

void Model::Impl::PlanExecution() {
  std::unordered_map<std::string, int> root_of;
  for (const ValueInfo& v : inputs) roots.push_back({v.name, -1});
  for (const ValueInfo& v : overridable_inputs) {
    roots.push_back({v.name, values.at(v.name).initializer});
  }
  for (const auto& [name, v] : values) {
    if (v.kind == Kind::kInitializer && !v.overridable) roots.push_back({name, v.initializer});
  }
  for (size_t r = 0; r < roots.size(); ++r) root_of.emplace(roots[r].name, static_cast<int>(r));

  std::unordered_map<std::string, int> node_of;  // by the value a node computes
  std::vector<int> consumers(nodes.size());
  steps.resize(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    Step& step = steps[i];
    if (auto it = node_of.find(nodes[i].input); it != node_of.end()) {
      step.input_node = it->second;
      step.root = steps[it->second].root;
      ++consumers[it->second];
    } else {
      step.input_root = root_of.at(nodes[i].input);
      step.root = step.input_root;
    }
    node_of.emplace(nodes[i].output, static_cast<int>(i));
  }
  std::unordered_map<std::string, int> first_output;
  for (size_t k = 0; k < outputs.size(); ++k) {
    OutputSource source;
    source.first = first_output.emplace(outputs[k].name, static_cast<int>(k)).first->second;
    if (auto it = node_of.find(outputs[k].name); it != node_of.end()) {
      source.node = it->second;
      source.root = steps[it->second].root;
    } else {
      source.root = root_of.at(outputs[k].name);
    }
    output_sources.push_back(source);
  }
  // Storage, last node first: a single-use value takes its consumer's (already decided) storage.
  std::vector<int> only_consumer(nodes.size(), -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (steps[i].input_node >= 0 && consumers[steps[i].input_node] == 1) {
      only_consumer[steps[i].input_node] = static_cast<int>(i);
    }
  }
  for (size_t i = nodes.size(); i-- > 0;) {
    Step& step = steps[i];
    if (auto it = first_output.find(nodes[i].output); it != first_output.end()) {
      step.storage = {true, it->second};
    } else if (only_consumer[i] >= 0) {
      step.storage = steps[only_consumer[i]].storage;
    } else {
      step.storage = {false, static_cast<int>(temporary_roots.size())};
      temporary_roots.push_back(step.root);
    }
  }
}

Expected<Model> Model::Parse(std::span<const std::byte> bytes, const std::string& source) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return InvalidArgument(source + ": " + std::to_string(bytes.size()) +
                           " bytes; protobuf messages (ONNX models without external data) are "
                           "limited to 2 GiB");
  }
  ::onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return InvalidArgument(source +
                           ": not a valid ONNX model (protobuf parse failed: the file is "
                           "truncated or corrupt)");
  }
  Expected<std::shared_ptr<Impl>> impl = Impl::Build(model);
  if (!impl.ok()) return InvalidArgument(source + ": " + impl.status().message());
  return Model(std::move(*impl));
}

Expected<Model> Model::Load(const std::string& path) {
  Expected<std::vector<std::byte>> bytes = internal::ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  return Parse(*bytes, path);
}

const std::vector<ValueInfo>& Model::inputs() const { return impl_->inputs; }
const std::vector<ValueInfo>& Model::outputs() const { return impl_->outputs; }
const std::vector<NodeInfo>& Model::nodes() const { return impl_->nodes; }
int64_t Model::ir_version() const { return impl_->ir_version; }
int Model::opset() const { return impl_->opset; }
uint64_t Model::compile_count() const {
  std::lock_guard<std::mutex> lock(impl_->compiled_mutex);
  return impl_->compile_count;
}

Expected<CompiledOperator> Model::Impl::CompiledNode(const Device& device, size_t index,
                                                     DataType type, std::span<const uint64_t> shape,
                                                     uint64_t buffer_bytes) const {
  {
    std::lock_guard<std::mutex> lock(compiled_mutex);
    if (auto it = compiled.find(KeyView{&device.state(), index, shape}); it != compiled.end()) {
      return it->second;
    }
  }
  CompiledKey key{&device.state(), index, std::vector<uint64_t>(shape.begin(), shape.end())};
  TensorDesc desc;
  desc.type = type;
  desc.sizes = key.shape;
  desc.total_tensor_size_in_bytes = buffer_bytes;
  // The option ONNX's definition of the op means (Sign: NaN propagates, like np.sign).
  const OpInfo& info = *FindOpByTitle(nodes[index].op_type);
  Expected<CompiledOperator> op = Compile(device, MakeDesc(info.op, info.onnx_option, desc, desc));
  if (!op.ok()) return op;
  std::lock_guard<std::mutex> lock(compiled_mutex);
  ++compile_count;
  if (compiled.size() >= kMaxCompiled) compiled.clear();
  compiled.emplace(std::move(key), *op);
  return op;
}

namespace {

std::string NodeLabel(const NodeInfo& node) {
  return "node " + Quoted(node.name) + " (" + node.op_type + ")";
}

std::vector<uint64_t> ShapeVector(std::span<const uint64_t> shape) {
  return std::vector<uint64_t>(shape.begin(), shape.end());
}

// The bytes of a packed tensor; nullopt when they overflow 64 bits.
std::optional<uint64_t> PackedBytes(DataType type, std::span<const uint64_t> shape) {
  uint64_t bytes = ElementSize(type);
  for (uint64_t d : shape) {
    if (__builtin_mul_overflow(bytes, d, &bytes)) return std::nullopt;
  }
  return bytes;
}

// The sizes the inputs gave each dim_param (the names are the model's).
using DimBindings = std::pmr::map<std::string_view, uint64_t>;

// A value no node computes (a graph input or initializer), in host memory, read in place.
struct HostValue {
  DataType type = DataType::kFloat32;
  std::span<const uint64_t> shape;
  const std::byte* data = nullptr;
  uint64_t bytes = 0;
  bool bound = false;
};

// `kind` and `name` make the subject of messages: "input 'x'", "graph output 'y'" (built only
// for a message).
Status CheckAgainstDeclared(const ValueInfo& info, DataType type, std::span<const uint64_t> shape,
                            std::string_view kind, std::string_view name, DimBindings* params) {
  auto what = [&] { return std::string(kind) + Quoted(std::string(name)); };
  if (type != info.type) {
    return InvalidArgument(what() + " is " + OnnxDataTypeName(OnnxDataType(type)) +
                           "; the model declares " + OnnxDataTypeName(OnnxDataType(info.type)));
  }
  if (!info.rank_known) return Status::Ok();
  if (shape.size() != info.dims.size()) {
    return InvalidArgument(what() + " has shape " + ShapeString(ShapeVector(shape)) + " (rank " +
                           std::to_string(shape.size()) + "); the model declares " +
                           DimsString(true, info.dims, info.dim_params) + " (rank " +
                           std::to_string(info.dims.size()) + ")");
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (info.dims[i] && *info.dims[i] != shape[i]) {
      return InvalidArgument(what() + " has shape " + ShapeString(ShapeVector(shape)) +
                             "; the model declares " +
                             DimsString(true, info.dims, info.dim_params) + " (dimension " +
                             std::to_string(i) + " differs)");
    }
    const std::string_view param =
        i < info.dim_params.size() ? std::string_view(info.dim_params[i]) : std::string_view();
    if (!param.empty()) {
      auto [it, inserted] = params->emplace(param, shape[i]);
      if (!inserted && it->second != shape[i]) {
        return InvalidArgument(what() + " has shape " + ShapeString(ShapeVector(shape)) +
                               ": dimension " + std::to_string(i) + " ('" + std::string(param) +
                               "') is " + std::to_string(shape[i]) + " but another tensor bound '" +
                               std::string(param) + "' to " + std::to_string(it->second));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status Model::RunInto(const Device& device, std::span<const InputView> inputs,
                      const OutputAllocator& allocate) const {
  const Impl& m = *impl_;
  // Bind inputs by name to their roots (see Impl::roots).
  // The per-run bookkeeping lives in an arena on the stack (heap only for large graphs): a small
  // run is dominated by fixed costs.
  std::array<std::byte, 2048> arena_bytes;
  std::pmr::monotonic_buffer_resource arena(arena_bytes.data(), arena_bytes.size());
  std::pmr::vector<HostValue> roots(m.roots.size(), &arena);
  DimBindings params(&arena);
  for (const InputView& in : inputs) {
    const ValueInfo* declared = nullptr;
    size_t r = 0;
    for (const std::vector<ValueInfo>* list : {&m.inputs, &m.overridable_inputs}) {
      for (const ValueInfo& v : *list) {
        if (v.name == in.name) {
          declared = &v;
          break;
        }
        ++r;
      }
      if (declared != nullptr) break;
    }
    auto what = [&] { return "input " + Quoted(std::string(in.name)); };
    if (declared == nullptr) {
      std::string names;
      for (const ValueInfo& v : m.inputs) names += (names.empty() ? "" : ", ") + v.name;
      return InvalidArgument("the model has no " + what() +
                             " (its inputs: " + (names.empty() ? "none" : names) + ")");
    }
    if (roots[r].bound) return InvalidArgument(what() + " is given twice");
    const std::optional<uint64_t> needed = PackedBytes(in.type, in.shape);
    if (needed != in.size_in_bytes) {
      return InvalidArgument(what() + " has " + std::to_string(in.size_in_bytes) +
                             " bytes of data; shape " + ShapeString(ShapeVector(in.shape)) +
                             " needs " +
                             (needed ? std::to_string(*needed) : std::string("more than 2^64")));
    }
    if (in.data == nullptr && in.size_in_bytes != 0) {
      return InvalidArgument(what() + " has no data (a null pointer)");
    }
    if (Status s = CheckAgainstDeclared(*declared, in.type, in.shape, "input ", in.name, &params);
        !s.ok()) {
      return s;
    }
    roots[r] = {in.type, in.shape, static_cast<const std::byte*>(in.data), in.size_in_bytes, true};
  }
  for (size_t r = 0; r < m.inputs.size(); ++r) {
    const ValueInfo& v = m.inputs[r];
    if (!roots[r].bound) {
      return InvalidArgument("graph input " + Quoted(v.name) + " (" +
                             OnnxDataTypeName(OnnxDataType(v.type)) + " " +
                             DimsString(v.rank_known, v.dims, v.dim_params) + ") has no value");
    }
  }
  for (size_t r = m.inputs.size(); r < roots.size(); ++r) {
    if (roots[r].bound) continue;
    const HostTensor& t = m.initializers[m.roots[r].initializer];
    roots[r] = {t.type, t.shape, t.data.data(), t.data.size(), true};
  }
  // Graph outputs have their chain root's type and shape: check them before anything runs.
  for (size_t k = 0; k < m.outputs.size(); ++k) {
    const HostValue& v = roots[m.output_sources[k].root];
    if (Status s = CheckAgainstDeclared(m.outputs[k], v.type, v.shape, "graph output ",
                                        m.outputs[k].name, &params);
        !s.ok()) {
      return s;
    }
  }

  // Host memory is bound directly where the device takes any packed host binding (no DirectML
  // alignment or size rounding); elsewhere values are staged through padded device buffers.
  const bool on_host = staging::BindsPackedHostArrays(device);
  auto buffer_bytes = [&](const HostValue& v) {
    return on_host ? v.bytes : staging::PackedBufferBytes(v.type, ShapeVector(v.shape));
  };
  std::pmr::vector<CompiledOperator> ops(&arena);
  ops.reserve(m.nodes.size());
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    const HostValue& v = roots[m.steps[i].root];
    Expected<CompiledOperator> op = m.CompiledNode(device, i, v.type, v.shape, buffer_bytes(v));
    if (!op.ok()) {
      return Status(op.status().code(), NodeLabel(m.nodes[i]) + ": " + op.status().message());
    }
    ops.push_back(std::move(*op));
  }

  std::vector<std::unique_ptr<std::byte[]>> temporaries(on_host ? m.temporary_roots.size() : 0);
  for (size_t t = 0; t < temporaries.size(); ++t) {
    const uint64_t bytes = roots[m.temporary_roots[t]].bytes;
    temporaries[t].reset(new (std::nothrow) std::byte[std::max<uint64_t>(bytes, 1)]);
    if (temporaries[t] == nullptr) {
      return Status(StatusCode::kOutOfMemory,
                    "no memory for a " + std::to_string(bytes) + "-byte intermediate value");
    }
  }
  std::pmr::vector<std::byte*> out(m.outputs.size(), &arena);
  for (size_t k = 0; k < m.outputs.size(); ++k) {
    const HostValue& v = roots[m.output_sources[k].root];
    out[k] = static_cast<std::byte*>(allocate(k, v.type, v.shape));
    if (out[k] == nullptr && v.bytes != 0) {
      return Status(StatusCode::kOutOfMemory, "graph output " + Quoted(m.outputs[k].name) +
                                                  ": no buffer for its " + std::to_string(v.bytes) +
                                                  " bytes");
    }
  }

  if (on_host) {
    auto storage = [&](const Impl::Storage& s) {
      return s.graph_output ? out[s.index] : temporaries[s.index].get();
    };
    for (size_t i = 0; i < m.nodes.size(); ++i) {
      const Impl::Step& step = m.steps[i];
      const uint64_t bytes = roots[step.root].bytes;
      const std::byte* in = step.input_node >= 0 ? storage(m.steps[step.input_node].storage)
                                                 : roots[step.input_root].data;
      Status s = ops[i].Execute(ConstBinding{in, bytes}, Binding{storage(step.storage), bytes});
      if (!s.ok()) return Status(s.code(), NodeLabel(m.nodes[i]) + ": " + s.message());
    }
    for (size_t k = 0; k < m.outputs.size(); ++k) {
      const Impl::OutputSource& source = m.output_sources[k];
      const HostValue& v = roots[source.root];
      const std::byte* from = source.first != static_cast<int>(k) ? out[source.first]
                              : source.node < 0                   ? v.data
                                                                  : nullptr;
      if (from != nullptr && v.bytes != 0) std::memcpy(out[k], from, v.bytes);
    }
    return Status::Ok();
  }

  staging::DeviceBuffers buffers(device);
  std::vector<void*> root_on_device(roots.size(), nullptr);
  std::vector<void*> node_on_device(m.nodes.size(), nullptr);
  for (size_t i = 0; i < m.nodes.size(); ++i) {
    const Impl::Step& step = m.steps[i];
    const HostValue& v = roots[step.root];
    const uint64_t bytes = buffer_bytes(v);
    const void* in = nullptr;
    if (step.input_node >= 0) {
      in = node_on_device[step.input_node];
    } else {
      void*& staged = root_on_device[step.input_root];
      if (staged == nullptr) {
        Expected<void*> p = buffers.Upload(std::span(v.data, v.bytes), bytes);
        if (!p.ok())
          return Status(p.status().code(), NodeLabel(m.nodes[i]) + ": " + p.status().message());
        staged = *p;
      }
      in = staged;
    }
    Expected<void*> p = buffers.Allocate(bytes);
    if (!p.ok())
      return Status(p.status().code(), NodeLabel(m.nodes[i]) + ": " + p.status().message());
    node_on_device[i] = *p;
    Status s = ops[i].Execute(ConstBinding{in, bytes}, Binding{*p, bytes});
    if (!s.ok()) return Status(s.code(), NodeLabel(m.nodes[i]) + ": " + s.message());
  }
  for (size_t k = 0; k < m.outputs.size(); ++k) {
    const Impl::OutputSource& source = m.output_sources[k];
    const HostValue& v = roots[source.root];
    if (v.bytes == 0) continue;
    if (source.node >= 0) {
      if (Status s = CopyToHost(device, out[k], node_on_device[source.node], v.bytes); !s.ok()) {
        return s;
      }
    } else {  // a graph input or initializer passed straight through
      std::memcpy(out[k], v.data, v.bytes);
    }
  }
  return Synchronize(device);
}

Expected<std::vector<NamedTensor>> Model::Run(const Device& device,
                                              const std::vector<NamedTensor>& inputs) const {
  std::vector<InputView> views;
  views.reserve(inputs.size());
  for (const NamedTensor& in : inputs) {
    views.push_back(
        {in.name, in.tensor.type, in.tensor.shape, in.tensor.data.data(), in.tensor.data.size()});
  }
  std::vector<NamedTensor> results(impl_->outputs.size());
  Status s = RunInto(device, views, [&](size_t k, DataType type, std::span<const uint64_t> shape) {
    NamedTensor& r = results[k];
    r.name = r.tensor.name = impl_->outputs[k].name;
    r.tensor.type = type;
    r.tensor.shape.assign(shape.begin(), shape.end());
    r.tensor.data.resize(r.tensor.element_count() * ElementSize(type));
    return static_cast<void*>(r.tensor.data.data());
  });
  if (!s.ok()) return s;
  return results;
}

}  // namespace eltwise::onnx_frontend
