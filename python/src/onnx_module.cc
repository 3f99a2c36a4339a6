// eltwise._onnx: the C++ ONNX front end (src/onnx) for Python. A Model is parsed and validated
// once by onnx_frontend::Model and run many times; each run reuses the operators the model has
// compiled for that device and input shape. The rules (opsets, types, graph checks) and their
// messages are the C++ front end's: a rejected model or input raises ValueError (OSError for an
// unreadable file) with the front end's message. eltwise.onnx_backend is a thin layer over it.
// Built only when the ONNX front end is (ELTWISE_BUILD_ONNX with libonnx-dev); the wheel carries
// it with libonnx and libprotobuf bundled.
//
// A run copies no more than it must (Model::RunInto): a C-contiguous, aligned, native-order NumPy
// array of an eltwise type is read in place (any other input is converted to one once), and each
// graph output is a new NumPy array the run writes directly.
#define NPY_NO_DEPRECATED_API NPY_1_22_API_VERSION
#define NPY_TARGET_VERSION NPY_1_22_API_VERSION  // runs with NumPy >= 1.22 (pyproject.toml)
#define PY_ARRAY_UNIQUE_SYMBOL eltwise_onnx_ARRAY_API
#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>    // _runtime_identity
#include <nanobind/stl/string.h>  // names and paths
// nanobind first: it includes Python.h, which NumPy's header needs.
#include <numpy/arrayobject.h>

#include <array>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "binding_rules.h"
#include "core/op_registry.h"
#include "eltwise/device.h"
#include "onnx/onnx_frontend.h"
#include "runtime_identity.h"

namespace nb = nanobind;

namespace eltwise::python_onnx {
namespace {

using onnx_frontend::HostTensor;
using onnx_frontend::Model;
using onnx_frontend::NamedTensor;
using python::BuiltinDataType;
using python::BuiltinTypeNum;
using python::kReleaseGilBytes;

[[noreturn]] void Raise(const Status& status) {
  PyErr_SetString(status.code() == StatusCode::kIoError ? PyExc_OSError : PyExc_ValueError,
                  status.message().c_str());
  throw nb::python_error();
}

template <class T>
T Value(Expected<T> e) {
  if (!e.ok()) Raise(e.status());
  return std::move(*e);
}

// One Device per name, kept for the life of the process: a model's compiled operators are cached
// per device, so every run on "cpu" must see the same Device.
const Device& DeviceNamed(const std::string& name) {
  if (name == "cpu") {  // the common case, without the lock
    static const Device cpu = Value(Device::Cpu());
    return cpu;
  }
  static std::mutex mutex;
  static std::map<std::string, Device> devices;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = devices.find(name); it != devices.end()) return it->second;
  const std::optional<python::Place> place = python::ParsePlace(name);
  if (!place || place->kind != DeviceKind::kCuda) {
    Raise(InvalidArgument("unknown device '" + name + "'; use 'cpu' or 'cuda:N'"));
  }
  Expected<Device> device = Device::Cuda(CudaOptions{.ordinal = place->ordinal});
  return devices.emplace(name, Value(std::move(device))).first->second;  // GCOVR_EXCL_LINE: a GPU
}

// The address of an array's first element, from NumPy's own array interface.
void* DataOf(nb::handle array) {
  const nb::tuple data(array.attr("__array_interface__")["data"]);
  return reinterpret_cast<void*>(nb::cast<uintptr_t>(data[0]));
}

// A NumPy array (anything np.asarray takes) as a packed, native-order host tensor.
HostTensor ToHost(const std::string& name, nb::handle object) {
  nb::module_ np = nb::module_::import_("numpy");
  nb::object array = np.attr("asarray")(object, nb::arg("order") = "C");  // keeps rank 0
  nb::object dtype = array.attr("dtype");
  if (!nb::cast<bool>(dtype.attr("isnative"))) {
    array = array.attr("astype")(dtype.attr("newbyteorder")("="));
  }
  const auto dtype_name = nb::cast<std::string>(nb::str(array.attr("dtype").attr("name")));
  const std::optional<DataType> type = ParseDataType(dtype_name);
  if (!type || dtype_name != Name(*type)) {
    Raise(InvalidArgument("input '" + name + "' has dtype " + dtype_name + ", which no ONNX " +
                          OpTitles("or", OpsNamed::kWithOnnxVersions) + " model takes"));
  }
  HostTensor t;
  t.name = name;
  t.type = *type;
  for (nb::handle d : nb::tuple(array.attr("shape"))) t.shape.push_back(nb::cast<uint64_t>(d));
  t.data.resize(nb::cast<size_t>(array.attr("nbytes")));
  if (!t.data.empty()) std::memcpy(t.data.data(), DataOf(array), t.data.size());
  return t;
}

// The graph inputs of one run as the front end reads them, and what keeps their memory alive.
class RunInputs {
 public:
  explicit RunInputs(size_t count) {
    entries_.reserve(count);  // never reallocated: views point into entries
    views_.reserve(count);
  }

