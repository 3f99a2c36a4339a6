// `eltwise bench`: throughput of each (op, dtype, layout, size) measured against a copy of the same
// bytes in the same run, so the ratio is free of machine noise between runs. Uses only the public
// API (Device, Allocate, Compile, Execute, CopyOnDevice, Synchronize), so `--device cuda` works
// wherever the CUDA backend is built.
//
// Baselines (CPU, same thread count as the device; CUDA: CopyOnDevice):
//   contiguous, rows, transposed, gathered, overlap*: the best of memcpy and a copy loop over the
//   output's bytes;
//   inplace: a loop that reads and rewrites the same bytes in place;
//   broadcast: memset of the output bytes (a fill).
// ratio = copy_seconds / seconds: 1.0 means as fast as the copy.
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "commands.h"
#include "core/op_registry.h"
#include "progress.h"

namespace eltwise::cli {
namespace {

using Clock = std::chrono::steady_clock;

// Every op's name, in registry order.
std::vector<std::string> OpNames() {
  std::vector<std::string> names;
  for (const OpInfo& info : AllOps()) names.emplace_back(info.name);
  return names;
}

std::map<std::string, std::string> DefaultOptionValues() {
  std::map<std::string, std::string> values;
  for (const OpInfo& info : AllOps()) {
    values.emplace(info.option.field, info.option.names.front());
  }
  return values;
}

struct BenchOptions {
  DeviceOptions device;
  int threads = 0;
  std::vector<std::string> ops = OpNames();
  std::vector<std::string> dtypes;  // empty: all
  std::vector<std::string> layouts = {"contiguous", "inplace", "transposed", "broadcast", "rows"};
  std::vector<std::string> sizes = {"4K", "256K", "64M"};
  // Each op's option value by option field (--nan, --mode); default: the registry's first value.
  std::map<std::string, std::string> option_values = DefaultOptionValues();
  double min_time = 0.02;      // seconds per timed batch
  std::string clock = "wall";  // wall, or cpu: process CPU time (for --threads 1 on a busy machine)
  int repeats = 5;
  int busy = 0;  // threads spinning beside the benchmark (a busy machine)
  std::string json;
  bool quiet = false;
};

// Threads that keep `count` cores busy for their lifetime (another program hogging them), so
// that the benchmark shows how a parallel call copes with a core it cannot have.
class BusyLoad {
 public:
  explicit BusyLoad(int count) {
    for (int i = 0; i < count; ++i) {
      threads_.emplace_back([](std::stop_token stop) {
        volatile uint64_t sink = 0;
        while (!stop.stop_requested()) {
          for (int k = 0; k < 4096; ++k) sink = sink + 1;
        }
      });
    }
  }

 private:
  std::vector<std::jthread> threads_;
};

std::optional<uint64_t> ParseBytes(std::string text) {
  uint64_t scale = 1;
  if (!text.empty()) {
    const char suffix = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
    if (suffix == 'K') scale = uint64_t{1} << 10;
    if (suffix == 'M') scale = uint64_t{1} << 20;
    if (suffix == 'G') scale = uint64_t{1} << 30;
    if (scale != 1) text.pop_back();
  }
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  return std::stoull(text) * scale;
}

// A fixed team of threads that runs fn(thread, threads) `reps` times in lock step (a barrier per
// repetition, like one parallel call per repetition).
class Team {
 public:
  explicit Team(int threads) : threads_(std::max(threads, 1)) {}
  template <class Fn>
  void Run(int reps, const Fn& fn) {
    if (threads_ == 1) {
      for (int r = 0; r < reps; ++r) fn(0, 1);
      return;
    }
    std::barrier sync(threads_);
    std::vector<std::jthread> helpers;
    auto body = [&](int t) {
      for (int r = 0; r < reps; ++r) {
        sync.arrive_and_wait();
        fn(t, threads_);
      }
      sync.arrive_and_wait();
    };
    for (int t = 1; t < threads_; ++t) helpers.emplace_back(body, t);
    body(0);
  }
  int threads() const { return threads_; }

