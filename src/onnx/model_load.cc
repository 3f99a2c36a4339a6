// ONNX model loading: parsing, validation (every rule and message of docs/onnx.md's list) and
// the Model::Impl it builds.
#include <algorithm>
#include <climits>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/op_registry.h"
#include "core/out_of_memory.h"
#include "onnx/internal.h"
#include "onnx/model_impl.h"

namespace eltwise::onnx_frontend {

namespace internal {

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

}  // namespace internal

namespace {

using internal::DimsString;
using internal::IsOnnxDomain;
using internal::Quoted;

// The highest IR version this front end knows (ONNX 1.23). Newer IR versions may change the
// meaning of a model, so they are rejected like ONNX's own checker does.
constexpr int64_t kMaxKnownIrVersion = 14;

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

ValueInfo MakeValueInfo(const std::string& name, DataType type, const Declared& d) {
  ValueInfo v;
  v.name = name;
  v.type = type;
  v.rank_known = d.rank_known;
  v.dims = d.dims;
  v.dim_params = d.dim_params;
  return v;
}

// Validates a parsed model and builds its Model::Impl, one group of rules per step, in the order
// docs/onnx.md lists them: the first rule broken is the one reported.
class ModelBuilder {
 public:
  explicit ModelBuilder(const ::onnx::ModelProto& model)
      : model_(model), impl_(std::make_shared<Model::Impl>()) {}

  Expected<std::shared_ptr<Model::Impl>> Build() {
    for (Status (ModelBuilder::*step)() :
         {&ModelBuilder::CheckIrVersion, &ModelBuilder::ResolveOpset, &ModelBuilder::CheckGraph,
          &ModelBuilder::CheckOperators, &ModelBuilder::AddInitializers,
          &ModelBuilder::AddGraphInputs, &ModelBuilder::FindProducers, &ModelBuilder::SortNodes,
          &ModelBuilder::AddNodes, &ModelBuilder::CheckValueInfo, &ModelBuilder::AddGraphOutputs}) {
      if (Status s = (this->*step)(); !s.ok()) return s;
    }
    // Finally the ONNX checker, for everything else the standard requires.
    if (Status s = internal::RunChecker(model_, order_, impl_->opset); !s.ok()) return s;
    impl_->PlanExecution();
    return impl_;
  }

 private:
  using Kind = Model::Impl::Kind;
  using Value = Model::Impl::Value;

  Status CheckIrVersion() {
    if (!model_.has_ir_version() || model_.ir_version() <= 0) {
      return InvalidArgument("ir_version is not set");
    }
    impl_->ir_version = model_.ir_version();
    if (model_.ir_version() < 3) {
      return InvalidArgument("ir_version " + std::to_string(model_.ir_version()) +
                             " has no opset imports (they start at IR version 3); re-export the "
                             "model with a newer ONNX");
    }
    if (model_.ir_version() > kMaxKnownIrVersion) {
      return InvalidArgument("ir_version " + std::to_string(model_.ir_version()) +
                             " is newer than eltwise knows (" + std::to_string(kMaxKnownIrVersion) +
                             ")");
    }
    return Status::Ok();
  }