  // `object` is read in place when it is an array the front end can bind as it is; anything else
  // is converted once (ToHost: its rules and messages).
  void Add(nb::handle key, nb::handle object) {
    Entry& e = entries_.emplace_back();
    e.key = PyUnicode_Check(key.ptr()) ? nb::borrow(key) : nb::object(nb::str(key));
    e.object = nb::borrow(object);
    Py_ssize_t length = 0;
    const char* name = PyUnicode_AsUTF8AndSize(e.key.ptr(), &length);
    if (name == nullptr) throw nb::python_error();
    onnx_frontend::InputView& view = views_.emplace_back();
    view.name = std::string_view(name, static_cast<size_t>(length));
    if (Borrow(object, &e, &view)) return;
    const HostTensor& t = e.converted.emplace(ToHost(std::string(view.name), object));
    view.type = t.type;
    view.shape = t.shape;
    view.data = t.data.data();
    view.size_in_bytes = t.data.size();
  }
  std::span<const onnx_frontend::InputView> views() const { return views_; }
  uint64_t bytes() const {
    uint64_t total = 0;
    for (const onnx_frontend::InputView& v : views_) total += v.size_in_bytes;
    return total;
  }

 private:
  struct Entry {
    nb::object key;     // a str: the view's name points into its UTF-8
    nb::object object;  // the caller's object, alive while the GIL is released
    std::array<uint64_t, kMaxRank> shape{};
    std::optional<HostTensor> converted;
  };

  // Whether `object` is an array that can be read in place (then described in `view`).
  static bool Borrow(nb::handle object, Entry* e, onnx_frontend::InputView* view) {
    if (!PyArray_Check(object.ptr())) return false;
    auto* array = reinterpret_cast<PyArrayObject*>(object.ptr());
    const std::optional<DataType> type = BuiltinDataType(PyArray_TYPE(array));
    const int rank = PyArray_NDIM(array);
    if (!type || !PyArray_ISCARRAY_RO(array) || !PyArray_ISNOTSWAPPED(array) || rank > kMaxRank) {
      return false;
    }
    for (int i = 0; i < rank; ++i) e->shape[i] = static_cast<uint64_t>(PyArray_DIM(array, i));
    view->type = *type;
    view->shape = std::span<const uint64_t>(e->shape.data(), static_cast<size_t>(rank));
    view->data = PyArray_DATA(array);
    view->size_in_bytes = static_cast<uint64_t>(PyArray_NBYTES(array));
    return true;
  }

  std::vector<Entry> entries_;
  std::vector<onnx_frontend::InputView> views_;
};

// A new, uninitialised array for a graph output.
nb::object NewArray(DataType type, std::span<const uint64_t> shape) {
  std::array<npy_intp, NPY_MAXDIMS> dims{};
  if (shape.size() > dims.size()) {
    throw nb::value_error("an output has more dimensions than NumPy allows");
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] > static_cast<uint64_t>(NPY_MAX_INTP)) {
      throw nb::value_error(
          ("an output dimension of " + std::to_string(shape[i]) + " is larger than NumPy allows")
              .c_str());
    }
    dims[i] = static_cast<npy_intp>(shape[i]);
  }
  const int type_num = BuiltinTypeNum(type);
  if (type_num < 0) {  // bfloat16: NumPy has it through ml_dtypes
    nb::list sizes;
    for (size_t i = 0; i < shape.size(); ++i) sizes.append(dims[i]);
    return nb::module_::import_("numpy").attr("empty")(
        nb::tuple(sizes), nb::module_::import_("ml_dtypes").attr("bfloat16"));
  }
  PyObject* array = PyArray_SimpleNew(static_cast<int>(shape.size()), dims.data(), type_num);
  if (array == nullptr) throw nb::python_error();
  return nb::steal(array);
}

