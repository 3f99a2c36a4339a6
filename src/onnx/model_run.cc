// Running a loaded model: the execution plan fixed at load, its operators from the library's
// compiled-operator cache, and the runs themselves, on host memory or staged through device
// buffers.
#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <memory_resource>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/op_registry.h"
#include "core/out_of_memory.h"
#include "eltwise/device.h"
#include "eltwise/operators.h"
#include "onnx/internal.h"
#include "onnx/model_impl.h"
#include "staging/operator_cache.h"
#include "staging/staging.h"

namespace eltwise::onnx_frontend {

using internal::DimsString;
using internal::Quoted;

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

uint64_t Model::compile_count() const {
  std::lock_guard<std::mutex> lock(impl_->compiled_mutex);
  return impl_->compile_count;
}

Expected<CompiledOperator> Model::Impl::CompiledNode(const Device& device, size_t index,
                                                     DataType type, std::span<const uint64_t> shape,
                                                     uint64_t buffer_bytes) const {
  TensorDesc desc;
  desc.type = type;
  desc.sizes.assign(shape.begin(), shape.end());
  desc.total_tensor_size_in_bytes = buffer_bytes;
  // The option ONNX's definition of the op means (Sign: NaN propagates, like np.sign).
  const OpInfo& info = *FindOpByTitle(nodes[index].op_type);
  bool compiled = false;
  Expected<CompiledOperator> op =
      staging::CompileCached(device, MakeDesc(info.op, info.onnx_option, desc, desc),
                             staging::CacheScope{cache_owner, index}, &compiled);
  if (compiled) {
    std::lock_guard<std::mutex> lock(compiled_mutex);
    ++compile_count;
  }
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
  return GuardAllocation("Model::RunInto", [&]() -> Status {
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
      roots[r] = {in.type, in.shape, static_cast<const std::byte*>(in.data), in.size_in_bytes,
                  true};
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
                                                    ": no buffer for its " +
                                                    std::to_string(v.bytes) + " bytes");
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
  });
}

Expected<std::vector<NamedTensor>> Model::Run(const Device& device,
                                              const std::vector<NamedTensor>& inputs) const {
  return GuardAllocation("Model::Run", [&]() -> Expected<std::vector<NamedTensor>> {
    std::vector<InputView> views;
    views.reserve(inputs.size());
    for (const NamedTensor& in : inputs) {
      views.push_back(
          {in.name, in.tensor.type, in.tensor.shape, in.tensor.data.data(), in.tensor.data.size()});
    }
    std::vector<NamedTensor> results(impl_->outputs.size());
    Status s =
        RunInto(device, views, [&](size_t k, DataType type, std::span<const uint64_t> shape) {
          NamedTensor& r = results[k];
          r.name = r.tensor.name = impl_->outputs[k].name;
          r.tensor.type = type;
          r.tensor.shape.assign(shape.begin(), shape.end());
          r.tensor.data.resize(r.tensor.element_count() * ElementSize(type));
          return static_cast<void*>(r.tensor.data.data());
        });
    if (!s.ok()) return s;
    return results;
  });
}

}  // namespace eltwise::onnx_frontend
