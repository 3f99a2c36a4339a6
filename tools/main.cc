// eltwise: the command-line front end. Every subcommand lives in its own file and registers itself
// (see commands.h); this file parses the command line and turns errors into exit codes.
#include <algorithm>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "commands.h"
#include "core/op_registry.h"

namespace {

int Run(int argc, char** argv) {
  using namespace eltwise::cli;
  const std::vector<RegisteredCommand> commands = RegisteredCommands();
  // The command named first, if any.
  const auto named =
      std::find_if(commands.begin(), commands.end(),
                   [&](const RegisteredCommand& c) { return argc > 1 && c.name == argv[1]; });
  // A command that a companion program runs is handed over before anything else is built.
  if (named != commands.end() && !named->program.empty()) return RunExternalCommand(*named, argv);
  CLI::App app("eltwise: exact DirectML/ONNX " + eltwise::OpTitles("and") + " on .npy files",
               "eltwise");
  app.set_version_flag("--version", std::string(eltwise::Version()));
  app.require_subcommand(1);
  // Options are --name everywhere: on Windows CLI11 would also take /name, which would swallow
  // rooted paths such as /data/in.npy.
  app.allow_windows_style_options(false);
  // A named command is the only one built: every command's options, validators and help text
  // together take about 700 allocations, most of a run's. --help, --version and mistakes build
  // them all.
  for (auto command = commands.begin(); command != commands.end(); ++command) {
    if (named == commands.end() || command == named) command->add(app);
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
    for (const RegisteredCommand& command : commands) {
      names += (names.empty() ? "" : ", ") + std::string(command.name);
    }
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
  } catch (const std::bad_alloc&) {
    std::cerr << "eltwise: out of memory\n";
    return kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << "eltwise: " << e.what() << "\n";
    return kExitFailure;
  }
  return kExitSuccess;
}

}  // namespace

// An allocation failure outside the commands' own handling (building the command line parser,
// reporting another error) ends the run the same way: one line, the runtime-failure exit status.
int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::bad_alloc&) {
    std::cerr << "eltwise: out of memory\n";
    return eltwise::cli::kExitFailure;
  }
}
