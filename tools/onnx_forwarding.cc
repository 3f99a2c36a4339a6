// `eltwise onnx-test` and `eltwise run`, forwarded to `eltwise-onnx` (commands.h,
// RegisteredCommand::program): only those two commands load libonnx and libprotobuf.
#include "commands.h"
#include "onnx_commands.h"

namespace eltwise::cli {
namespace {

// What `eltwise --help` lists; eltwise-onnx parses the arguments.
void ListOnnxTestCommand(CLI::App& app) {
  app.add_subcommand("onnx-test", std::string(kOnnxTestSummary))->allow_extras();
}
void ListRunCommand(CLI::App& app) { app.add_subcommand("run", RunSummary())->allow_extras(); }

[[maybe_unused]] const bool onnx_test_forwarded =
    RegisterCommand("onnx-test", &ListOnnxTestCommand, kOnnxProgram);
[[maybe_unused]] const bool run_forwarded = RegisterCommand("run", &ListRunCommand, kOnnxProgram);

}  // namespace
}  // namespace eltwise::cli
