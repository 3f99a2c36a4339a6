// The eltwise command-line tool: the command registry and what commands share.
//
// Adding a command (e.g. `eltwise bench`) takes one new file and one line:
//   1. tools/bench.cc:
//        #include "commands.h"
//        namespace eltwise::cli {
//        namespace {
//        void AddBenchCommand(CLI::App& app) {
//          CLI::App* sub = app.add_subcommand("bench", "Measure throughput");
//          auto options = std::make_shared<DeviceOptions>();  // outlives this function
//          AddDeviceOptions(*sub, *options);
//          sub->callback([options] { /* the work; on error: Fail(status) */ });
//        }
//        }  // namespace
//        ELTWISE_CLI_COMMAND("bench", AddBenchCommand);
//        }  // namespace eltwise::cli
//   2. tools/CMakeLists.txt: add `bench.cc` to the eltwise_cli_common sources.
// Commands are listed in `eltwise --help` in alphabetical order of their names.
#pragma once

#include <CLI/CLI.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "eltwise/eltwise.h"

namespace eltwise::cli {

// Exit codes of every command.
inline constexpr int kExitSuccess = 0;
inline constexpr int kExitFailure = 1;       // I/O, device or other runtime failure
inline constexpr int kExitInvalidInput = 2;  // bad arguments, a malformed file, a rejected request

// Adds one subcommand (with its options and callback) to the root app.
using AddCommandFunction = void (*)(CLI::App& app);

struct RegisteredCommand {
  std::string_view name;  // the subcommand's name, for ordering `eltwise --help`
  AddCommandFunction add;
  // Empty, or the companion executable in this executable's folder that runs the command: main()
  // hands it the whole command line (execv), so that the libraries only that command needs are not
  // loaded by every other one. `eltwise` forwards `onnx-test` and `run` to `eltwise-onnx` this way
  // (onnx_forwarding.cc): libonnx and libprotobuf cost a few milliseconds of start-up. `add` then
  // only lists the command in `eltwise --help`.
  std::string_view program;
};

// Records a command for main(); called at static initialization by ELTWISE_CLI_COMMAND.
bool RegisterCommand(std::string_view name, AddCommandFunction add, std::string_view program = {});
// Every registered command, sorted by name.
std::vector<RegisteredCommand> RegisteredCommands();

#define ELTWISE_CLI_COMMAND(name, add_function)                              \
  [[maybe_unused]] static const bool eltwise_cli_registered_##add_function = \
      ::eltwise::cli::RegisterCommand(name, &add_function)

// Replaces this process with `command.program` from this executable's folder, with the same
// arguments; returns kExitFailure after printing one line on stderr if it cannot be started.
int RunExternalCommand(const RegisteredCommand& command, char** argv);

// Thrown from a command callback to end the program: main prints "eltwise: <message>" as one line
// on stderr and exits with `exit_code`.
class CommandError : public std::runtime_error {
 public:
  CommandError(int exit_code, const std::string& message)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// kExitInvalidInput for kInvalidArgument (the request or the file is invalid), else kExitFailure.
int ExitCode(StatusCode code);
// Throws CommandError for `status` (which must not be ok); `context` (e.g. a file name) is put
// before the message.
[[noreturn]] void Fail(const Status& status, std::string_view context = {});

// --device cpu|cuda and --feature-level L, shared by every command that runs operators.
struct DeviceOptions {
  std::string device = "cpu";
  std::string feature_level = "extended";
};
void AddDeviceOptions(CLI::App& command, DeviceOptions& options, bool with_feature_level = true);
// The device the options name; Fail()s if it cannot be created (e.g. kUnsupported for cuda in a
// build without the CUDA backend).
Device MakeDevice(const DeviceOptions& options);

}  // namespace eltwise::cli
