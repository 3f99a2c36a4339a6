// `eltwise sign`, `eltwise round` (one subcommand per op of the registry): one operator on a .npy
// file of any size, streamed in bounded memory (npy_stream.h). The result keeps the input's dtype,
// order (C or Fortran), byte order and format version; OUT is written atomically and only on
// success, so it may be IN.
#include <algorithm>
#include <memory>

#include "commands.h"
#include "core/op_registry.h"
#include "npy_stream.h"

namespace eltwise::cli {
namespace {

struct ElementwiseOptions {
  DeviceOptions device;
  std::string option;  // the name of the op's option value (--nan, --mode)
  std::string input;
  std::string output;
  bool quiet = false;
};

// Streams IN through `op` with the chosen option on the chosen device into OUT.
void Run(const ElementwiseOptions& options, const OpInfo& op) {
  const auto& names = op.option.names;
  // Checked by CLI::IsMember; 0 for an op without an option (no names, no flag).
  const int option =
      HasOption(op)
          ? static_cast<int>(std::find(names.begin(), names.end(), options.option) - names.begin())
          : 0;
  const Op which = op.op;
  TransformNpyFile(
      options.device,
      [which, option](const TensorDesc& t) { return MakeDesc(which, option, t, t); },
      StreamOptions{.input = options.input,
                    .output = options.output,
                    .quiet = options.quiet,
                    .label = std::string(op.name)});
}

// One subcommand per op of the registry: `eltwise <op> [--<option> VALUE] IN OUT`; the flag only
// for an op with an option.
void AddOpCommand(CLI::App& app, const OpInfo& op) {
  CLI::App* command = app.add_subcommand(std::string(op.name), std::string(op.summary));
  auto options = std::make_shared<ElementwiseOptions>();
  if (HasOption(op)) {
    options->option = std::string(op.option.names.front());
    const std::vector<std::string> values(op.option.names.begin(), op.option.names.end());
    command
        ->add_option("--" + std::string(op.option.field), options->option,
                     std::string(op.option.help))
        ->check(CLI::IsMember(values))
        ->capture_default_str();
  }
  AddDeviceOptions(*command, options->device);
  command->add_option("IN", options->input, "Input .npy file")->required();
  command->add_option("OUT", options->output, "Output .npy file (may be IN)")->required();
  command->add_flag("--quiet,-q", options->quiet,
                    "No progress bar (shown on stderr when it is a terminal and the run takes "
                    "more than a second)");
  command->callback([options, &op] { Run(*options, op); });
}

template <Op kOp>
void AddCommandFor(CLI::App& app) {
  AddOpCommand(app, Info(kOp));
}

}  // namespace

#define ELTWISE_REGISTER_OP_COMMAND(e, Desc)                         \
  [[maybe_unused]] static const bool eltwise_cli_registered_op_##e = \
      RegisterCommand(Info(Op::e).name, &AddCommandFor<Op::e>);
ELTWISE_FOR_EACH_OP(ELTWISE_REGISTER_OP_COMMAND)
#undef ELTWISE_REGISTER_OP_COMMAND

}  // namespace eltwise::cli
