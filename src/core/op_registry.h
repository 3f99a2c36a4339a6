// The op registry: everything the library knows about each operator, in one table (op_registry.cc)
// read by validation, naming, the feature-level tables, Compile, the ONNX front end, the CLI, the
// Python module, the tests and the benchmarks. The list of ops is ELTWISE_FOR_EACH_OP
// (eltwise/operators.h), the list of element functions ELTWISE_FOR_EACH_FUNCTION (function.h).
// Adding an op: docs/architecture.md, "Adding an op".
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/function.h"
#include "eltwise/feature_level.h"
#include "eltwise/operators.h"
#include "eltwise/tensor.h"

namespace eltwise {

// DirectML availability of some types: from `level` on.
struct TypesSince {
  FeatureLevel level;
  std::span<const DataType> types;
};

// One ONNX version of an op: the types its type constraint allows.
struct OnnxVersion {
  int since_version;
  std::span<const DataType> types;
};

// An op's option: one enumeration field of its description, values 0 to values.size() - 1. Value
// 0 is the description's default (what the front ends take when no value is given). An op without
// an option leaves it empty (no names): it has one function, option value 0, and the front ends
// offer no flag or keyword for it (HasOption, OptionValueCount).
struct OptionInfo {
  std::string_view field;                   // the description's field, the CLI flag: "nan", "mode"
  std::span<const std::string_view> names;  // the name of each value ("zero", "propagate")
  int directml_values;    // values [0, directml_values) exist at DirectML levels; the rest extended
  std::string_view help;  // one line for the CLI
};

struct OpInfo {
  Op op;
  std::string_view name;               // "sign": Name(Op), the CLI subcommand, the Python function
  std::string_view title;              // "Sign": in messages; the ONNX op_type
  std::string_view directml_operator;  // "DML_OPERATOR_ELEMENT_WISE_SIGN"
  FeatureLevel directml_since;         // the lowest DirectML feature level that has the op
  std::span<const TypesSince> directml_types;  // the types DirectML levels accept, by level
  // Integers are fixed points of the op: it runs Function::kCopy on them.
  bool identity_on_integers;
  OptionInfo option;
  std::span<const OnnxVersion> onnx_versions;  // ascending since_version
  int onnx_option;                             // the option value ONNX's definition means
  std::string_view summary;                    // one line for the CLI
  // The Python function's whole docstring; its first lines are the signature CPython shows
  // (__text_signature__).
  std::string_view python_doc;
  // The start of the op's NumPy ufunc names: one ufunc per option value, prefix + value name
  // ("round_" + "down"); an op without an option has one ufunc, named by the prefix without its
  // trailing underscore.
  std::string_view ufunc_prefix;
};

// Whether `info`'s op has an option, and how many option values (functions) it has: 1 without one.
constexpr bool HasOption(const OpInfo& info) { return !info.option.names.empty(); }
constexpr int OptionValueCount(const OpInfo& info) {
  return HasOption(info) ? static_cast<int>(info.option.names.size()) : 1;
}

// The option field of each description that has one: one overload per op with an option (none
// for an op without). The registry's entry and these overloads must agree (op_registry.cc checks).
inline NanPolicy& OptionField(SignDesc& d) { return d.nan; }
inline RoundingMode& OptionField(RoundDesc& d) { return d.mode; }
template <class Desc>
concept HasOptionField = requires(Desc& d) {
  OptionField(d);
};

// Every op, in ELTWISE_FOR_EACH_OP order (AllOps()[i].op == Op(i)).
std::span<const OpInfo> AllOps();
const OpInfo& Info(Op op);
// The op whose title is `title` ("Sign"), e.g. an ONNX op_type.
const OpInfo* FindOpByTitle(std::string_view title);
// The titles of every op, or of those with ONNX versions (for the ONNX front end's texts), in
// prose, the last two joined by `conjunction`: "Sign and Round" ("and"), "Sign or Round" ("or");
// with three ops "Sign, Round and Abs".
enum class OpsNamed { kAll, kWithOnnxVersions };
std::string OpTitles(std::string_view conjunction, OpsNamed which = OpsNamed::kAll);

// The op of a description and its option value.
Op OpOf(const OperatorDesc& desc);
int OptionOf(const OperatorDesc& desc);
// The description of `op` with option value `option` (< Info(op).option.names.size()).
OperatorDesc MakeDesc(Op op, int option, TensorDesc input, TensorDesc output);

// The input and output descriptions of any operator description.
const TensorDesc& InputOf(const OperatorDesc& desc);
const TensorDesc& OutputOf(const OperatorDesc& desc);
// `prototype` (its options) with its tensors replaced.
OperatorDesc WithTensors(OperatorDesc prototype, TensorDesc input, TensorDesc output);

// The element function `op` with option value `option` runs on `type`.
Function FunctionFor(Op op, int option, DataType type);
// The function a validated description runs.
Function FunctionOf(const OperatorDesc& desc);
// The op and option value of a function. kCopy has no op of its own: Round halves_to_nearest_even,
// the description that runs it on integer types.
Op OpOfFunction(Function f);
int OptionOfFunction(Function f);

}  // namespace eltwise
