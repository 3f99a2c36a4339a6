// `eltwise sign` and `eltwise round`: one operator on a .npy file of any size, streamed in bounded
// memory (npy_stream.h). The result keeps the input's dtype, order (C or Fortran), byte order and
// format version; OUT is written atomically and only on success, so it may be IN.
#include <memory>

#include "commands.h"
#include "npy_stream.h"

namespace eltwise::cli {
namespace {

struct ElementwiseOptions {
  DeviceOptions device;
  std::string nan = std::string(Name(NanPolicy::kZero));
  std::string mode = std::string(Name(RoundingMode::kHalvesToNearestEven));
  std::string input;
  std::string output;
  bool quiet = false;
};

void AddFiles(CLI::App& command, ElementwiseOptions& options) {
  command.add_option("IN", options.input, "Input .npy file")->required();
  command.add_option("OUT", options.output, "Output .npy file (may be IN)")->required();
  command.add_flag("--quiet,-q", options.quiet,
                   "No progress bar (shown on stderr when it is a terminal and the run takes more "
                   "than a second)");
}

// Streams IN through `desc_for` on the chosen device into OUT.
void Run(const ElementwiseOptions& options, const char* label, const MakeOperatorDesc& desc_for) {
  TransformNpyFile(options.device, desc_for,
                   StreamOptions{.input = options.input,
                                 .output = options.output,
                                 .quiet = options.quiet,
                                 .label = label});
}

void AddSignCommand(CLI::App& app) {
  CLI::App* sign = app.add_subcommand(
      "sign", "Sign of every element of a .npy array (DML ELEMENT_WISE_SIGN, ONNX Sign)");
  auto options = std::make_shared<ElementwiseOptions>();
  sign->add_option("--nan", options->nan,
                   "Result for NaN: zero (+0, DirectML/PyTorch/WebNN) or propagate (NaN, NumPy)")
      ->check(CLI::IsMember(
          {std::string(Name(NanPolicy::kZero)), std::string(Name(NanPolicy::kPropagate))}))
      ->capture_default_str();
  AddDeviceOptions(*sign, options->device);
  AddFiles(*sign, *options);
  sign->callback([options] {
    const NanPolicy nan = *ParseNanPolicy(options->nan);
    Run(*options, "sign", [nan](const TensorDesc& t) -> OperatorDesc {
      return SignDesc{t, t, nan};
    });
  });
}

void AddRoundCommand(CLI::App& app) {
  CLI::App* round = app.add_subcommand(
      "round", "Round every element of a .npy array (DML ELEMENT_WISE_ROUND, ONNX Round)");
  auto options = std::make_shared<ElementwiseOptions>();
  std::vector<std::string> modes;
  for (int m = 0; m < kRoundingModeCount; ++m) {
    modes.emplace_back(Name(static_cast<RoundingMode>(m)));
  }
  round
      ->add_option("--mode", options->mode,
                   "Rounding mode; toward_infinity rounds halves away from zero; down and up "
                   "(floor, ceil) need the extended level")
      ->check(CLI::IsMember(modes))
      ->capture_default_str();
  AddDeviceOptions(*round, options->device);
  AddFiles(*round, *options);
  round->callback([options] {
    const RoundingMode mode = *ParseRoundingMode(options->mode);
    Run(*options, "round", [mode](const TensorDesc& t) -> OperatorDesc {
      return RoundDesc{t, t, mode};
    });
  });
}

}  // namespace

ELTWISE_CLI_COMMAND("round", AddRoundCommand);
ELTWISE_CLI_COMMAND("sign", AddSignCommand);

}  // namespace eltwise::cli
