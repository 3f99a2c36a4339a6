// `eltwise onnx-test` and `eltwise run`, forwarded to `eltwise-onnx` (commands.h, ExternalCommand):
// only those two commands load libonnx and libprotobuf.
#include "commands.h"
#include "onnx_commands.h"

namespace eltwise::cli {
namespace {

[[maybe_unused]] const bool onnx_test_forwarded =
    RegisterExternalCommand({"onnx-test", kOnnxProgram, kOnnxTestSummary});
[[maybe_unused]] const bool run_forwarded =
    RegisterExternalCommand({"run", kOnnxProgram, kRunSummary});

}  // namespace
}  // namespace eltwise::cli
