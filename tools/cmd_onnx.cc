// `eltwise onnx-test DIR...` runs ONNX node-test directories; `eltwise run MODEL.onnx` runs a model
// of Sign and Round nodes on TensorProto (.pb) or .npy tensors. Both go through the ONNX front end
// (src/onnx), which maps ONNX Sign to NanPolicy::kPropagate and ONNX Round to halves-to-even.
#include <iostream>
#include <memory>

#include "commands.h"
#include "onnx/onnx_frontend.h"
#include "onnx_commands.h"

namespace eltwise::cli {
namespace {

namespace ox = ::eltwise::onnx_frontend;

struct OnnxTestOptions {
  DeviceOptions device;
  std::vector<std::string> dirs;
};

void AddOnnxTestCommand(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("onnx-test", std::string(kOnnxTestSummary));
  auto options = std::make_shared<OnnxTestOptions>();
  AddDeviceOptions(*sub, options->device, /*with_feature_level=*/false);
  sub->add_option("DIR", options->dirs,
                  "Node-test directories, or folders of them (e.g. onnx/backend/test/data/node)")
      ->required();
  sub->callback([options] {
    const Device device = MakeDevice(options->device);
    uint64_t passed = 0, failed = 0;
    std::vector<std::string> dirs;
    for (const std::string& dir : options->dirs) {
      for (std::string& d : ox::FindNodeTestDirectories(dir)) dirs.push_back(std::move(d));
    }
    for (const std::string& dir : dirs) {
      for (const ox::CaseResult& r : ox::RunNodeTestDirectory(device, dir)) {
        if (r.passed) {
          ++passed;
          std::cout << "PASS " << r.name << "\n";
        } else {
          ++failed;
          std::cout << "FAIL " << r.name << ": " << r.message << "\n";
        }
      }
    }
    std::cout << passed << " passed, " << failed << " failed" << std::endl;
    if (failed != 0) {
      throw CommandError(kExitFailure, std::to_string(failed) + " of " +
                                           std::to_string(passed + failed) +
                                           " ONNX test cases failed");
    }
  });
}

struct RunOptions {
  DeviceOptions device;
  std::string model;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
};

// Splits "NAME=FILE". Without '=', `text` is a file for the model's only input/output.
std::pair<std::string, std::string> SplitBinding(const std::string& text,
                                                 const std::vector<ox::ValueInfo>& values,
                                                 const char* option) {
  const size_t eq = text.find('=');
  if (eq != std::string::npos) return {text.substr(0, eq), text.substr(eq + 1)};
  if (values.size() == 1) return {values[0].name, text};
  Fail(InvalidArgument(std::string(option) + " '" + text +
                       "' needs the form NAME=FILE (the model "
                       "has " +
                       std::to_string(values.size()) + " " +
                       (std::string(option) == "--input" ? "inputs" : "outputs") + ")"));
}

std::string Describe(const ox::HostTensor& t) {
  return ox::OnnxDataTypeName(ox::OnnxDataType(t.type)) + " " + ox::ShapeString(t.shape);
}

void AddRunCommand(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("run", RunSummary());
  auto options = std::make_shared<RunOptions>();
  sub->add_option("MODEL", options->model, "The .onnx model")->required();
  sub->add_option("--input,-i", options->inputs,
                  "NAME=FILE: the value of graph input NAME (.npy, else TensorProto); FILE alone "
                  "for a model with one input");
  sub->add_option("--output,-o", options->outputs,
                  "NAME=FILE: where to write graph output NAME (.npy, else TensorProto); FILE "
                  "alone for a model with one output");
  AddDeviceOptions(*sub, options->device, /*with_feature_level=*/false);
  sub->callback([options] {
    Expected<ox::Model> model = ox::Model::Load(options->model);
    if (!model.ok()) Fail(model.status());
    const Device device = MakeDevice(options->device);

    std::vector<ox::NamedTensor> inputs;
    for (const std::string& text : options->inputs) {
      auto [name, file] = SplitBinding(text, model->inputs(), "--input");
      Expected<ox::HostTensor> t = ox::ReadTensorFile(file);
      if (!t.ok()) Fail(t.status(), "--input " + name);
      inputs.push_back({name, std::move(*t)});
    }
    std::vector<std::pair<std::string, std::string>> writes;
    for (const std::string& text : options->outputs) {
      auto [name, file] = SplitBinding(text, model->outputs(), "--output");
      bool known = false;
      for (const ox::ValueInfo& o : model->outputs()) known = known || o.name == name;
      if (!known) {
        std::string names;
        for (const ox::ValueInfo& o : model->outputs())
          names += (names.empty() ? "" : ", ") + o.name;
        Fail(InvalidArgument("--output " + name + ": the model has no output '" + name +
                             "' (its outputs: " + names + ")"));
      }
      writes.emplace_back(name, file);
    }

    Expected<std::vector<ox::NamedTensor>> outputs = model->Run(device, inputs);
    if (!outputs.ok()) Fail(outputs.status(), options->model);
    for (const ox::NamedTensor& out : *outputs) {
      bool written = false;
      for (const auto& [name, file] : writes) {
        if (name != out.name) continue;
        if (Status s = ox::WriteTensorFile(file, out.tensor); !s.ok()) Fail(s, "--output " + name);
        std::cout << out.name << ": " << Describe(out.tensor) << " -> " << file << "\n";
        written = true;
      }
      if (!written) {
        std::cout << out.name << ": " << Describe(out.tensor) << " (not written; add --output "
                  << out.name << "=FILE)\n";
      }
    }
  });
}

}  // namespace

ELTWISE_CLI_COMMAND("onnx-test", AddOnnxTestCommand);
ELTWISE_CLI_COMMAND("run", AddRunCommand);

}  // namespace eltwise::cli
