// `eltwise sign` and `eltwise round`: one operator on a .npy file. The result keeps the input's
// dtype, order (C or Fortran) and byte order; OUT is written atomically and only on success, so it
// may be IN.
#include <memory>

#include "commands.h"
#include "npy/npy.h"
#include "staging/staging.h"

namespace eltwise::cli {
namespace {

struct ElementwiseOptions {
  DeviceOptions device;
  std::string nan = std::string(Name(NanPolicy::kZero));
  std::string mode = std::string(Name(RoundingMode::kHalvesToNearestEven));
  std::string input;
  std::string output;
};

void AddFiles(CLI::App& command, ElementwiseOptions& options) {
  command.add_option("IN", options.input, "Input .npy file")->required();
  command.add_option("OUT", options.output, "Output .npy file (may be IN)")->required();
}

// Reads IN, runs `desc_for(tensor)` on the chosen device, writes OUT.
template <class MakeDesc>
void Run(const ElementwiseOptions& options, MakeDesc desc_for) {
  const Device device = MakeDevice(options.device);
  Expected<npy::Array> array = npy::Read(options.input);
  if (!array.ok()) Fail(array.status());
  const TensorDesc tensor = array->Desc();
  if (Status s = staging::RunInPlace(device, desc_for(tensor), array->data); !s.ok()) {
    Fail(s, options.input);
  }
  if (Status s = npy::Write(options.output, *array); !s.ok()) Fail(s);
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
    Run(*options, [nan](const TensorDesc& t) -> OperatorDesc { return SignDesc{t, t, nan}; });
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
    Run(*options, [mode](const TensorDesc& t) -> OperatorDesc { return RoundDesc{t, t, mode}; });
  });
}

}  // namespace

ELTWISE_CLI_COMMAND("round", AddRoundCommand);
ELTWISE_CLI_COMMAND("sign", AddSignCommand);

}  // namespace eltwise::cli
