// The ONNX checker run over a model eltwise has validated, with a schema registry that knows
// Round-22 even where the linked ONNX library predates it.
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <algorithm>
#include <climits>
#include <exception>
#include <new>
#include <unordered_map>

#include "onnx/internal.h"

namespace eltwise::onnx_frontend::internal {

namespace {

// The checker's message on one line: a newline becomes a space (none after a space), trailing
// spaces are dropped.
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

}  // namespace

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
  } catch (const std::bad_alloc&) {
    throw;  // not a verdict on the model: Model::Parse reports it as kOutOfMemory
  } catch (const std::exception& e) {
    return InvalidArgument("the ONNX checker rejects the model: " + OneLine(e.what()));
  }
  return Status::Ok();
}

}  // namespace eltwise::onnx_frontend::internal
