// The command registry and the helpers commands share.
#include "commands.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <system_error>
#if !defined(_WIN32)
#include <unistd.h>
#endif

namespace eltwise::cli {
namespace {

// A function-local static, so registrations from any translation unit's static initializers find
// it constructed.
std::vector<RegisteredCommand>& Registry() {
  static std::vector<RegisteredCommand> registry;
  return registry;
}

// Errors are printed as one line on stderr.
std::string OneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

}  // namespace

bool RegisterCommand(std::string_view name, AddCommandFunction add, std::string_view program) {
  Registry().push_back({name, add, program});
  return true;
}

int RunExternalCommand(const RegisteredCommand& command, char** argv) {
  std::string program(command.program);
  std::string why = "external commands need a POSIX system";
#if !defined(_WIN32)
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) {
    why = "cannot find this executable's folder (/proc/self/exe: " + error.message() + ")";
  } else {
    program = (self.parent_path() / command.program).string();
    execv(program.c_str(), argv);
    why = std::strerror(errno);
  }
#endif
  std::cerr << "eltwise: '" << command.name << "' is run by " << program
            << ", which cannot be started: " << why << "\n";
  return kExitFailure;
}

std::vector<RegisteredCommand> RegisteredCommands() {
  std::vector<RegisteredCommand> commands = Registry();
  std::sort(commands.begin(), commands.end(),
            [](const RegisteredCommand& a, const RegisteredCommand& b) { return a.name < b.name; });
  return commands;
}

int ExitCode(StatusCode code) {
  return code == StatusCode::kInvalidArgument ? kExitInvalidInput : kExitFailure;
}

void Fail(const Status& status, std::string_view context) {
  std::string message = context.empty() ? "" : std::string(context) + ": ";
  message += status.message().empty() ? std::string(Name(status.code())) : status.message();
  throw CommandError(ExitCode(status.code()), OneLine(std::move(message)));
}

void AddDeviceOptions(CLI::App& command, DeviceOptions& options, bool with_feature_level) {
  command.add_option("--device", options.device, "Device to run on")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  if (!with_feature_level) return;
  command
      .add_option("--feature-level", options.feature_level,
                  "DirectML feature level to validate against: 2_0 ... 6_4, or extended")
      ->check(CLI::Validator(
          [](std::string& value) -> std::string {
            if (ParseFeatureLevel(value)) return {};
            std::string levels;
            for (FeatureLevel level : AllFeatureLevels()) {
              levels += levels.empty() ? "" : " ";
              levels += Name(level);
            }
            return "'" + value + "' is not a feature level (" + levels + ")";
          },
          "LEVEL"))
      ->capture_default_str();
}

Device MakeDevice(const DeviceOptions& options) {
  const std::optional<FeatureLevel> level = ParseFeatureLevel(options.feature_level);
  if (!level) {
    Fail(InvalidArgument("--feature-level '" + options.feature_level + "' is not a feature level"));
  }
  Expected<Device> device = options.device == "cuda"
                                ? Device::Cuda(CudaOptions{.feature_level = *level})
                                : Device::Cpu(CpuOptions{.feature_level = *level});
  if (!device.ok()) Fail(device.status(), "--device " + options.device);
  return *device;
}

}  // namespace eltwise::cli
