// ONNX node-test directories (model.onnx and test_data_set_*/input_N.pb, output_N.pb): found,
// run on a device and compared with their expected outputs.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "onnx/onnx_frontend.h"

namespace eltwise::onnx_frontend {

namespace {

namespace fs = std::filesystem;

// The number N in "test_data_set_N" (or a large value for other names, which sort after).
uint64_t DataSetNumber(const std::string& name) {
  const std::string prefix = "test_data_set_";
  uint64_t n = 0;
  if (name.size() <= prefix.size() || name.size() > prefix.size() + 9) return UINT64_MAX;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return UINT64_MAX;
    n = n * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  return n;
}

// Reads input_0.pb, input_1.pb, ... (or output_N.pb) until one is missing.
Expected<std::vector<HostTensor>> ReadNumbered(const fs::path& dir, const std::string& stem) {
  std::vector<HostTensor> tensors;
  for (int i = 0;; ++i) {
    const fs::path path = dir / (stem + "_" + std::to_string(i) + ".pb");
    std::error_code ec;
    if (!fs::exists(path, ec)) break;
    Expected<HostTensor> t = ReadTensorFile(path.string());
    if (!t.ok()) return t.status();
    tensors.push_back(std::move(*t));
  }
  return tensors;
}

std::string Count(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

}  // namespace

std::vector<std::string> FindNodeTestDirectories(const std::string& path) {
  std::error_code ec;
  const fs::path root(path);
  if (fs::exists(root / "model.onnx", ec)) return {path};
  std::vector<std::string> dirs;
  if (fs::is_directory(root, ec)) {
    for (const fs::directory_entry& e : fs::directory_iterator(root, ec)) {
      if (e.is_directory(ec) && fs::exists(e.path() / "model.onnx", ec)) {
        dirs.push_back(e.path().string());
      }
    }
  }
  if (dirs.empty()) return {path};
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

std::vector<CaseResult> RunNodeTestDirectory(const Device& device, const std::string& dir) {
  const fs::path root(dir);
  std::string dir_name = root.filename().string();
  if (dir_name.empty()) dir_name = root.parent_path().filename().string();  // "dir/"
  std::vector<CaseResult> results;
  auto fail_all = [&](const std::string& message) {
    results.push_back({dir_name, false, message});
    return results;
  };
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return fail_all(dir + " is not a directory");
  Expected<Model> model = Model::Load((root / "model.onnx").string());
  if (!model.ok()) return fail_all(model.status().message());

  std::vector<fs::path> sets;
  for (const fs::directory_entry& e : fs::directory_iterator(root, ec)) {
    if (e.is_directory(ec) && e.path().filename().string().rfind("test_data_set_", 0) == 0) {
      sets.push_back(e.path());
    }
  }
  if (ec) return fail_all(dir + ": cannot list: " + ec.message());
  if (sets.empty()) return fail_all(dir + " has no test_data_set_* directories");
  std::sort(sets.begin(), sets.end(), [](const fs::path& a, const fs::path& b) {
    const std::string an = a.filename().string(), bn = b.filename().string();
    const uint64_t x = DataSetNumber(an), y = DataSetNumber(bn);
    return x != y ? x < y : an < bn;
  });

  for (const fs::path& set : sets) {
    CaseResult r;
    r.name = dir_name + "/" + set.filename().string();
    auto finish = [&](std::string message) {
      r.passed = message.empty();
      r.message = std::move(message);
      results.push_back(r);
    };
    Expected<std::vector<HostTensor>> inputs = ReadNumbered(set, "input");
    if (!inputs.ok()) {
      finish(inputs.status().message());
      continue;
    }
    Expected<std::vector<HostTensor>> expected = ReadNumbered(set, "output");
    if (!expected.ok()) {
      finish(expected.status().message());
      continue;
    }
    if (inputs->size() != model->inputs().size()) {
      finish(Count(inputs->size(), "input_N.pb file") + "; the model has " +
             Count(model->inputs().size(), "input"));
      continue;
    }
    if (expected->size() != model->outputs().size()) {
      finish(Count(expected->size(), "output_N.pb file") + "; the model has " +
             Count(model->outputs().size(), "output"));
      continue;
    }
    std::vector<NamedTensor> named;
    for (size_t i = 0; i < inputs->size(); ++i) {
      named.push_back({model->inputs()[i].name, std::move((*inputs)[i])});
    }
    Expected<std::vector<NamedTensor>> outputs = model->Run(device, named);
    if (!outputs.ok()) {
      finish(outputs.status().message());
      continue;
    }
    std::string message;
    for (size_t i = 0; i < outputs->size() && message.empty(); ++i) {
      if (std::optional<std::string> diff = CompareTensors((*expected)[i], (*outputs)[i].tensor)) {
        message = "output " + std::to_string(i) + " '" + (*outputs)[i].name + "': " + *diff;
      }
    }
    finish(message);
  }
  return results;
}

}  // namespace eltwise::onnx_frontend
