// The op registry (op_registry.h): one entry per op. The per-op facts are data here; the only
// per-op code is OptionField (which field of the description is the option).
#include "core/op_registry.h"

#include <array>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace eltwise {
namespace {

using D = DataType;
using L = FeatureLevel;

// ---------------------------------------------------------------------------------------------
// Sign (DML_OPERATOR_ELEMENT_WISE_SIGN, ONNX Sign).

constexpr D kSignFloatTypes[] = {D::kFloat32, D::kFloat16};
constexpr D kSign32BitIntegerTypes[] = {D::kInt8,  D::kInt16,  D::kInt32,
                                        D::kUInt8, D::kUInt16, D::kUInt32};
constexpr D kSign64BitIntegerTypes[] = {D::kInt64, D::kUInt64};
constexpr TypesSince kSignDirectMLTypes[] = {{L::k2_0, kSignFloatTypes},
                                             {L::k2_1, kSign32BitIntegerTypes},
                                             {L::k4_1, kSign64BitIntegerTypes}};
constexpr D kSignOnnx9Types[] = {D::kUInt8,   D::kUInt16,  D::kUInt32, D::kUInt64,
                                 D::kInt8,    D::kInt16,   D::kInt32,  D::kInt64,
                                 D::kFloat16, D::kFloat32, D::kFloat64};
constexpr D kSignOnnx13Types[] = {D::kUInt8,   D::kUInt16,  D::kUInt32,  D::kUInt64,
                                  D::kInt8,    D::kInt16,   D::kInt32,   D::kInt64,
                                  D::kFloat16, D::kFloat32, D::kFloat64, D::kBFloat16};
constexpr OnnxVersion kSignOnnxVersions[] = {{9, kSignOnnx9Types}, {13, kSignOnnx13Types}};
constexpr std::string_view kNanNames[] = {"zero", "propagate"};
constexpr std::string_view kSignPythonDoc =
    R"doc(sign($module, x, out=None, *, nan='zero', feature_level='extended', device='cpu', threads=None, stream=None)
--

Elementwise sign: +1 for x > 0, -1 for x < 0, +0 for +0 and -0 (DirectML ELEMENT_WISE_SIGN,
ONNX Sign). Unsigned integers give 0 or 1; signed integers -1, 0 or 1 (INT_MIN gives -1).

Parameters
----------
x : array_like
    A NumPy array, anything NumPy reads as one (lists, Python and NumPy scalars), an object with
    __dlpack__ (PyTorch, ...) or one that implements __array_ufunc__ (Dask arrays, xarray,
    pandas: they get eltwise.ufunc.sign_nan_<nan> and keep their kind). float32, float16,
    bfloat16 (ml_dtypes), float64, int8/16/32/64 or uint8/16/32/64, any layout.
out : array, optional
    Where to write the result: same shape and dtype as x. It may be x itself (in place) or
    overlap x in any way; the result is as if x were read whole before out is written.
nan : {'zero', 'propagate'}
    Result for NaN: 'zero' gives +0 (DirectML, PyTorch, ONNX Runtime CUDA); 'propagate' gives NaN
    (NumPy's np.sign, the ONNX reference).
feature_level : str
    'extended' (default) or a DirectML feature level ('2_0' ... '6_4'): the request is then
    validated exactly as DirectML would validate it (x's shape and strides are the tensor
    description; rank, dtype, size and stride rules apply).
device : {'cpu', 'cuda', 'cuda:N'}
    Where to run. CUDA tensors (DLPack) must use a CUDA device; host arrays on a CUDA device are
    copied there and back.
threads : int, optional
    CPU threads for this call (0: one per hardware thread); default: eltwise.num_threads /
    eltwise.set_num_threads.
stream : optional
    For a CUDA device: the stream to run on, as a cudaStream_t handle (int; 0 and 1: the legacy
    default stream, 2: the per-thread default stream) or a stream object (torch.cuda.Stream,
    cupy.cuda.Stream, or anything with __cuda_stream__). CUDA tensors are then processed on
    that stream without waiting: the call returns once the work is queued, and the caller keeps
    x and out alive until the stream reaches it. Default: the legacy default stream, and the
    call waits for the result. Host arrays always wait.

Returns
-------
out, or a new array of x's shape and dtype (a NumPy scalar for a scalar x, a tensor of the same
library for DLPack input, the container's own kind for __array_ufunc__ containers).

Raises
------
EltwiseError (a ValueError) for a request eltwise rejects, with the library's message; TypeError
for an unsupported object, dtype or option type; ValueError for an unknown option value or a
read-only out.)doc";

// ---------------------------------------------------------------------------------------------
// Round (DML_OPERATOR_ELEMENT_WISE_ROUND, ONNX Round).

constexpr D kRoundDirectMLFloatTypes[] = {D::kFloat32, D::kFloat16};
constexpr TypesSince kRoundDirectMLTypes[] = {{L::k2_1, kRoundDirectMLFloatTypes}};
constexpr D kRoundOnnx11Types[] = {D::kFloat16, D::kFloat32, D::kFloat64};
constexpr D kRoundOnnx22Types[] = {D::kFloat16, D::kFloat32, D::kFloat64, D::kBFloat16};
constexpr OnnxVersion kRoundOnnxVersions[] = {{11, kRoundOnnx11Types}, {22, kRoundOnnx22Types}};
constexpr std::string_view kModeNames[] = {"halves_to_nearest_even", "toward_zero",
                                           "toward_infinity", "down", "up"};
static_assert(std::size(kModeNames) == kRoundingModeCount);
constexpr std::string_view kRoundPythonDoc =
    R"doc(round($module, x, out=None, *, mode='halves_to_nearest_even', feature_level='extended', device='cpu', threads=None, stream=None)
--

Elementwise rounding to an integral value of the same dtype (DirectML ELEMENT_WISE_ROUND,
ONNX Round). The sign of zero is kept, infinities pass through, NaN stays NaN; integer dtypes
are copied unchanged (extended level only). As in np.rint, the second positional argument is out.

Parameters
----------
x : array_like
    As for sign (containers with __array_ufunc__ get eltwise.ufunc.round_<mode>).
out : array, optional
    As for sign: same shape and dtype; may be x or overlap it.
mode : str
    'halves_to_nearest_even' (np.rint, ONNX Round), 'toward_zero' (np.trunc), 'toward_infinity'
    (to nearest, halves away from zero: 2.5 -> 3, -2.5 -> -3; NOT ceil), 'down' (np.floor),
    'up' (np.ceil). 'down' and 'up' exist at the extended level only.
feature_level, device, threads, stream :
    As for sign. Round needs DirectML feature level 2_1 or higher.

Returns
-------
out, or a new array of x's shape and dtype (a NumPy scalar for a scalar x).

Raises
------
EltwiseError (a ValueError) for a request eltwise rejects; TypeError for an unsupported object,
dtype or option type; ValueError for an unknown option value or a read-only out.)doc";