  // The one ai.onnx opset the model imports.
  Status ResolveOpset() {
    std::optional<int64_t> opset;
    for (const auto& o : model_.opset_import()) {
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
    impl_->opset = static_cast<int>(*opset);
    return Status::Ok();
  }

  Status CheckGraph() {
    if (!model_.has_graph()) return InvalidArgument("the model has no graph");
    graph_ = &model_.graph();
    if (graph_->sparse_initializer_size() != 0) {
      return InvalidArgument("graph has sparse initializers, which are not supported");
    }
    return Status::Ok();
  }

  // Operators first: an unsupported one is the most useful thing to report. Also names every
  // node for later messages (labels_).
  Status CheckOperators() {
    const int node_count = graph_->node_size();
    labels_.resize(node_count);
    for (int i = 0; i < node_count; ++i) {
      const auto& node = graph_->node(i);
      labels_[i] = "node " + (node.name().empty() ? "#" + std::to_string(i) : Quoted(node.name())) +
                   " (" + node.op_type() + ")";
      const std::string& label = labels_[i];
      if (!IsOnnxDomain(node.domain())) {
        return InvalidArgument(label + ": domain " + Quoted(node.domain()) +
                               " is not supported; eltwise runs ai.onnx " +
                               OpList([](const OpInfo& op) { return std::string(op.title); }) +
                               " only");
      }
      const OpInfo* op = FindOpByTitle(node.op_type());
      if (op == nullptr) {
        return InvalidArgument(label + ": operator " + Quoted(node.op_type()) +
                               " is not supported; eltwise runs " + OpsWithOpsets() + " only");
      }
      if (!ResolveOp(node.op_type(), impl_->opset)) {
        const int first = op->onnx_versions.front().since_version;
        return InvalidArgument(label + ": " + node.op_type() + " needs ai.onnx opset " +
                               std::to_string(first) + " or later; the model imports opset " +
                               std::to_string(impl_->opset));
      }
    }
    return Status::Ok();
  }

  Status AddInitializers() {
    for (int i = 0; i < graph_->initializer_size(); ++i) {
      const auto& init = graph_->initializer(i);
      const std::string what = "initializer " + Quoted(init.name());
      if (init.name().empty()) {
        return InvalidArgument("initializer " + std::to_string(i) + " has no name");
      }
      if (impl_->values.count(init.name())) return InvalidArgument(what + " is defined twice");
      Expected<HostTensor> t = internal::DecodeTensor(init, what);
      if (!t.ok()) return t.status();
      if (t->shape.size() > kMaxRank) {
        return InvalidArgument(what + " has rank " + std::to_string(t->shape.size()) +
                               "; eltwise supports ranks 0-" + std::to_string(kMaxRank));
      }
      Value v;
      v.kind = Kind::kInitializer;
      v.type = t->type;
      v.initializer = static_cast<int>(impl_->initializers.size());
      v.rank_known = true;
      for (uint64_t d : t->shape) v.dims.push_back(d);
      impl_->values.emplace(init.name(), std::move(v));
      impl_->initializers.push_back(std::move(*t));
    }
    return Status::Ok();
  }

  // Graph inputs: required ones, and those an initializer gives a default value.
  Status AddGraphInputs() {
    std::set<std::string> input_names;
    for (int i = 0; i < graph_->input_size(); ++i) {
      const auto& in = graph_->input(i);
      const std::string what = "graph input " + Quoted(in.name());
      if (in.name().empty()) {
        return InvalidArgument("graph input " + std::to_string(i) + " has no name");
      }
      if (!input_names.insert(in.name()).second) return InvalidArgument(what + " is listed twice");
      Expected<Declared> d = ParseDeclared(in, what);
      if (!d.ok()) return d.status();
      // Required even beside an initializer, as the ONNX checker requires it.
      if (d->elem_type == 0) return InvalidArgument(what + " has no element type");
      auto it = impl_->values.find(in.name());
      const std::optional<DataType> type = FromOnnxDataType(d->elem_type);
      if (!type) {
        return InvalidArgument(what + " has element type " + OnnxDataTypeName(d->elem_type) +
                               ", which eltwise does not support; it supports " +
                               SupportedTypeList());
      }
      if (it != impl_->values.end()) {  // an input with a default value
        Value& v = it->second;
        if (v.type != *type) {
          return InvalidArgument(what + " is declared " + OnnxDataTypeName(d->elem_type) +
                                 " but its initializer is " +
                                 OnnxDataTypeName(OnnxDataType(v.type)));
        }
        if (Status s = CheckCompatible(*d, v.rank_known, v.dims, what, "its initializer");
            !s.ok()) {
          return s;
        }
        v.overridable = true;
        // A caller may override the default with any shape the declaration allows.
        v.rank_known = d->rank_known;
        v.dims = d->dims;
        impl_->overridable_inputs.push_back(MakeValueInfo(in.name(), *type, *d));
        continue;
      }
      Value v;
      v.kind = Kind::kInput;
      v.type = *type;
      v.rank_known = d->rank_known;
      v.dims = d->dims;
      impl_->values.emplace(in.name(), std::move(v));
      impl_->inputs.push_back(MakeValueInfo(in.name(), *type, *d));
    }
    return Status::Ok();
  }

  // Nodes: arity, attributes, and who produces what (producers_).
  Status FindProducers() {
    for (int i = 0; i < graph_->node_size(); ++i) {
      const auto& node = graph_->node(i);
      const std::string& label = labels_[i];
      if (node.input_size() != 1) {
        return InvalidArgument(label + " has " + std::to_string(node.input_size()) + " inputs; " +
                               node.op_type() + " takes exactly 1");
      }
      if (node.output_size() != 1) {
        return InvalidArgument(label + " has " + std::to_string(node.output_size()) + " outputs; " +
                               node.op_type() + " produces exactly 1");
      }
      if (node.input(0).empty()) {
        return InvalidArgument(label + ": input 0 is missing (empty name)");
      }
      if (node.output(0).empty()) return InvalidArgument(label + ": output 0 has an empty name");
      if (node.attribute_size() != 0) {
        return InvalidArgument(label + " has attribute " + Quoted(node.attribute(0).name()) + "; " +
                               node.op_type() + " has no attributes");
      }
      const std::string& out = node.output(0);
      if (auto it = producers_.find(out); it != producers_.end()) {
        return InvalidArgument(label + ": output " + Quoted(out) + " is also produced by " +
                               labels_[it->second] + "; every value must be defined once");
      }
      if (impl_->values.count(out)) {
        return InvalidArgument(label + ": output " + Quoted(out) +
                               " redefines a graph input or initializer");
      }
      producers_.emplace(out, i);
    }
    return Status::Ok();
  }

  // A topological order (order_; Kahn's algorithm, lowest node index first, so a sorted graph
  // keeps its order). Each node has one input, so its only possible dependency is that input's
  // producer.
  Status SortNodes() {
    const int node_count = graph_->node_size();
    std::vector<std::vector<int>> consumers(node_count);
    std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
    for (int i = 0; i < node_count; ++i) {
      const std::string& in = graph_->node(i).input(0);
      if (auto it = producers_.find(in); it != producers_.end()) {
        consumers[it->second].push_back(i);
      } else if (impl_->values.count(in)) {
        ready.push(i);
      } else {
        return InvalidArgument(labels_[i] + ": input " + Quoted(in) +
                               " is not a graph input, an initializer or any node's output");
      }
    }
    while (!ready.empty()) {
      const int i = ready.top();
      ready.pop();
      order_.push_back(i);
      for (int c : consumers[i]) ready.push(c);
    }
    if (static_cast<int>(order_.size()) != node_count) {
      std::vector<bool> done(node_count);
      for (int i : order_) done[i] = true;
      const int stuck = static_cast<int>(std::find(done.begin(), done.end(), false) - done.begin());
      return InvalidArgument("the graph has a cycle through " + labels_[stuck]);
    }
    return Status::Ok();
  }

  // Nodes in execution order: each input's type must be one its operator version allows; its
  // output has the input's type and shape.
  Status AddNodes() {
    for (int i : order_) {
      const auto& node = graph_->node(i);
      const Value& in = impl_->values.at(node.input(0));
      const OnnxVersion* version = ResolveOp(node.op_type(), impl_->opset);
      if (std::find(version->types.begin(), version->types.end(), in.type) ==
          version->types.end()) {
        std::string hint;
        if (const OnnxVersion* later =
                VersionAdding(*FindOpByTitle(node.op_type()), version->since_version, in.type)) {
          const std::string v = std::to_string(later->since_version);
          hint = " (" + node.op_type() + "-" + v + ", from opset " + v + ", adds " +
                 OnnxDataTypeName(OnnxDataType(in.type)) + ")";
        }
        return InvalidArgument(labels_[i] + ": input " + Quoted(node.input(0)) + " is " +
                               OnnxDataTypeName(OnnxDataType(in.type)) + ", which " +
                               node.op_type() + "-" + std::to_string(version->since_version) +
                               " (selected by opset " + std::to_string(impl_->opset) +
                               ") does not allow; it accepts " + TypeList(version->types) + hint);
      }
      Value out;
      out.kind = Kind::kNodeOutput;
      out.type = in.type;
      out.rank_known = in.rank_known;
      out.dims = in.dims;
      impl_->values.emplace(node.output(0), out);
      NodeInfo info;
      info.name = node.name().empty() ? "#" + std::to_string(i) : node.name();
      info.op_type = node.op_type();
      info.since_version = version->since_version;
      info.input = node.input(0);
      info.output = node.output(0);
      info.type = in.type;
      impl_->nodes.push_back(std::move(info));
    }
    return Status::Ok();
  }

  // A declaration (value_info or graph output) parsed and checked against the type and shape the
  // graph computes for that value, if it computes one.
  Expected<Declared> CheckDeclaration(const ::onnx::ValueInfoProto& v,
                                      const std::string& what) const {
    Expected<Declared> d = ParseDeclared(v, what);
    if (!d.ok()) return d;
    auto it = impl_->values.find(v.name());
    if (it == impl_->values.end()) return d;
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
  }

  Status CheckValueInfo() {
    for (const auto& v : graph_->value_info()) {
      if (Expected<Declared> d = CheckDeclaration(v, "value_info " + Quoted(v.name())); !d.ok()) {
        return d.status();
      }
    }
    return Status::Ok();
  }

  Status AddGraphOutputs() {
    if (graph_->output_size() == 0) return InvalidArgument("the graph has no outputs");
    for (int i = 0; i < graph_->output_size(); ++i) {
      const auto& o = graph_->output(i);
      const std::string what = "graph output " + Quoted(o.name());
      auto it = impl_->values.find(o.name());
      if (it == impl_->values.end()) {
        return InvalidArgument(what +
                               " is not produced by any node, nor a graph input or "
                               "initializer");
      }
      Expected<Declared> d = CheckDeclaration(o, what);
      if (!d.ok()) return d.status();
      // As declared: a graph output without a shape is refused by the ONNX checker, which runs
      // after these rules.
      impl_->outputs.push_back(MakeValueInfo(o.name(), it->second.type, *d));
    }
    return Status::Ok();
  }

  const ::onnx::ModelProto& model_;
  const ::onnx::GraphProto* graph_ = nullptr;  // set by CheckGraph
  std::shared_ptr<Model::Impl> impl_;
  std::vector<std::string> labels_;                 // per node: "node 'name' (Op)"
  std::unordered_map<std::string, int> producers_;  // value name -> the node computing it
  std::vector<int> order_;                          // node indices in execution order
};

}  // namespace

Expected<Model> Model::Parse(std::span<const std::byte> bytes, const std::string& source) {
  return GuardAllocation("Model::Parse", [&]() -> Expected<Model> {
    if (bytes.size() > static_cast<size_t>(INT_MAX)) {
      return InvalidArgument(source + ": " + std::to_string(bytes.size()) +
                             " bytes; protobuf messages (ONNX models without external data) are "
                             "limited to 2 GiB");
    }
    // Parsed on an arena: protobuf is not exception-safe, so an allocation failure while parsing
    // leaked the messages built so far; the arena frees them however this function leaves.
    google::protobuf::Arena arena;
    ::onnx::ModelProto& model = *google::protobuf::Arena::CreateMessage<::onnx::ModelProto>(&arena);
    if (!model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
      return InvalidArgument(source +
                             ": not a valid ONNX model (protobuf parse failed: the file is "
                             "truncated or corrupt)");
    }
    Expected<std::shared_ptr<Impl>> impl = ModelBuilder(model).Build();
    if (!impl.ok()) {
      // An allocation failure keeps its code; every other rejection is the model's.
      const StatusCode code = impl.status().code() == StatusCode::kOutOfMemory
                                  ? StatusCode::kOutOfMemory
                                  : StatusCode::kInvalidArgument;
      return Status(code, source + ": " + impl.status().message());
    }
    return Model(std::move(*impl));
  });
}

Expected<Model> Model::Load(const std::string& path) {
  return GuardAllocation("Model::Load", [&]() -> Expected<Model> {
    Expected<std::vector<std::byte>> bytes = internal::ReadFileBytes(path);
    if (!bytes.ok()) return bytes.status();
    return Parse(*bytes, path);
  });
}

const std::vector<ValueInfo>& Model::inputs() const { return impl_->inputs; }
const std::vector<ValueInfo>& Model::outputs() const { return impl_->outputs; }
const std::vector<NodeInfo>& Model::nodes() const { return impl_->nodes; }
int64_t Model::ir_version() const { return impl_->ir_version; }
int Model::opset() const { return impl_->opset; }

}  // namespace eltwise::onnx_frontend
