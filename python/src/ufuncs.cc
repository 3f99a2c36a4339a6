#include "ufuncs.h"

#include <stdexcept>
#include <string>
#include <string_view>

#include "binding_rules.h"
#include "core/function.h"
#include "core/op_registry.h"
#include "runner.h"
#include "staging/host_run.h"

namespace eltwise::python {
namespace {

int g_bfloat16_type_num = -1;
std::vector<Ufunc>* g_ufuncs = nullptr;

// What one inner loop runs; NumPy hands it back as the loop's `data`.
struct LoopData {
  Function function;
  DataType type;
};

// NumPy's inner loop: dims[0] elements, byte steps (any sign; 0 for a broadcast input). NumPy
// releases the GIL around it and copies operands that overlap other than exactly.
void Loop(char** args, const npy_intp* dims, const npy_intp* steps, void* data) {
  const auto& loop = *static_cast<const LoopData*>(data);
  if (dims[0] <= 0) return;
  staging::RunHost(loop.function, loop.type, reinterpret_cast<const std::byte*>(args[0]), steps[0],
                   reinterpret_cast<std::byte*>(args[1]), steps[1], static_cast<uint64_t>(dims[0]),
                   DefaultThreads());
}

// The name of `info`'s ufunc for option value `option`: the registry's prefix + the value's name,
// or, for an op without an option, the prefix without its trailing underscore.
std::string UfuncName(const OpInfo& info, int option) {
  std::string_view prefix = info.ufunc_prefix;
  if (HasOption(info)) {
    return std::string(prefix) + std::string(info.option.names[static_cast<size_t>(option)]);
  }
  if (!prefix.empty() && prefix.back() == '_') prefix.remove_suffix(1);
  return std::string(prefix);
}

Function FunctionOf(const Ufunc& u, DataType type) { return FunctionFor(u.op, u.option, type); }

std::string DocOf(const Ufunc& u) {
  const OpInfo& info = Info(u.op);
  std::string what = "eltwise." + std::string(info.name) + "(x";
  if (HasOption(info)) {
    what += ", " + std::string(info.option.field) + "='" +
            std::string(info.option.names[static_cast<size_t>(u.option)]) + "'";
  }
  what += ")";
  return "The NumPy ufunc of " + what +
         ": the same results, with NumPy's broadcasting, out=, where=, dtype=/casting, .at and "
         "__array_ufunc__ dispatch (Dask, xarray, pandas). Loops: float16, float32, float64, "
         "bfloat16 (ml_dtypes), int8/16/32/64 and uint8/16/32/64.";
}

PyObject* MakeUfunc(const Ufunc& u) {
  constexpr size_t n = kBuiltinTypes.size();
  // NumPy keeps pointers to these for the ufunc's lifetime (the module's): leaked on purpose.
  auto* functions = new PyUFuncGenericFunction[n];
  auto* data = new void*[n];
  auto* types = new char[2 * n];
  for (size_t i = 0; i < n; ++i) {
    functions[i] = &Loop;
    data[i] = new LoopData{FunctionOf(u, kBuiltinTypes[i].type), kBuiltinTypes[i].type};
    types[2 * i] = types[2 * i + 1] = static_cast<char>(kBuiltinTypes[i].type_num);
  }
  auto* name = new std::string(u.name);
  auto* doc = new std::string(DocOf(u));
  PyObject* ufunc = PyUFunc_FromFuncAndData(functions, data, types, static_cast<int>(n), 1, 1,
                                            PyUFunc_None, name->c_str(), doc->c_str(), 0);
  if (ufunc == nullptr) return nullptr;
  if (g_bfloat16_type_num >= 0) {
    int bf16_types[2] = {g_bfloat16_type_num, g_bfloat16_type_num};
    auto* bf16 = new LoopData{FunctionOf(u, DataType::kBFloat16), DataType::kBFloat16};
    if (PyUFunc_RegisterLoopForType(reinterpret_cast<PyUFuncObject*>(ufunc), g_bfloat16_type_num,
                                    &Loop, bf16_types, bf16) < 0) {
      Py_DECREF(ufunc);
      return nullptr;
    }
  }
  return ufunc;
}

}  // namespace

std::optional<DataType> TypeOfDescr(const PyArray_Descr* descr) {
  const int num = descr->type_num;
  if (std::optional<DataType> type = BuiltinDataType(num)) return type;
  if (num == g_bfloat16_type_num && num >= 0) return DataType::kBFloat16;
  return std::nullopt;
}

const std::vector<Ufunc>& CreateUfuncs(int bfloat16_type_num) {
  if (g_ufuncs != nullptr) return *g_ufuncs;
  g_bfloat16_type_num = bfloat16_type_num;
  // One ufunc per (op, option value) of the op registry.
  auto* ufuncs = new std::vector<Ufunc>();
  for (const OpInfo& info : AllOps()) {
    for (int option = 0; option < OptionValueCount(info); ++option) {
      ufuncs->push_back({UfuncName(info, option), info.op, option, nullptr});
    }
  }
  for (Ufunc& u : *ufuncs) {
    u.object = MakeUfunc(u);
    if (u.object == nullptr) throw std::runtime_error("creating the ufunc " + u.name + " failed");
  }
  g_ufuncs = ufuncs;
  return *g_ufuncs;
}

PyObject* UfuncFor(Op op, int option) {
  for (const Ufunc& u : *g_ufuncs) {
    if (u.op == op && u.option == option) return u.object;
  }
  return nullptr;
}

}  // namespace eltwise::python
