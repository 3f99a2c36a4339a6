#include "bench/operator_bench.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "bench/baselines.h"
#include "bench/buffers.h"
#include "bench/failure.h"
#include "bench/layouts.h"
#include "bench/threads.h"
#include "bench/values.h"
#include "core/op_registry.h"

namespace eltwise::bench {
namespace {

// Measurements alternate over this many rounds so that drift hits all of them alike.
constexpr int kAlternationRounds = 2;

// One case: what it runs, on what.
struct Case {
  const OpInfo* info;
  int option;
  DataType type;
  std::string layout_name;
  Layout layout;
  Shapes shapes;
};

Case MakeCase(OpChoice choice, DataType type, const std::string& layout_name, uint64_t bytes) {
  const std::optional<Layout> layout = ParseLayout(layout_name);
  if (!layout) throw Failure(InvalidArgument("--layouts '" + layout_name + "' is not a layout"));
  return Case{.info = &Info(choice.op),
              .option = choice.option,
              .type = type,
              .layout_name = layout_name,
              .layout = *layout,
              .shapes = MakeShapes(*layout, type, bytes)};
}

// The case's operator compiled for the device, and for the 1-thread device where there is one.
struct CompiledCase {
  std::optional<CompiledOperator> op, one_thread;
};

CompiledCase CompileCase(const OperatorBenchPlan& plan, const Case& c) {
  const OperatorDesc desc = MakeDesc(c.info->op, c.option, c.shapes.input, c.shapes.output);
  const std::string context = std::string(c.info->name) + " " + std::string(Name(c.type));
  CompiledCase compiled;
  Expected<CompiledOperator> op = Compile(plan.device, desc);
  if (!op.ok()) throw Failure(op.status(), context);
  compiled.op = *op;
  if (plan.one_thread) {
    Expected<CompiledOperator> one = Compile(*plan.one_thread, desc);
    if (!one.ok()) throw Failure(one.status(), context);
    compiled.one_thread = *one;
  }
  return compiled;
}

// The case's device memory: its tensors (the input holding random values), and the copy
// baselines' source and destination of the output's byte count.
struct CaseBuffers {
  CaseBuffers(const Device& device, const Case& c)
      : payload(c.shapes.elements * ElementSize(c.type)),
        input(device,
              std::max(c.shapes.input_bytes, c.shapes.output_shift + c.shapes.output_bytes)),
        output(device, c.shapes.shares_buffer ? 16 : c.shapes.output_bytes),
        copy_src(device, payload),
        copy_dst(device, payload) {
    const std::vector<std::byte> values =
        RandomValues(c.type, c.shapes.input_bytes / ElementSize(c.type));
    ThrowIfFailed(CopyToDevice(device, input.data(), values.data(), values.size()));
    // Every page of the copy source holds data: untouched pages would all read one zero page.
    const std::vector<std::byte> fill = RandomValues(DataType::kUInt8, payload);
    ThrowIfFailed(CopyToDevice(device, copy_src.data(), fill.data(), payload));
    output_data = c.shapes.shares_buffer ? input.bytes() + c.shapes.output_shift : output.bytes();
    output_size = c.layout == Layout::kInPlace ? c.shapes.input_bytes : c.shapes.output_bytes;
  }

