// `eltwise bench`: the command line of the operator benchmark (tools/bench/operator_bench.h):
// throughput of each (op, dtype, layout, size) against a copy of the same bytes in the same run,
// as a table on stdout and optionally as JSON. ratio = copy_seconds / seconds: 1.0 means as fast
// as the copy.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/failure.h"
#include "bench/layouts.h"
#include "bench/operator_bench.h"
#include "bench/records.h"
#include "bench/sizes.h"
#include "commands.h"
#include "core/op_registry.h"
#include "progress.h"

namespace eltwise::cli {
namespace {

// Every op's name, in registry order.
std::vector<std::string> OpNames() {
  std::vector<std::string> names;
  for (const OpInfo& info : AllOps()) names.emplace_back(info.name);
  return names;
}

// The registry's first value of each option, by option field.
std::map<std::string, std::string> DefaultOptionValues() {
  std::map<std::string, std::string> values;
  for (const OpInfo& info : AllOps()) {
    if (HasOption(info)) values.emplace(info.option.field, info.option.names.front());
  }
  return values;
}

// --threads above this is taken for a typo: each thread is created.
constexpr int kMaxBenchThreads = 1024;

struct BenchOptions {
  DeviceOptions device;
  int threads = 0;
  std::vector<std::string> ops = OpNames();
  std::vector<std::string> dtypes;  // empty: all
  std::vector<std::string> layouts{bench::kDefaultLayouts.begin(), bench::kDefaultLayouts.end()};
  std::vector<std::string> sizes = {"4K", "256K", "64M"};
  // Each op's option value by option field (--nan, --mode).
  std::map<std::string, std::string> option_values = DefaultOptionValues();
  double min_time = 0.02;
  std::string clock = "wall";
  int repeats = 5;
  int busy = 0;
  std::string json;
  bool quiet = false;
};

// The --device, with --threads threads where it is the CPU and --threads is not 0.
Device MakeBenchDevice(const BenchOptions& options) {
  Device device = MakeDevice(options.device);
  if (device.kind() != DeviceKind::kCpu || options.threads == 0) return device;
  const std::optional<FeatureLevel> level = ParseFeatureLevel(options.device.feature_level);
  Expected<Device> threaded =
      Device::Cpu(CpuOptions{.feature_level = *level, .threads = options.threads});
  if (!threaded.ok()) Fail(threaded.status(), "--threads");
  return *threaded;
}

// --busy: a 1-thread CPU device that times each call too; none without --busy.
std::optional<Device> MakeOneThreadDevice(const BenchOptions& options, const Device& device) {
  if (options.busy == 0) return std::nullopt;
  if (device.kind() != DeviceKind::kCpu) {
    Fail(InvalidArgument("--busy applies to the CPU device only"));
  }
  const std::optional<FeatureLevel> level = ParseFeatureLevel(options.device.feature_level);
  Expected<Device> one = Device::Cpu(CpuOptions{.feature_level = *level, .threads = 1});
  if (!one.ok()) Fail(one.status(), "--busy");
  return *one;
}

// --dtypes, or every data type.
std::vector<DataType> ChosenTypes(const std::vector<std::string>& names) {
  std::vector<DataType> types;
  if (names.empty()) {
#define ELTWISE_BENCH_TYPE(e, T, name) types.push_back(DataType::e);
    ELTWISE_FOR_EACH_DATA_TYPE(ELTWISE_BENCH_TYPE)
#undef ELTWISE_BENCH_TYPE
    return types;
  }
  for (const std::string& name : names) {
    const std::optional<DataType> type = ParseDataType(name);
    if (!type) Fail(InvalidArgument("--dtype '" + name + "' is not a data type"));
    types.push_back(*type);
  }
  return types;
}

std::vector<uint64_t> ChosenSizes(const std::vector<std::string>& texts) {
  std::vector<uint64_t> sizes;
  for (const std::string& text : texts) {
    const std::optional<uint64_t> bytes = bench::ParseByteCount(text);
    if (!bytes || *bytes == 0) {
      Fail(InvalidArgument("--sizes '" + text + "' is not a byte count (e.g. 4K, 64M)"));
    }
    sizes.push_back(*bytes);
  }
  return sizes;
}

// --ops (checked by the callback), each with its option value named by --<field> (checked by
// CLI::IsMember).
std::vector<bench::OpChoice> ChosenOps(const BenchOptions& options) {
  std::vector<bench::OpChoice> ops;
  for (const std::string& name : options.ops) {
    const OpInfo& info = Info(*ParseOp(name));
    int option = 0;
    if (HasOption(info)) {
      const auto& names = info.option.names;
      const std::string& value = options.option_values.at(std::string(info.option.field));
      option = static_cast<int>(std::find(names.begin(), names.end(), value) - names.begin());
    }
    ops.push_back({info.op, option});
  }
  return ops;
}

void RunBench(const BenchOptions& options) {
  Device device = MakeBenchDevice(options);
  std::optional<Device> one_thread = MakeOneThreadDevice(options, device);
  // Initialised in order: the checks of --dtypes come before those of --sizes.
  const bench::OperatorBenchPlan plan{
      .device = std::move(device),
      .one_thread = std::move(one_thread),
      .busy = options.busy,
      .ops = ChosenOps(options),
      .types = ChosenTypes(options.dtypes),
      .layouts = options.layouts,
      .sizes = ChosenSizes(options.sizes),
      .timing = {.min_time = options.min_time,
                 .repeats = options.repeats,
                 .clock = options.clock == "cpu" ? bench::TimingClock::kProcessCpu
                                                 : bench::TimingClock::kWall},
  };

  std::printf("device: %s\n", plan.device.description().c_str());
  std::fputs(bench::TableHeader().c_str(), stdout);
  // Cases done of all (on stderr when it is a terminal; erased while a row is printed).
  Progress progress("bench",
                    plan.ops.size() * plan.types.size() * plan.layouts.size() * plan.sizes.size(),
                    Progress::Unit::kCases, !options.quiet && StderrIsTerminal());
  uint64_t cases_done = 0;
  const std::vector<bench::Record> records =
      bench::RunOperatorBench(plan, [&](const bench::Record& record) {
        progress.Clear();
        std::fputs(bench::TableRow(record).c_str(), stdout);
        std::fflush(stdout);
        progress.Update(++cases_done);
      });
  if (!options.json.empty()) bench::WriteRecordsJson(options.json, records);
}

void AddBenchCommand(CLI::App& app) {
  CLI::App* command = app.add_subcommand(
      "bench", "Measure operator throughput against a copy of the same bytes in the same run");
  auto options = std::make_shared<BenchOptions>();
  AddDeviceOptions(*command, options->device);
  command
      ->add_option(
          "--threads", options->threads,
          "CPU threads (0: all hardware threads; at most " + std::to_string(kMaxBenchThreads) + ")")
      ->check(CLI::Range(0, kMaxBenchThreads))
      ->capture_default_str();
  std::string op_names;
  for (const std::string& name : OpNames()) op_names += " " + name;
  command->add_option("--ops", options->ops, "Operators:" + op_names)->capture_default_str();
  command->add_option("--dtypes", options->dtypes, "Data types (default: all)");
  command->add_option("--layouts", options->layouts, std::string(bench::kLayoutsHelp))
      ->capture_default_str();
  command->add_option("--sizes", options->sizes, "Output sizes in bytes (suffix K, M, G)")
      ->capture_default_str();
  for (const OpInfo& info : AllOps()) {
    if (!HasOption(info)) continue;
    const std::string field(info.option.field);
    const std::vector<std::string> values(info.option.names.begin(), info.option.names.end());
    command
        ->add_option("--" + field, options->option_values[field],
                     std::string(info.option.help) + " (" + std::string(info.name) + ")")
        ->check(CLI::IsMember(values))
        ->capture_default_str();
  }
  command->add_option("--min-time", options->min_time, "Seconds per timed batch")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command->add_option("--repeats", options->repeats, "Timed batches per measurement (best is kept)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command
      ->add_option("--clock", options->clock,
                   "wall, or cpu: process CPU time, which ignores time descheduled on a busy "
                   "machine (meaningful with --threads 1: idle workers would count otherwise)")
      ->check(CLI::IsMember({"wall", "cpu"}))
      ->capture_default_str();
  command
      ->add_option("--busy", options->busy,
                   "Keep this many cores busy with spinning threads meanwhile, and also time each "
                   "call on one thread: prints time/1-thread (how a parallel call copes with a "
                   "busy machine)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  command->add_option("--json", options->json, "Also write the records to this JSON file");
  command->add_flag("--quiet,-q", options->quiet,
                    "No progress bar (shown on stderr when it is a terminal and the run takes more "
                    "than a second)");
  command->callback([options] {
    for (const std::string& op : options->ops) {
      if (!ParseOp(op)) {
        std::string names;
        for (const std::string& name : OpNames()) names += (names.empty() ? "" : ", ") + name;
        Fail(InvalidArgument("--ops '" + op + "' is not an operator (" + names + ")"));
      }
    }
    try {
      RunBench(*options);
    } catch (const bench::Failure& failure) {
      Fail(failure.status(), failure.context());
    }
  });
}

}  // namespace
ELTWISE_CLI_COMMAND("bench", AddBenchCommand);
}  // namespace eltwise::cli