 private:
  int threads_;
};

// Byte range [begin, end) of part t of `threads` parts of `bytes`, on 64-byte boundaries.
std::pair<uint64_t, uint64_t> Part(uint64_t bytes, int t, int threads) {
  auto cut = [&](int k) { return std::min(bytes, (bytes * k / threads + 63) / 64 * 64); };
  return {t == 0 ? 0 : cut(t), t + 1 == threads ? bytes : cut(t + 1)};
}

// A copy loop the compiler cannot turn into memcpy or drop (in place it must still read and
// write): 256 bytes per step in vector registers, built for the widest x86 vectors available.
typedef unsigned char Block64 __attribute__((vector_size(64), aligned(1), may_alias));
// Not under sanitizers: an ifunc resolver runs before their runtime is up (TSan crashes there).
// ifunc exists only in ELF (not on Windows).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void CopyLoop(const std::byte* in, std::byte* out, uint64_t bytes) {
  uint64_t i = 0;
  for (; i + 256 <= bytes; i += 256) {
    Block64 a, b, c, d;
    std::memcpy(&a, in + i, 64);
    std::memcpy(&b, in + i + 64, 64);
    std::memcpy(&c, in + i + 128, 64);
    std::memcpy(&d, in + i + 192, 64);
    asm volatile("" : : : "memory");
    std::memcpy(out + i, &a, 64);
    std::memcpy(out + i + 64, &b, 64);
    std::memcpy(out + i + 128, &c, 64);
    std::memcpy(out + i + 192, &d, 64);
  }
  for (; i < bytes; ++i) {
    const std::byte v = in[i];
    asm volatile("" : : : "memory");
    out[i] = v;
  }
}

bool g_cpu_clock = false;  // set from --clock before any measurement

// Seconds on the chosen clock: wall time, or the CPU time of the whole process (all threads),
// which excludes time the process was not running: stable on a shared machine for one thread.
double Now() {
  if (g_cpu_clock) {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
  }
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

// Seconds per call of batch(reps), the best of `repeats` batches of at least `min_time` each.
double SecondsPerCall(const std::function<void(int)>& batch, double min_time, int repeats) {
  batch(1);  // warm up (page faults, caches, thread start)
  int reps = 1;
  for (;;) {
    const double start = Now();
    batch(reps);
    const double s = Now() - start;
    if (s >= min_time || reps >= (1 << 24)) break;
    reps = s <= 0 ? reps * 16
                  : std::max(reps + 1, static_cast<int>(reps * std::min(16.0, 1.2 * min_time / s)));
  }
  double best = INFINITY;
  for (int r = 0; r < repeats; ++r) {
    const double start = Now();
    batch(reps);
    best = std::min(best, (Now() - start) / reps);
  }
  return best;
}

struct DeviceBuffer {
  Device device;
  void* data = nullptr;
  DeviceBuffer(const Device& d, uint64_t bytes) : device(d) {
    Expected<void*> p = Allocate(device, std::max<uint64_t>(bytes, 16));
    if (!p.ok()) Fail(p.status(), "bench buffer");
    data = *p;
  }
  ~DeviceBuffer() { Free(device, data); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// Random but valid-looking data: finite values with fractions for floats, any bits for integers.
std::vector<std::byte> RandomBytes(DataType type, uint64_t elements) {
  const size_t esize = ElementSize(type);
  std::vector<std::byte> bytes(elements * esize);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> value(-1000.0, 1000.0);
  for (uint64_t i = 0; i < elements; ++i) {
    std::byte* p = bytes.data() + i * esize;
    if (type == DataType::kFloat32) {
      const float x = static_cast<float>(value(rng));
      std::memcpy(p, &x, 4);
    } else if (type == DataType::kFloat64) {
      const double x = value(rng);
      std::memcpy(p, &x, 8);
    } else if (type == DataType::kBFloat16 || type == DataType::kFloat16) {
      const float x = static_cast<float>(value(rng) / 16);
      uint32_t b;
      std::memcpy(&b, &x, 4);
      uint16_t h;
      if (type == DataType::kBFloat16) {
        h = static_cast<uint16_t>(b >> 16);
      } else {  // |x| < 64: a normal f16 from the top mantissa bits (truncated)
        const int e = static_cast<int>((b >> 23) & 0xff) - 127 + 15;
        h = static_cast<uint16_t>(((b >> 16) & 0x8000) |
                                  (e > 0 ? (e << 10) | ((b >> 13) & 0x3ff) : 0));
      }
      std::memcpy(p, &h, 2);
    } else {
      const uint64_t r = rng();
      std::memcpy(p, &r, esize);
    }
  }
  return bytes;
}

struct Record {
  std::string op, mode, dtype, layout, device;
  uint64_t elements = 0;
  int threads = 1;
  double seconds = 0, copy_seconds = 0, memcpy_seconds = 0, copy_loop_seconds = 0;
  double one_thread_seconds = 0;  // the same call on a 1-thread device (--busy only)
  uint64_t bytes_moved = 0;
  std::string baseline;
};

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

void WriteJson(const std::string& path, const std::vector<Record>& records) {
  std::ofstream file(path);
  if (!file) Fail(Status(StatusCode::kIoError, "cannot open " + path + " for writing"));
  file << "[\n";
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    char numbers[512];
    std::snprintf(numbers, sizeof numbers,
                  "\"elements\": %" PRIu64
                  ", \"threads\": %d, \"seconds\": %.9g, "
                  "\"copy_seconds\": %.9g, \"memcpy_seconds\": %.9g, \"copy_loop_seconds\": %.9g, "
                  "\"ratio\": %.4f, \"bytes_moved\": %" PRIu64
                  ", \"gb_per_s\": %.3f, \"one_thread_seconds\": %.9g",
                  r.elements, r.threads, r.seconds, r.copy_seconds, r.memcpy_seconds,
                  r.copy_loop_seconds, r.copy_seconds / r.seconds, r.bytes_moved,
                  r.bytes_moved / r.seconds / 1e9, r.one_thread_seconds);
    file << "  {\"op\": \"" << r.op << "\", \"mode\": \"" << r.mode << "\", \"dtype\": \""
         << r.dtype << "\", \"layout\": \"" << r.layout << "\", \"device\": \""
         << JsonEscape(r.device) << "\", \"baseline\": \"" << r.baseline << "\", " << numbers << "}"
         << (i + 1 < records.size() ? ",\n" : "\n");
  }
  file << "]\n";
  if (!file) Fail(Status(StatusCode::kIoError, "writing " + path + " failed"));
}

// The tensors of one layout for `elements` output elements.
struct Shapes {
  TensorDesc input, output;
  uint64_t input_bytes = 0, output_bytes = 0, elements = 0;
  // Layouts overlap_*: the output lies this many bytes into the input's buffer (which holds both).
  uint64_t output_shift = 0;
};

std::optional<Shapes> MakeShapes(const std::string& layout, DataType type, uint64_t bytes) {
  const uint64_t esize = ElementSize(type);
  uint64_t n = std::max<uint64_t>(bytes / esize, 1);
  Shapes s;
  // Rows of 1000 elements in a pitch of 1024 (n rounded down to whole rows, at least one).
  const auto padded_rows = [&] {
    const uint64_t cols = 1000, pitch = 1024;
    const uint64_t rows = std::max<uint64_t>(1, n / cols);
    n = rows * cols;
    return TensorDesc::Strided(type, {rows, cols}, {static_cast<int64_t>(pitch), 1});
  };
  if (layout == "contiguous" || layout == "inplace") {
    s.input = s.output = TensorDesc::Packed(type, {n});
  } else if (layout == "transposed") {
    // A square matrix read column-wise (input strides [1, rows]), written row-major.
    uint64_t side = std::max<uint64_t>(1, static_cast<uint64_t>(std::sqrt(static_cast<double>(n))));
    n = side * side;
    s.input = TensorDesc::Strided(type, {side, side}, {1, static_cast<int64_t>(side)});
    s.output = TensorDesc::Packed(type, {side, side});
  } else if (layout == "broadcast") {
    s.input = TensorDesc::Strided(type, {n}, {0});
    s.output = TensorDesc::Packed(type, {n});
  } else if (layout == "rows") {
    // Padding on both sides, never written.
    s.input = s.output = padded_rows();
  } else if (layout == "gathered" || layout == "gathered3" || layout == "gathered4") {
    // Every second (third, fourth) element of the input into a packed output.
    const int64_t stride = layout == "gathered" ? 2 : layout[8] - '0';
    s.input = TensorDesc::Strided(type, {n}, {stride});
    s.output = TensorDesc::Packed(type, {n});
  } else if (layout == "overlap") {
    // The padded rows compacted into packed rows in the same buffer (a partial overlap whose
    // walks both rise: processed in bounded chunks).
    s.input = padded_rows();
    s.output = TensorDesc::Packed(type, s.input.sizes);
  } else if (layout == "overlap_cross") {
    // The same, with the output starting where it meets its input at the middle row: rows above
    // it run front to back, the others back to front (two passes of bounded chunks).
    s.input = padded_rows();
    s.output = TensorDesc::Packed(type, s.input.sizes);
    s.output_shift = s.input.sizes[0] / 2 * (1024 - 1000) * esize;
  } else if (layout == "overlap_transpose") {
    // A square matrix transposed onto itself (mirror pairs of tiles).
    const uint64_t side =
        std::max<uint64_t>(1, static_cast<uint64_t>(std::sqrt(static_cast<double>(n))));
    n = side * side;
    s.input = TensorDesc::Strided(type, {side, side}, {1, static_cast<int64_t>(side)});
    s.output = TensorDesc::Packed(type, {side, side});
  } else if (layout == "overlap_reverse") {
    // A vector reversed onto itself (mirror pairs of tiles).
    s.input = TensorDesc::Strided(type, {n}, {-1});
    s.output = TensorDesc::Packed(type, {n});
  } else {
    return std::nullopt;
  }
  s.elements = n;
  s.input_bytes = s.input.total_tensor_size_in_bytes;
  s.output_bytes = s.output.total_tensor_size_in_bytes;
  return s;
}

void RunBench(const BenchOptions& options) {
  Device device = MakeDevice(options.device);
  if (device.kind() == DeviceKind::kCpu && options.threads != 0) {
    const std::optional<FeatureLevel> level = ParseFeatureLevel(options.device.feature_level);
    Expected<Device> d =
        Device::Cpu(CpuOptions{.feature_level = *level, .threads = options.threads});
    if (!d.ok()) Fail(d.status(), "--threads");
    device = *d;
  }
  const bool cpu = device.kind() == DeviceKind::kCpu;
  const int threads = device.threads();
  // --busy: the same calls on a 1-thread device too, with `busy` cores kept busy throughout.
  std::optional<Device> one_thread;
  if (options.busy > 0) {
    if (!cpu) Fail(InvalidArgument("--busy applies to the CPU device only"));
    const std::optional<FeatureLevel> level = ParseFeatureLevel(options.device.feature_level);
    Expected<Device> d = Device::Cpu(CpuOptions{.feature_level = *level, .threads = 1});
    if (!d.ok()) Fail(d.status(), "--busy");
    one_thread = *d;
  }
  const BusyLoad busy(options.busy);
  Team team(cpu ? threads : 1);
  Team single(1);
  int copy_threads = 1;  // which team the copy baselines run on

  std::vector<DataType> types;
  if (options.dtypes.empty()) {
#define ELTWISE_BENCH_TYPE(e, T, name) types.push_back(DataType::e);
    ELTWISE_FOR_EACH_DATA_TYPE(ELTWISE_BENCH_TYPE)
#undef ELTWISE_BENCH_TYPE
  } else {
    for (const std::string& name : options.dtypes) {
      const std::optional<DataType> t = ParseDataType(name);
      if (!t) Fail(InvalidArgument("--dtype '" + name + "' is not a data type"));
      types.push_back(*t);
    }
  }
  std::vector<uint64_t> sizes;
  for (const std::string& text : options.sizes) {
    const std::optional<uint64_t> b = ParseBytes(text);
    if (!b || *b == 0)
      Fail(InvalidArgument("--sizes '" + text + "' is not a byte count (e.g. 4K, 64M)"));
    sizes.push_back(*b);
  }
  // Each op's option value, named by --<field> (checked by CLI::IsMember).
  auto option_of = [&](const OpInfo& info) {
    const auto& names = info.option.names;
    const std::string& value = options.option_values.at(std::string(info.option.field));
    return static_cast<int>(std::find(names.begin(), names.end(), value) - names.begin());
  };

  std::printf("device: %s\n", device.description().c_str());
  std::printf("%-6s %-22s %-9s %-10s %12s %3s %10s %9s %9s %7s  %s\n", "op", "mode", "dtype",
              "layout", "elements", "thr", "time", "GB/s", "copy GB/s", "ratio", "baseline");
  std::vector<Record> records;
  // Cases done of all (on stderr when it is a terminal; erased while a row is printed).
  Progress progress("bench",
                    options.ops.size() * types.size() * options.layouts.size() * sizes.size(),
                    Progress::Unit::kCases, !options.quiet && StderrIsTerminal());
  uint64_t cases_done = 0;
  for (const std::string& op_name : options.ops) {
    const OpInfo& info = Info(*ParseOp(op_name));
    const int option = option_of(info);
    for (DataType type : types) {
      for (const std::string& layout : options.layouts) {
        for (uint64_t bytes : sizes) {
          std::optional<Shapes> shapes = MakeShapes(layout, type, bytes);
          if (!shapes) Fail(InvalidArgument("--layouts '" + layout + "' is not a layout"));
          const bool in_place = layout == "inplace";
          const bool same_buffer = in_place || layout.starts_with("overlap");
          const OperatorDesc desc = MakeDesc(info.op, option, shapes->input, shapes->output);
          Expected<CompiledOperator> compiled = Compile(device, desc);
          if (!compiled.ok()) Fail(compiled.status(), op_name + " " + std::string(Name(type)));
          std::optional<CompiledOperator> compiled_one;
          if (one_thread) compiled_one = *Compile(*one_thread, desc);

          const uint64_t esize = ElementSize(type);
          const uint64_t payload = shapes->elements * esize;  // bytes of output elements
          DeviceBuffer input(
              device, std::max(shapes->input_bytes, shapes->output_shift + shapes->output_bytes));
          DeviceBuffer output(device, same_buffer ? 16 : shapes->output_bytes);
          const std::vector<std::byte> host = RandomBytes(type, shapes->input_bytes / esize);
          if (Status s = CopyToDevice(device, input.data, host.data(), host.size()); !s.ok())
            Fail(s);
          void* out_data = same_buffer ? static_cast<std::byte*>(input.data) + shapes->output_shift
                                       : output.data;
          const uint64_t out_size = in_place ? shapes->input_bytes : shapes->output_bytes;
          // Copy baselines use same-size scratch buffers with the payload's byte count.
          DeviceBuffer copy_src(device, payload), copy_dst(device, payload);
          {  // every page of the copy source holds real data (untouched pages read as one zero
             // page)
            const std::vector<std::byte> fill = RandomBytes(DataType::kUInt8, payload);
            if (Status s = CopyToDevice(device, copy_src.data, fill.data(), payload); !s.ok())
              Fail(s);
          }

          auto run_op = [&](int reps) {
            for (int r = 0; r < reps; ++r) {
              const Status s =
                  compiled->Execute({input.data, shapes->input_bytes}, {out_data, out_size});
              if (!s.ok()) Fail(s, "execute");
            }
            if (Status s = Synchronize(device); !s.ok()) Fail(s);
          };
          auto run_one_thread = [&](int reps) {
            for (int r = 0; r < reps; ++r) {
              const Status s =
                  compiled_one->Execute({input.data, shapes->input_bytes}, {out_data, out_size});
              if (!s.ok()) Fail(s, "execute");
            }
          };
          auto run_memcpy = [&](int reps) {
            if (!cpu) {
              for (int r = 0; r < reps; ++r) {
                if (Status s = CopyOnDevice(device, copy_dst.data, copy_src.data, payload); !s.ok())
                  Fail(s);
              }
              if (Status s = Synchronize(device); !s.ok()) Fail(s);
              return;
            }
            auto* src = static_cast<const std::byte*>(copy_src.data);
            auto* dst = static_cast<std::byte*>(copy_dst.data);
            (copy_threads == 1 ? single : team).Run(reps, [&](int t, int n) {
              const auto [b, e] = Part(payload, t, n);
              if (layout == "broadcast") {
                std::memset(dst + b, 0x3f, e - b);
              } else {
                std::memcpy(dst + b, src + b, e - b);
              }
            });
          };
          auto run_loop = [&](int reps) {
            auto* src = static_cast<std::byte*>(copy_src.data);
            auto* dst = in_place ? src : static_cast<std::byte*>(copy_dst.data);
            (copy_threads == 1 ? single : team).Run(reps, [&](int t, int n) {
              const auto [b, e] = Part(payload, t, n);
              CopyLoop(src + b, dst + b, e - b);
            });
          };

          Record rec;
          rec.op = op_name;
          rec.mode = std::string(info.option.names[option]);
          rec.dtype = std::string(Name(type));
          rec.layout = layout;
          rec.device = device.description();
          rec.elements = shapes->elements;
          rec.threads = threads;
          rec.bytes_moved = layout == "broadcast" ? payload : 2 * payload;
          // Interleave the measurements so that drift (other load, frequency) hits all alike.
          // The copies run on 1 and on `threads` threads; the faster counts (a copy on fewer
          // threads is a valid, and for small sizes faster, copy at this thread count).
          double op_s = INFINITY, memcpy_s = INFINITY, loop_s = INFINITY, one_s = INFINITY;
          for (int round = 0; round < 2; ++round) {
            op_s = std::min(op_s, SecondsPerCall(run_op, options.min_time, options.repeats));
            if (compiled_one) {
              one_s = std::min(one_s,
                               SecondsPerCall(run_one_thread, options.min_time, options.repeats));
            }
            for (int t : {1, team.threads()}) {
              copy_threads = t;
              if (!in_place || !cpu) {
                memcpy_s = std::min(memcpy_s,
                                    SecondsPerCall(run_memcpy, options.min_time, options.repeats));
              }
              if (cpu && layout != "broadcast") {
                loop_s =
                    std::min(loop_s, SecondsPerCall(run_loop, options.min_time, options.repeats));
              }
              if (team.threads() == 1) break;
            }
          }
          rec.seconds = op_s;
          rec.one_thread_seconds = compiled_one ? one_s : 0;
          rec.memcpy_seconds = std::isinf(memcpy_s) ? 0 : memcpy_s;
          rec.copy_loop_seconds = std::isinf(loop_s) ? 0 : loop_s;
          if (!cpu) {
            rec.copy_seconds = memcpy_s;
            rec.baseline = "CopyOnDevice";
          } else if (in_place) {
            rec.copy_seconds = loop_s;
            rec.baseline = "in-place copy loop";
          } else if (layout == "broadcast") {
            rec.copy_seconds = memcpy_s;
            rec.baseline = "memset";
          } else {
            rec.copy_seconds = std::min(memcpy_s, loop_s);
            rec.baseline = memcpy_s <= loop_s ? "memcpy" : "copy loop";
          }
          const double ratio = rec.copy_seconds / rec.seconds;
          progress.Clear();
          std::printf("%-6s %-22s %-9s %-10s %12" PRIu64 " %3d %8.3gus %9.2f %9.2f %7.3f  %s",
                      rec.op.c_str(), rec.mode.c_str(), rec.dtype.c_str(), layout.c_str(),
                      rec.elements, threads, op_s * 1e6, rec.bytes_moved / op_s / 1e9,
                      rec.bytes_moved / rec.copy_seconds / 1e9, ratio, rec.baseline.c_str());
          if (compiled_one) std::printf("  time/1-thread %.3f", op_s / one_s);
          std::printf("\n");
          std::fflush(stdout);
          records.push_back(std::move(rec));
          progress.Update(++cases_done);
        }
      }
    }
  }
  if (!options.json.empty()) WriteJson(options.json, records);
}

void AddBenchCommand(CLI::App& app) {
  CLI::App* bench = app.add_subcommand(
      "bench", "Measure operator throughput against a copy of the same bytes in the same run");
  auto options = std::make_shared<BenchOptions>();
  AddDeviceOptions(*bench, options->device);
  bench->add_option("--threads", options->threads, "CPU threads (0: all hardware threads)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  std::string op_names;
  for (const std::string& name : OpNames()) op_names += " " + name;
  bench->add_option("--ops", options->ops, "Operators:" + op_names)->capture_default_str();
  bench->add_option("--dtypes", options->dtypes, "Data types (default: all)");
  bench
      ->add_option("--layouts", options->layouts,
                   "Layouts: contiguous inplace transposed broadcast rows gathered (input stride "
                   "2) gathered3 gathered4 (input strides 3 and 4) overlap (rows compacted within "
                   "their own buffer) overlap_cross (the same, "
                   "output meeting its input at the middle row) overlap_transpose (a square "
                   "matrix transposed onto itself) overlap_reverse (a vector reversed onto "
                   "itself)")
      ->capture_default_str();
  bench->add_option("--sizes", options->sizes, "Output sizes in bytes (suffix K, M, G)")
      ->capture_default_str();
  for (const OpInfo& info : AllOps()) {
    const std::string field(info.option.field);
    const std::vector<std::string> values(info.option.names.begin(), info.option.names.end());
    bench
        ->add_option("--" + field, options->option_values[field],
                     std::string(info.option.help) + " (" + std::string(info.name) + ")")
        ->check(CLI::IsMember(values))
        ->capture_default_str();
  }
  bench->add_option("--min-time", options->min_time, "Seconds per timed batch")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  bench->add_option("--repeats", options->repeats, "Timed batches per measurement (best is kept)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  bench
      ->add_option("--clock", options->clock,
                   "wall, or cpu: process CPU time, which ignores time descheduled on a busy "
                   "machine (meaningful with --threads 1: idle workers would count otherwise)")
      ->check(CLI::IsMember({"wall", "cpu"}))
      ->capture_default_str();
  bench
      ->add_option("--busy", options->busy,
                   "Keep this many cores busy with spinning threads meanwhile, and also time each "
                   "call on one thread: prints time/1-thread (how a parallel call copes with a "
                   "busy machine)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  bench->add_option("--json", options->json, "Also write the records to this JSON file");
  bench->add_flag("--quiet,-q", options->quiet,
                  "No progress bar (shown on stderr when it is a terminal and the run takes more "
                  "than a second)");
  bench->callback([options] {
    for (const std::string& op : options->ops) {
      if (!ParseOp(op)) {
        std::string names;
        for (const std::string& name : OpNames()) names += (names.empty() ? "" : ", ") + name;
        Fail(InvalidArgument("--ops '" + op + "' is not an operator (" + names + ")"));
      }
    }
    g_cpu_clock = options->clock == "cpu";
    RunBench(*options);
  });
}

}  // namespace
ELTWISE_CLI_COMMAND("bench", AddBenchCommand);
}  // namespace eltwise::cli
