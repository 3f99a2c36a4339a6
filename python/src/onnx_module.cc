// eltwise._onnx: the C++ ONNX front end (src/onnx) for Python. A Model is parsed and validated
// once by onnx_frontend::Model and run many times; each run reuses the operators the model has
// compiled for that device and input shape. The rules (opsets, types, graph checks) and their
// messages are the C++ front end's: a rejected model or input raises ValueError (OSError for an
// unreadable file) with the front end's message. eltwise.onnx_backend is a thin layer over it.
// Built only when the ONNX front end is (ELTWISE_BUILD_ONNX with libonnx-dev); the wheel carries
// it with libonnx and libprotobuf bundled.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "eltwise/device.h"
#include "onnx/onnx_frontend.h"

namespace py = pybind11;

namespace eltwise::python_onnx {
namespace {

using onnx_frontend::HostTensor;
using onnx_frontend::Model;
using onnx_frontend::NamedTensor;

[[noreturn]] void Raise(const Status& status) {
  PyErr_SetString(status.code() == StatusCode::kIoError ? PyExc_OSError : PyExc_ValueError,
                  status.message().c_str());
  throw py::error_already_set();
}

template <class T>
T Value(Expected<T> e) {
  if (!e.ok()) Raise(e.status());
  return std::move(*e);
}

// One Device per name, kept for the life of the process: a model's compiled operators are cached
// per device, so every run on "cpu" must see the same Device.
const Device& DeviceNamed(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, Device> devices;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = devices.find(name); it != devices.end()) return it->second;
  Expected<Device> device = InvalidArgument("unknown device '" + name + "'; use 'cpu' or 'cuda:N'");
  if (name == "cpu") {
    device = Device::Cpu();
  } else if (name.rfind("cuda:", 0) == 0 && name.size() > 5 && name.size() < 9 &&
             name.find_first_not_of("0123456789", 5) == std::string::npos) {
    device = Device::Cuda(CudaOptions{.ordinal = std::stoi(name.substr(5))});
  }
  return devices.emplace(name, Value(std::move(device))).first->second;
}

py::object NumpyDtype(DataType type) {
  if (type == DataType::kBFloat16) return py::module_::import("ml_dtypes").attr("bfloat16");
  return py::str(std::string(Name(type)));
}

// The address of an array's first element, from NumPy's own array interface (py::array's accessors
// read NumPy's structs directly).
void* DataOf(const py::handle& array) {
  const py::tuple data = array.attr("__array_interface__")["data"];
  return reinterpret_cast<void*>(data[0].cast<uintptr_t>());
}

// A NumPy array (anything np.asarray takes) as a packed, native-order host tensor.
HostTensor ToHost(const std::string& name, const py::handle& object) {
  py::module_ np = py::module_::import("numpy");
  py::object array = np.attr("asarray")(object, py::arg("order") = "C");  // keeps rank 0
  py::object dtype = array.attr("dtype");
  if (!dtype.attr("isnative").cast<bool>()) {
    array = array.attr("astype")(dtype.attr("newbyteorder")("="));
  }
  const std::string dtype_name = py::str(array.attr("dtype").attr("name"));
  const std::optional<DataType> type = ParseDataType(dtype_name);
  if (!type || dtype_name != Name(*type)) {
    Raise(InvalidArgument("input '" + name + "' has dtype " + dtype_name +
                          ", which no ONNX Sign or Round model takes"));
  }
  HostTensor t;
  t.name = name;
  t.type = *type;
  for (const py::handle& d : py::tuple(array.attr("shape"))) t.shape.push_back(d.cast<uint64_t>());
  t.data.resize(array.attr("nbytes").cast<size_t>());  // NumPy 2 dtypes: not py::array::nbytes
  if (!t.data.empty()) std::memcpy(t.data.data(), DataOf(array), t.data.size());
  return t;
}

py::object ToNumpy(const HostTensor& t) {
  py::tuple shape(t.shape.size());
  for (size_t i = 0; i < t.shape.size(); ++i) shape[i] = t.shape[i];
  py::object array = py::module_::import("numpy").attr("empty")(shape, NumpyDtype(t.type));
  if (!t.data.empty()) std::memcpy(DataOf(array), t.data.data(), t.data.size());
  return array;
}

py::list Names(const std::vector<onnx_frontend::ValueInfo>& values) {
  py::list names;
  for (const auto& v : values) names.append(v.name);
  return names;
}

}  // namespace
}  // namespace eltwise::python_onnx

PYBIND11_MODULE(_onnx, m) {
  using namespace eltwise;
  using namespace eltwise::python_onnx;
  m.doc() = "The C++ ONNX front end of eltwise (models of Sign and Round nodes).";
  m.attr("MAX_OPSET") = onnx_frontend::kMaxKnownOpset;
  py::class_<Model>(m, "Model", "A parsed, validated ONNX model; run() it many times.")
      .def_static(
          "parse",
          [](py::bytes bytes, const std::string& source) {
            const std::string_view view = bytes;
            const std::span<const std::byte> span(reinterpret_cast<const std::byte*>(view.data()),
                                                  view.size());
            return Value(Model::Parse(span, source));
          },
          py::arg("bytes"), py::arg("source") = "model",
          "Parses and validates a serialized ModelProto (messages start with `source`).")
      .def_static(
          "load", [](const std::string& path) { return Value(Model::Load(path)); }, py::arg("path"),
          "Reads, parses and validates the model file at `path`.")
      .def_property_readonly(
          "input_names", [](const Model& model) { return Names(model.inputs()); },
          "The graph inputs without an initializer, in graph order (what run() needs).")
      .def_property_readonly(
          "output_names", [](const Model& model) { return Names(model.outputs()); },
          "The graph outputs, in graph order.")
      .def_property_readonly("opset", &Model::opset, "The ai.onnx opset the model imports.")
      .def_property_readonly(
          "compile_count", &Model::compile_count,
          "Operators compiled so far: one per node, device and input shape; later runs reuse them.")
      .def(
          "run",
          [](const Model& model, const py::dict& inputs, const std::string& device) {
            std::vector<NamedTensor> named;
            for (const auto& [key, value] : inputs) {
              const std::string name = py::str(key);
              named.push_back({name, ToHost(name, value)});
            }
            const Device& d = DeviceNamed(device);
            Expected<std::vector<NamedTensor>> outputs = [&] {
              py::gil_scoped_release release;
              return model.Run(d, named);
            }();
            py::list result;
            for (const NamedTensor& out : Value(std::move(outputs)))
              result.append(ToNumpy(out.tensor));
            return result;
          },
          py::arg("inputs"), py::arg("device") = "cpu",
          "Runs the model on inputs (a dict name -> array) on device ('cpu' or 'cuda:N'); returns "
          "the graph outputs in graph order as new arrays.");
}
