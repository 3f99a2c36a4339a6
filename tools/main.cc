// eltwise: the command-line front end. Every subcommand lives in its own file and registers itself
// (see commands.h); this file parses the command line and turns errors into exit codes.
#include <algorithm>
#include <functional>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"

int main(int argc, char** argv) {
  using namespace eltwise::cli;
  CLI::App app("eltwise: exact DirectML/ONNX Sign and Round on .npy files", "eltwise");
  app.set_version_flag("--version", std::string(eltwise::Version()));
  app.require_subcommand(1);
  // Options are --name everywhere: on Windows CLI11 would also take /name, which would swallow
  // rooted paths such as /data/in.npy.
  app.allow_windows_style_options(false);
  // Commands in alphabetical order; an external one is listed here and run by its program.
  std::vector<std::pair<std::string_view, std::function<void()>>> entries;
  for (const RegisteredCommand& command : RegisteredCommands()) {
    entries.emplace_back(command.name, [&app, command] { command.add(app); });
  }
  for (const ExternalCommand& command : ExternalCommands()) {
    entries.emplace_back(command.name, [&app, command] {
      app.add_subcommand(std::string(command.name), std::string(command.summary))->allow_extras();
    });
  }
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& entry : entries) entry.second();
  if (argc > 1) {
    for (const ExternalCommand& command : ExternalCommands()) {
      if (command.name == argv[1]) return RunExternalCommand(command, argv);
    }
  }

  // CLI11 would report a mistyped command as a missing one; name it instead.
  const auto is_command = [&app](const std::string& name) {
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->check_name(name)) return true;
    }
    return false;
  };
  if (argc > 1 && argv[1][0] != '-' && !is_command(argv[1])) {
    std::string names;
    for (const auto& entry : entries)
      names += (names.empty() ? "" : ", ") + std::string(entry.first);
    std::cerr << "eltwise: unknown command '" << argv[1] << "' (commands: " << names << ")\n";
    return kExitInvalidInput;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help (CallForHelp derives from Success), --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    std::replace(message.begin(), message.end(), '\n', ' ');
    std::cerr << "eltwise: " << message << " (see eltwise --help)\n";
    return kExitInvalidInput;
  } catch (const CommandError& e) {
    std::cerr << "eltwise: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "eltwise: " << e.what() << "\n";
    return kExitFailure;
  }
  return kExitSuccess;
}