// ---------------------------------------------------------------------------------------------
// The table, in ELTWISE_FOR_EACH_OP order.

constexpr OpInfo kOps[] = {
    {.op = Op::kSign,
     .name = "sign",
     .title = "Sign",
     .directml_operator = "DML_OPERATOR_ELEMENT_WISE_SIGN",
     .directml_since = L::k2_0,
     .directml_types = kSignDirectMLTypes,
     .identity_on_integers = false,
     .option = {.field = "nan",
                .names = kNanNames,
                .directml_values = 2,  // an eltwise option, at every level
                .help =
                    "Result for NaN: zero (+0, DirectML/PyTorch/WebNN) or propagate (NaN, NumPy)"},
     .onnx_versions = kSignOnnxVersions,
     .onnx_option = static_cast<int>(NanPolicy::kPropagate),  // the ONNX reference: np.sign
     .summary = "Sign of every element of a .npy array (DML ELEMENT_WISE_SIGN, ONNX Sign)",
     .python_doc = kSignPythonDoc,
     .ufunc_prefix = "sign_nan_"},
    {.op = Op::kRound,
     .name = "round",
     .title = "Round",
     .directml_operator = "DML_OPERATOR_ELEMENT_WISE_ROUND",
     .directml_since = L::k2_1,
     .directml_types = kRoundDirectMLTypes,
     .identity_on_integers = true,
     .option = {.field = "mode",
                .names = kModeNames,
                .directml_values = 3,  // DML_ROUNDING_MODE
                .help = "Rounding mode; toward_infinity rounds halves away from zero; down and up "
                        "(floor, ceil) need the extended level"},
     .onnx_versions = kRoundOnnxVersions,
     .onnx_option = static_cast<int>(RoundingMode::kHalvesToNearestEven),
     .summary = "Round every element of a .npy array (DML ELEMENT_WISE_ROUND, ONNX Round)",
     .python_doc = kRoundPythonDoc,
     .ufunc_prefix = "round_"},
};
static_assert(std::size(kOps) == kOpCount, "one registry entry per ELTWISE_FOR_EACH_OP entry");
#define ELTWISE_OP_CHECK_ENTRY(e, Desc)                                                    \
  static_assert(kOps[static_cast<size_t>(Op::e)].op == Op::e,                              \
                "registry entries must follow ELTWISE_FOR_EACH_OP's order");               \
  static_assert(HasOption(kOps[static_cast<size_t>(Op::e)]) == HasOptionField<Desc>,       \
                "an op has option names in the registry exactly when its description has " \
                "an OptionField overload (op_registry.h)");