  uint64_t payload;  // bytes of output elements
  DeviceBuffer input, output, copy_src, copy_dst;
  std::byte* output_data;
  uint64_t output_size;
};

// The best seconds per call of each measurement; INFINITY where one was not taken.
struct CaseTimes {
  double op = INFINITY, one_thread = INFINITY, memcpy = INFINITY, copy_loop = INFINITY;
};

// A batch of `calls` Executes of `op` on the case's buffers.
Batch ExecuteBatch(const CompiledOperator& op, const Case& c, const CaseBuffers& buffers) {
  return [&op, &c, &buffers](int64_t calls) {
    for (int64_t i = 0; i < calls; ++i) {
      ThrowIfFailed(op.Execute({buffers.input.data(), c.shapes.input_bytes},
                               {buffers.output_data, buffers.output_size}),
                    "execute");
    }
  };
}

// The host baselines of a case on the CPU: each on one thread and on the team's (see
// operator_bench.h), in that order.
void AddHostBaselines(const Team& team, const Case& c, const CaseBuffers& buffers, CaseTimes& times,
                      std::vector<AlternatedBatch>& batches) {
  const bool in_place = c.layout == Layout::kInPlace;
  const std::byte* src = buffers.copy_src.bytes();
  std::byte* copy_dst = in_place ? buffers.copy_src.bytes() : buffers.copy_dst.bytes();
  const uint64_t bytes = buffers.payload;
  const Baseline copy = c.layout == Layout::kBroadcast ? Baseline::kFill : Baseline::kMemcpy;
  for (const Team copy_team : {Team(1), team}) {
    if (!in_place) {
      batches.push_back(
          {[=](int64_t calls) { RunBaseline(copy, src, copy_dst, bytes, copy_team, calls); },
           &times.memcpy});
    }
    if (c.layout != Layout::kBroadcast) {
      batches.push_back({[=](int64_t calls) {
                           RunBaseline(Baseline::kCopyLoop, src, copy_dst, bytes, copy_team, calls);
                         },
                         &times.copy_loop});
    }
    if (team.threads() == 1) break;
  }
}

// Times the operator, the 1-thread operator and the baselines alternately.
CaseTimes MeasureCase(const OperatorBenchPlan& plan, const Team& team, const Case& c,
                      const CompiledCase& compiled, const CaseBuffers& buffers) {
  const Device& device = plan.device;
  CaseTimes times;
  std::vector<AlternatedBatch> batches;
  const Batch execute = ExecuteBatch(*compiled.op, c, buffers);
  batches.push_back({[&](int64_t calls) {
                       execute(calls);
                       ThrowIfFailed(Synchronize(device));
                     },
                     &times.op});
  if (compiled.one_thread) {
    batches.push_back({ExecuteBatch(*compiled.one_thread, c, buffers), &times.one_thread});
  }
  if (device.kind() == DeviceKind::kCpu) {
    AddHostBaselines(team, c, buffers, times, batches);
  } else {
    // A CUDA device's copy baseline: not run where coverage is taken (no GPU);
    // tests/cuda/run_gpu_checks.sh runs `eltwise bench --device cuda` on a GPU.
    // GCOVR_EXCL_START
    batches.push_back({[&](int64_t calls) {
                         for (int64_t i = 0; i < calls; ++i) {
                           ThrowIfFailed(CopyOnDevice(device, buffers.copy_dst.data(),
                                                      buffers.copy_src.data(), buffers.payload));
                         }
                         ThrowIfFailed(Synchronize(device));
                       },
                       &times.memcpy});
    // GCOVR_EXCL_STOP
  }
  TimeAlternately(batches, kAlternationRounds, plan.timing);
  return times;
}

double ZeroIfNotTaken(double seconds) { return std::isinf(seconds) ? 0 : seconds; }

Record MakeRecord(const Device& device, const Case& c, const CaseTimes& times) {
  Record r;
  r.op = std::string(c.info->name);
  r.mode = HasOption(*c.info) ? std::string(c.info->option.names[c.option]) : "";
  r.dtype = std::string(Name(c.type));
  r.layout = c.layout_name;
  r.device = device.description();
  r.elements = c.shapes.elements;
  r.threads = device.threads();
  const uint64_t payload = c.shapes.elements * ElementSize(c.type);
  r.bytes_moved = c.layout == Layout::kBroadcast ? payload : 2 * payload;
  r.seconds = times.op;
  r.timed_one_thread = !std::isinf(times.one_thread);
  r.one_thread_seconds = ZeroIfNotTaken(times.one_thread);
  r.memcpy_seconds = ZeroIfNotTaken(times.memcpy);
  r.copy_loop_seconds = ZeroIfNotTaken(times.copy_loop);
  if (device.kind() != DeviceKind::kCpu) {
    r.copy_seconds = times.memcpy;  // GCOVR_EXCL_LINE: a CUDA device (no GPU where coverage is
    r.baseline = "CopyOnDevice";    // GCOVR_EXCL_LINE: taken; run_gpu_checks.sh runs it)
  } else if (c.layout == Layout::kInPlace) {
    r.copy_seconds = times.copy_loop;
    r.baseline = "in-place copy loop";
  } else if (c.layout == Layout::kBroadcast) {
    r.copy_seconds = times.memcpy;
    r.baseline = "memset";
  } else {
    r.copy_seconds = std::min(times.memcpy, times.copy_loop);
    r.baseline = times.memcpy <= times.copy_loop ? "memcpy" : "copy loop";
  }
  return r;
}

}  // namespace

std::vector<Record> RunOperatorBench(const OperatorBenchPlan& plan,
                                     const std::function<void(const Record&)>& on_record) {
  const BusyLoad busy(plan.busy);
  const bool cpu = plan.device.kind() == DeviceKind::kCpu;
  const Team team(cpu ? plan.device.threads() : 1);
  std::vector<Record> records;
  for (const OpChoice& choice : plan.ops) {
    for (const DataType type : plan.types) {
      for (const std::string& layout : plan.layouts) {
        for (const uint64_t bytes : plan.sizes) {
          const Case c = MakeCase(choice, type, layout, bytes);
          const CompiledCase compiled = CompileCase(plan, c);
          const CaseBuffers buffers(plan.device, c);
          const CaseTimes times = MeasureCase(plan, team, c, compiled, buffers);
          records.push_back(MakeRecord(plan.device, c, times));
          on_record(records.back());
        }
      }
    }
  }
  return records;
}

}  // namespace eltwise::bench