nb::list Names(const std::vector<onnx_frontend::ValueInfo>& values) {
  nb::list names;
  for (const auto& v : values) names.append(v.name);
  return names;
}

}  // namespace
}  // namespace eltwise::python_onnx

NB_MODULE(_onnx, m) {
  using namespace eltwise;
  using namespace eltwise::python_onnx;
  if (_import_array() < 0) throw nb::python_error();
  static const std::string doc = "The C++ ONNX front end of eltwise (models of " +
                                 OpTitles("and", OpsNamed::kWithOnnxVersions) + " nodes).";
  m.doc() = doc.c_str();
  m.attr("MAX_OPSET") = onnx_frontend::kMaxKnownOpset;
  m.def("_runtime_identity", &python::RuntimeIdentity,
        "(operator cache address, host backend address) of the library this module runs on.");
  nb::class_<Model>(m, "Model", "A parsed, validated ONNX model; run() it many times.")
      .def_static(
          "parse",
          [](nb::bytes bytes, const std::string& source) {
            const std::string_view view(bytes.c_str(), bytes.size());
            const std::span<const std::byte> span(reinterpret_cast<const std::byte*>(view.data()),
                                                  view.size());
            return Value(Model::Parse(span, source));
          },
          nb::arg("bytes"), nb::arg("source") = "model",
          "Parses and validates a serialized ModelProto (messages start with `source`).")
      .def_static(
          "load", [](const std::string& path) { return Value(Model::Load(path)); }, nb::arg("path"),
          "Reads, parses and validates the model file at `path`.")
      .def_prop_ro(
          "input_names", [](const Model& model) { return Names(model.inputs()); },
          "The graph inputs without an initializer, in graph order (what run() needs).")
      .def_prop_ro(
          "output_names", [](const Model& model) { return Names(model.outputs()); },
          "The graph outputs, in graph order.")
      .def_prop_ro("opset", &Model::opset, "The ai.onnx opset the model imports.")
      .def_prop_ro(
          "compile_count", &Model::compile_count,
          "Operators compiled so far: one per node, device and input shape; later runs reuse them.")
      .def(
          "run",
          [](const Model& model, const nb::dict& inputs, const std::string& device) {
            RunInputs run_inputs(inputs.size());
            for (const auto& [key, value] : inputs) run_inputs.Add(key, value);
            const Device& d = DeviceNamed(device);
            nb::list outputs;  // each set by `allocate` below, which the run calls once per output
            for (size_t k = 0; k < model.outputs().size(); ++k) outputs.append(nb::none());
            // The GIL is released for the run when the inputs are large enough for other threads
            // to gain from it (as NumPy's loops do); for small ones releasing and taking it back
            // would cost more than the run.
            const bool release_gil = 2 * run_inputs.bytes() >= kReleaseGilBytes;  // read + written
            auto allocate = [&](size_t k, DataType type, std::span<const uint64_t> shape) {
              std::optional<nb::gil_scoped_acquire> gil;
              if (release_gil) gil.emplace();
              nb::object array;
              try {
                array = NewArray(type, shape);
              } catch (nb::python_error& e) {
                e.restore();  // raised below, once the run has returned
                return static_cast<void*>(nullptr);
              }
              void* data = PyArray_DATA(reinterpret_cast<PyArrayObject*>(array.ptr()));
              outputs[k] = std::move(array);
              return data;
            };
            const Status status = [&] {
              std::optional<nb::gil_scoped_release> release;
              if (release_gil) release.emplace();
              return model.RunInto(d, run_inputs.views(), allocate);
            }();
            if (PyErr_Occurred()) throw nb::python_error();
            if (!status.ok()) Raise(status);
            return outputs;
          },
          nb::arg("inputs"), nb::arg("device") = "cpu",
          "Runs the model on inputs (a dict name -> array) on device ('cpu' or 'cuda:N'); returns "
          "the graph outputs in graph order as new arrays.");
}