ELTWISE_FOR_EACH_OP(ELTWISE_OP_CHECK_ENTRY)
#undef ELTWISE_OP_CHECK_ENTRY

// The option value of a description: 0 for an op without an option.
template <class Desc>
int OptionValue(const Desc& d) {
  if constexpr (HasOptionField<Desc>) {
    return static_cast<int>(OptionField(const_cast<Desc&>(d)));  // read only
  } else {
    return 0;
  }
}

// Each function's (op, option value), from ELTWISE_FOR_EACH_FUNCTION.
struct FunctionEntry {
  Function function;
  Op op;
  int option;
};
constexpr FunctionEntry kFunctions[] = {
#define ELTWISE_FUNCTION_ENTRY(e, F, op, option) {Function::e, op, static_cast<int>(option)},
    ELTWISE_FOR_EACH_FUNCTION(ELTWISE_FUNCTION_ENTRY)
#undef ELTWISE_FUNCTION_ENTRY
};
static_assert(std::size(kFunctions) == kFunctionCount);

}  // namespace

std::span<const OpInfo> AllOps() { return kOps; }

const OpInfo& Info(Op op) { return kOps[static_cast<size_t>(op)]; }

const OpInfo* FindOpByTitle(std::string_view title) {
  for (const OpInfo& info : kOps) {
    if (info.title == title) return &info;
  }
  return nullptr;
}

std::string OpTitles(std::string_view conjunction, OpsNamed which) {
  std::vector<std::string_view> titles;
  for (const OpInfo& info : kOps) {
    if (which == OpsNamed::kAll || !info.onnx_versions.empty()) titles.push_back(info.title);
  }
  std::string text;
  for (size_t i = 0; i < titles.size(); ++i) {
    if (i != 0) text.append(i + 1 == titles.size() ? " " + std::string(conjunction) + " " : ", ");
    text.append(titles[i]);
  }
  return text;
}

Op OpOf(const OperatorDesc& desc) { return static_cast<Op>(desc.index()); }

int OptionOf(const OperatorDesc& desc) {
  return std::visit([](const auto& d) { return OptionValue(d); }, desc);
}

OperatorDesc MakeDesc(Op op, int option, TensorDesc input, TensorDesc output) {
  static const std::array<OperatorDesc, kOpCount> kDefaults = {
#define ELTWISE_OP_DEFAULT(e, Desc) OperatorDesc(Desc{}),
      ELTWISE_FOR_EACH_OP(ELTWISE_OP_DEFAULT)
#undef ELTWISE_OP_DEFAULT
  };
  OperatorDesc desc = kDefaults[static_cast<size_t>(op)];
  std::visit(
      [&](auto& d) {
        if constexpr (HasOptionField<std::remove_reference_t<decltype(d)>>) {
          auto& field = OptionField(d);
          field = static_cast<std::remove_reference_t<decltype(field)>>(option);
        }
        d.input = std::move(input);
        d.output = std::move(output);
      },
      desc);
  return desc;
}

const TensorDesc& InputOf(const OperatorDesc& desc) {
  return std::visit([](const auto& d) -> const TensorDesc& { return d.input; }, desc);
}

const TensorDesc& OutputOf(const OperatorDesc& desc) {
  return std::visit([](const auto& d) -> const TensorDesc& { return d.output; }, desc);
}

OperatorDesc WithTensors(OperatorDesc prototype, TensorDesc input, TensorDesc output) {
  std::visit(
      [&](auto& d) {
        d.input = std::move(input);
        d.output = std::move(output);
      },
      prototype);
  return prototype;
}

Function FunctionFor(Op op, int option, DataType type) {
  if (Info(op).identity_on_integers && !IsFloatingPoint(type)) return Function::kCopy;
  // The first entry wins: kCopy, listed last, is only reached through the rule above.
  for (const FunctionEntry& e : kFunctions) {
    if (e.op == op && e.option == option) return e.function;
  }
  return Function::kCopy;  // unreachable for validated descriptions
}

Function FunctionOf(const OperatorDesc& desc) {
  return FunctionFor(OpOf(desc), OptionOf(desc), InputOf(desc).type);
}

Op OpOfFunction(Function f) { return kFunctions[static_cast<size_t>(f)].op; }
int OptionOfFunction(Function f) { return kFunctions[static_cast<size_t>(f)].option; }

}  // namespace eltwise
