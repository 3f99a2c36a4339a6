// `eltwise sign`, `eltwise round` (one subcommand per op of the registry): one operator on a .npy
// file. The result keeps the input's
// dtype, order (C or Fortran) and byte order; OUT is written atomically and only on success, so it
// may be IN.
#include <algorithm>
#include <memory>

#include "commands.h"
#include "core/op_registry.h"
#include "npy/npy.h"
#include "staging/staging.h"

namespace eltwise::cli {
namespace {

struct ElementwiseOptions {
  DeviceOptions device;
  std::string option;  // the name of the op's option value (--nan, --mode)
  std::string input;
  std::string output;
};

// Reads IN, runs `op` with the chosen option on the chosen device, writes OUT.
void Run(const ElementwiseOptions& options, const OpInfo& op) {
  const Device device = MakeDevice(options.device);
  Expected<npy::Array> array = npy::Read(options.input);
  if (!array.ok()) Fail(array.status());
  const TensorDesc tensor = array->Desc();
  const auto& names = op.option.names;
  const int option = static_cast<int>(std::find(names.begin(), names.end(), options.option) -
                                      names.begin());  // checked by CLI::IsMember
  if (Status s = staging::RunInPlace(device, MakeDesc(op.op, option, tensor, tensor), array->data);
      !s.ok()) {
    Fail(s, options.input);
  }
  if (Status s = npy::Write(options.output, *array); !s.ok()) Fail(s);
}

// One subcommand per op of the registry: `eltwise <op> [--<option> VALUE] IN OUT`.
void AddOpCommand(CLI::App& app, const OpInfo& op) {
  CLI::App* command = app.add_subcommand(std::string(op.name), std::string(op.summary));
  auto options = std::make_shared<ElementwiseOptions>();
  options->option = std::string(op.option.names.front());
  const std::vector<std::string> values(op.option.names.begin(), op.option.names.end());
  command
      ->add_option("--" + std::string(op.option.field), options->option,
                   std::string(op.option.help))
      ->check(CLI::IsMember(values))
      ->capture_default_str();
  AddDeviceOptions(*command, options->device);
  command->add_option("IN", options->input, "Input .npy file")->required();
  command->add_option("OUT", options->output, "Output .npy file (may be IN)")->required();
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
