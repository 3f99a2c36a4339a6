// eltwise_native_peers: times Round (halves to nearest even) in the C/C++ peers that have no Python
// binding here, XNNPACK (bankers rounding) and oneDNN (eltwise_round), on contiguous, out-of-place
// 1-D tensors, and checks their results bit for bit against eltwise's reference kernel. Neither
// library has Sign. Used by bench/compare_peers.py.
//
//   eltwise_native_peers [--dtypes float32 bfloat16 ...] [--sizes 4K 256K 64M ...]
//                        [--min-time 0.05] [--libraries xnnpack onednn] [--exhaustive]
//
// Prints one JSON array to stdout. Per library and dtype it supports, one record per size:
//   {"library", "op": "round", "dtype", the machine (MachineJson: "cpu", cache sizes), "bytes"
//   (output bytes), "seconds" (best per call),
//    "threads", "implementation" (oneDNN's kernel), "checked" (values compared), "mismatches" (bit
//    patterns that differ from the exact result), "differences": [{"kind", "count", "example"}]}
// and per dtype it does not support one record {"library", "op", "dtype", "unsupported": reason}.
// Skips and differences are also reported on stderr.
//
// Timing follows compare_peers.py's best_seconds: one warm-up call, repetitions calibrated to
// --min-time, the best of 5 batches (tools/bench/timing.h). Operators and primitives are created
// once per case, outside the timed loop; the output starts half a page from the input's page
// offset. XNNPACK runs on a pthreadpool of all hardware threads, oneDNN on its OpenMP default.
// Inputs are uniform in +-1000 (float16/bfloat16: +-62.5, as `eltwise bench`). The check runs every
// finite and special value class: +-0, +-0.5, +-1.5, +-2.5, their neighbours, NaNs (quiet and
// signalling, both signs, payloads), +-inf, subnormals, the largest values, every half up to 2^20
// and random bit patterns; float16 and bfloat16 are checked exhaustively (all 65536 patterns),
// float32 exhaustively with
// --exhaustive.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "bench/buffers.h"
#include "bench/json.h"
#include "bench/sizes.h"
#include "bench/timing.h"
#include "bench/values.h"
#include "core/function.h"
#include "cpu/kernel_dispatch.h"
#include "cpu/reference_kernels.h"
#include "eltwise/types.h"
#include "measure_support.h"

#if ELTWISE_HAVE_XNNPACK
#include <pthreadpool.h>
#include <xnnpack.h>
#endif
#if ELTWISE_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif

#ifndef ELTWISE_XNNPACK_VERSION
#define ELTWISE_XNNPACK_VERSION "unknown"
#endif

namespace {

using eltwise::DataType;
using eltwise::bench::AlignedBuffer;
using eltwise::bench::Bits;
using eltwise::bench::JsonString;
using eltwise::bench::kOutputSlack;
using eltwise::bench::OutputBeside;
using eltwise::bench::ToDouble;

// ---- check inputs -------------------------------------------------------------------------------

// The check's inputs (all patterns for 16-bit types).
std::vector<std::byte> CheckInputs(DataType type) {
  const size_t esize = eltwise::ElementSize(type);
  std::vector<std::byte> out;
  auto add_bits = [&](uint64_t b) {
    const size_t at = out.size();
    out.resize(at + esize);
    std::memcpy(out.data() + at, &b, esize);
  };
  if (esize == 2) {
    for (uint32_t b = 0; b < 65536; ++b) add_bits(b);
    return out;
  }
  auto add = [&](double v) {
    const size_t at = out.size();
    out.resize(at + esize);
    eltwise::bench::StoreValue(type, v, out.data() + at);
  };
  const bool f32 = type == DataType::kFloat32;
  const double big = f32 ? 8388608.0 : 4503599627370496.0;  // 2^mantissa bits: all integral above
  for (double v :
       {0.0,           0.25,          0.4,     0.49999997, 0.5,     0.50000006, 0.6,   1.0,
        1.4,           1.5,           1.6,     2.0,        2.5,     3.5,        4.5,   1e6 + 0.5,
        big / 2 - 0.5, big / 2 + 0.5, big - 1, big,        big + 2, 1e30,       1e300, HUGE_VAL}) {
    if (f32 && v > 3.5e38 && v != HUGE_VAL) continue;
    add(v);
    add(-v);
  }
  // NaNs (quiet, signalling, payloads, both signs), subnormals and the extremes, as bit patterns.
  const std::vector<uint64_t> special =
      f32 ? std::vector<uint64_t>{0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fa00000,
                                  0x7fc12345, 0xffffffff, 0x7fffffff, 0x00000001, 0x80000001,
                                  0x007fffff, 0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff,
                                  0xff7fffff, 0x3effffff, 0xbeffffff}
          : std::vector<uint64_t>{0x7ff8000000000000, 0xfff8000000000000, 0x7ff0000000000001,
                                  0xfff0000000000001, 0x7ff4000000000000, 0x0000000000000001,
                                  0x8000000000000001, 0x000fffffffffffff, 0x7fefffffffffffff,
                                  0xffefffffffffffff, 0x3fdfffffffffffff, 0xbfdfffffffffffff};
  for (uint64_t b : special) add_bits(b);
  // Every half k + 0.5 with |k| < 2^20 and its neighbours.
  for (int k = -(1 << 20); k < (1 << 20); ++k) {
    const double h = k + 0.5;
    add(h);
    if (f32) {
      add(std::nextafter(static_cast<float>(h), 0.0f));
      add(std::nextafter(static_cast<float>(h), static_cast<float>(2 * h)));
    } else {
      add(std::nextafter(h, 0.0));
      add(std::nextafter(h, 2 * h));
    }
  }
  // Random bit patterns: every exponent, NaNs and subnormals included.
  std::mt19937_64 rng(7);
  for (int i = 0; i < (1 << 22); ++i) add_bits(rng());
  return out;
}

// ---- peers --------------------------------------------------------------------------------------

// One case: an operator or primitive created and bound to (in, out, n) once; Run() computes it.
struct Case {
  virtual ~Case() = default;
  virtual void Run() = 0;
  virtual std::string Implementation() const { return ""; }  // the kernel chosen, where known
};

struct Peer {
  virtual ~Peer() = default;
  virtual std::string Name() const = 0;  // "<library> <version>"
  virtual int Threads() const = 0;
  // Creates the case, or throws std::runtime_error saying why the library cannot run it.
  virtual std::unique_ptr<Case> Prepare(DataType type, const std::byte* in, std::byte* out,
                                        size_t n) = 0;
};

#if ELTWISE_HAVE_XNNPACK
class XnnpackPeer : public Peer {
 public:
  XnnpackPeer() {
    if (xnn_initialize(nullptr) != xnn_status_success) {
      throw std::runtime_error("xnn_initialize failed (unsupported hardware?)");
    }
    pool_ = pthreadpool_create(0);  // one thread per hardware thread
  }
  ~XnnpackPeer() override {
    pthreadpool_destroy(pool_);
    xnn_deinitialize();
  }
  std::string Name() const override { return "xnnpack " ELTWISE_XNNPACK_VERSION; }
  int Threads() const override { return static_cast<int>(pthreadpool_get_threads_count(pool_)); }

  std::unique_ptr<Case> Prepare(DataType type, const std::byte* in, std::byte* out,
                                size_t n) override {
    // This XNNPACK has bankers rounding for f32 only (no xnn_create_bankers_rounding_nc_f16).
    if (type != DataType::kFloat32) {
      throw std::runtime_error("this XNNPACK has bankers rounding for f32 only");
    }
    auto c = std::make_unique<XnnpackCase>(pool_);
    // One channel, n rows, unit strides: XNNPACK runs it as one contiguous vector in tiles.
    if (xnn_create_bankers_rounding_nc_f32(1, 1, 1, 0, &c->op) != xnn_status_success ||
        xnn_setup_bankers_rounding_nc_f32(c->op, n, reinterpret_cast<const float*>(in),
                                          reinterpret_cast<float*>(out),
                                          pool_) != xnn_status_success) {
      throw std::runtime_error("xnn_create/setup_bankers_rounding_nc_f32 failed");
    }
    return c;
  }

 private:
  struct XnnpackCase : Case {
    explicit XnnpackCase(pthreadpool_t p) : pool(p) {}
    ~XnnpackCase() override {
      if (op != nullptr) xnn_delete_operator(op);
    }
    void Run() override {
      if (xnn_run_operator(op, pool) != xnn_status_success) {
        std::fprintf(stderr, "xnn_run_operator failed\n");
        std::exit(1);
      }
    }
    pthreadpool_t pool;
    xnn_operator_t op = nullptr;
  };
  pthreadpool_t pool_ = nullptr;
};
#endif

#if ELTWISE_HAVE_ONEDNN
class OnednnPeer : public Peer {
 public:
  OnednnPeer() : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {}
  std::string Name() const override {
    const dnnl_version_t* v = dnnl_version();
    return "onednn " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
           std::to_string(v->patch);
  }
  int Threads() const override {  // the OpenMP runtime's default: OMP_NUM_THREADS or all
    const char* env = std::getenv("OMP_NUM_THREADS");
    if (env != nullptr && std::atoi(env) > 0) return std::atoi(env);
    return static_cast<int>(std::thread::hardware_concurrency());
  }

  std::unique_ptr<Case> Prepare(DataType type, const std::byte* in, std::byte* out,
                                size_t n) override {
    using dt = dnnl::memory::data_type;
    dt t = dt::undef;
    switch (type) {
      case DataType::kFloat32:
        t = dt::f32;
        break;
      case DataType::kBFloat16:
        t = dt::bf16;
        break;
      case DataType::kFloat16:
        t = dt::f16;
        break;
      default:
        throw std::runtime_error("no " + std::string(eltwise::Name(type)) + " data type in " +
                                 Name());
    }
    const dnnl::memory::desc md({static_cast<dnnl::memory::dim>(n)}, t,
                                dnnl::memory::format_tag::a);
    auto c = std::make_unique<OnednnCase>(stream_);
    std::unique_ptr<dnnl::eltwise_forward::desc> desc;
    try {
      desc = std::make_unique<dnnl::eltwise_forward::desc>(
          dnnl::prop_kind::forward_inference, dnnl::algorithm::eltwise_round, md, 0.f, 0.f);
    } catch (const dnnl::error& e) {  // oneDNN 2.6 accepts eltwise_round on f32 sources only
      throw std::runtime_error("oneDNN accepts eltwise_round on f32 sources only (" +
                               std::string(e.what()) + ")");
    }
    try {
      const dnnl::eltwise_forward::primitive_desc pd(*desc, engine_);
      c->primitive = dnnl::eltwise_forward(pd);
      c->src = dnnl::memory(md, engine_, const_cast<std::byte*>(in));
      c->dst = dnnl::memory(md, engine_, out);
      c->args = {{DNNL_ARG_SRC, c->src}, {DNNL_ARG_DST, c->dst}};
      c->implementation = pd.impl_info_str();
    } catch (const dnnl::error& e) {
      throw std::runtime_error(Name() + " has no CPU implementation of " +
                               std::string(eltwise::Name(type)) + " eltwise_round here (" +
                               e.what() + ")");
    }
    return c;
  }

 private:
  struct OnednnCase : Case {
    explicit OnednnCase(dnnl::stream& s) : stream(s) {}
    void Run() override {
      primitive.execute(stream, args);
      stream.wait();
    }
    std::string Implementation() const override { return implementation; }
    dnnl::stream& stream;
    dnnl::primitive primitive;
    dnnl::memory src, dst;
    std::unordered_map<int, dnnl::memory> args;
    std::string implementation;
  };
  dnnl::engine engine_;
  dnnl::stream stream_;
};
#endif

// ---- timing and checking ------------------------------------------------------------------------

struct Difference {
  std::string kind, example;
  uint64_t count = 0;
};

struct CheckResult {
  uint64_t checked = 0, mismatches = 0;
  std::vector<Difference> differences;  // one per kind, in order of first appearance
};

bool IsNan(DataType type, const std::byte* p) { return std::isnan(ToDouble(type, p)); }

std::string Describe(DataType type, const std::byte* p) {
  const double v = ToDouble(type, p);
  char text[64];
  if (std::isnan(v)) {
    std::snprintf(text, sizeof text, "%sNaN", std::signbit(v) ? "-" : "");
  } else if (v == 0) {
    std::snprintf(text, sizeof text, "%s0", std::signbit(v) ? "-" : "+");
  } else {
    std::snprintf(text, sizeof text, "%.9g", v);
  }
  char bits[40];
  std::snprintf(bits, sizeof bits, " (0x%0*" PRIx64 ")",
                static_cast<int>(2 * eltwise::ElementSize(type)), Bits(type, p));
  return std::string(text) + bits;
}

// The kind of a difference between a peer's result and the exact one.
std::string Kind(DataType type, const std::byte* in, const std::byte* got, const std::byte* want) {
  const bool nan_in = IsNan(type, in), nan_got = IsNan(type, got), nan_want = IsNan(type, want);
  if (nan_in && nan_got && nan_want) {
    const int quiet_bit = type == DataType::kFloat32    ? 22
                          : type == DataType::kFloat64  ? 51
                          : type == DataType::kBFloat16 ? 6
                                                        : 9;
    const uint64_t q = uint64_t{1} << quiet_bit;
    if ((Bits(type, got) | q) == (Bits(type, in) | q)) {
      return "signalling NaN quieted, payload and sign kept";
    }
    return "NaN bits changed";
  }
  if (nan_want != nan_got) return "NaN vs number";
  const double g = ToDouble(type, got), w = ToDouble(type, want);
  if (g == 0 && w == 0) return "sign of zero";
  return "value";
}

void Compare(DataType type, const std::byte* in, const std::byte* got, const std::byte* want,
             size_t n, CheckResult& result) {
  const size_t esize = eltwise::ElementSize(type);
  result.checked += n;
  for (size_t i = 0; i < n; ++i) {
    const size_t at = i * esize;
    if (std::memcmp(got + at, want + at, esize) == 0) continue;
    ++result.mismatches;
    const std::string kind = Kind(type, in + at, got + at, want + at);
    auto d = std::find_if(result.differences.begin(), result.differences.end(),
                          [&](const Difference& x) { return x.kind == kind; });
    if (d == result.differences.end()) {
      result.differences.push_back({kind,
                                    Describe(type, in + at) + " -> " + Describe(type, got + at) +
                                        ", exact " + Describe(type, want + at),
                                    0});
      d = result.differences.end() - 1;
    }
    ++d->count;
  }
}

// Runs the peer once on `inputs` and compares with the reference kernel.
void CheckChunk(Peer& peer, DataType type, const std::byte* inputs, size_t n, CheckResult& result) {
  const size_t esize = eltwise::ElementSize(type);
  AlignedBuffer out(n * esize + kOutputSlack), want(n * esize);
  std::byte* got = OutputBeside(out, inputs);
  std::unique_ptr<Case> c = peer.Prepare(type, inputs, got, n);
  c->Run();
  eltwise::ReferenceKernels().Contiguous(eltwise::Function::kRoundHalvesToNearestEven, type)(
      inputs, want.data(), n);
  Compare(type, inputs, got, want.data(), n, result);
}

CheckResult Check(Peer& peer, DataType type, bool exhaustive) {
  CheckResult result;
  if (exhaustive && type == DataType::kFloat32) {
    const size_t chunk = size_t{1} << 24;
    AlignedBuffer in(chunk * 4);
    for (uint64_t start = 0; start < (uint64_t{1} << 32); start += chunk) {
      for (size_t i = 0; i < chunk; ++i) {
        const uint32_t b = static_cast<uint32_t>(start + i);
        std::memcpy(in.data() + 4 * i, &b, 4);
      }
      CheckChunk(peer, type, in.data(), chunk, result);
    }
    return result;
  }
  const std::vector<std::byte> inputs = CheckInputs(type);
  const size_t esize = eltwise::ElementSize(type);
  AlignedBuffer in(inputs.size());
  std::memcpy(in.data(), inputs.data(), inputs.size());
  CheckChunk(peer, type, in.data(), inputs.size() / esize, result);
  return result;
}

// ---- command line and output --------------------------------------------------------------------

void Usage() {
  std::fprintf(stderr,
               "usage: eltwise_native_peers [--dtypes float32 bfloat16 float16 ...] [--sizes 4K "
               "256K 64M ...]\n"
               "                            [--min-time SECONDS] [--libraries xnnpack onednn] "
               "[--exhaustive]\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> dtypes = {"float32", "float16", "bfloat16", "float64"};
  std::vector<std::string> size_names = {"4K", "256K", "4M", "64M"};
  std::vector<std::string> libraries = {"xnnpack", "onednn"};
  // As compare_peers.py's best_seconds: the best of 5 batches.
  eltwise::bench::TimingOptions timing{.min_time = 0.05, .repeats = 5};
  bool exhaustive = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto list = [&](std::vector<std::string>& into) {
      into.clear();
      while (i + 1 < argc && argv[i + 1][0] != '-') into.push_back(argv[++i]);
    };
    if (arg == "--dtypes") {
      list(dtypes);
    } else if (arg == "--sizes") {
      list(size_names);
    } else if (arg == "--libraries") {
      list(libraries);
    } else if (arg == "--min-time" && i + 1 < argc) {
      timing.min_time = std::atof(argv[++i]);
    } else if (arg == "--exhaustive") {
      exhaustive = true;
    } else {
      Usage();
      return arg == "--help" || arg == "-h" ? 0 : 2;
    }
  }
  std::vector<uint64_t> sizes;
  for (const std::string& name : size_names) {
    const std::optional<uint64_t> bytes = eltwise::bench::ParseByteCount(name);
    if (!bytes) {
      std::fprintf(stderr, "eltwise_native_peers: '%s' is not a size\n", name.c_str());
      return 2;
    }
    sizes.push_back(*bytes);
  }

  std::vector<std::unique_ptr<Peer>> peers;
  for (const std::string& name : libraries) {
    try {
#if ELTWISE_HAVE_XNNPACK
      if (name == "xnnpack") {
        peers.push_back(std::make_unique<XnnpackPeer>());
        continue;
      }
#endif
#if ELTWISE_HAVE_ONEDNN
      if (name == "onednn") {
        peers.push_back(std::make_unique<OnednnPeer>());
        continue;
      }
#endif
      std::fprintf(stderr, "%s: not built into eltwise_native_peers\n", name.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
    }
  }

  std::vector<std::string> records;
  for (const std::string& dtype_name : dtypes) {
    const std::optional<DataType> type = eltwise::ParseDataType(dtype_name);
    if (!type || !eltwise::IsFloatingPoint(*type)) {
      std::fprintf(stderr, "skipping %s: Round is timed on floating-point types only\n",
                   dtype_name.c_str());
      continue;
    }
    const std::string dtype(eltwise::Name(*type));
    const size_t esize = eltwise::ElementSize(*type);
    for (auto& peer : peers) {
      const std::string head = "{\"library\": " + JsonString(peer->Name()) +
                               ", \"op\": \"round\", \"dtype\": " + JsonString(dtype) + ", " +
                               eltwise::bench::MachineJson();
      CheckResult check;
      try {
        check = Check(*peer, *type, exhaustive);
      } catch (const std::runtime_error& e) {
        std::fprintf(stderr, "%s: skipping round %s: %s\n", peer->Name().c_str(), dtype.c_str(),
                     e.what());
        records.push_back(head + ", \"unsupported\": " + JsonString(e.what()) + "}");
        continue;
      }
      std::string check_json = ", \"checked\": " + std::to_string(check.checked) +
                               ", \"mismatches\": " + std::to_string(check.mismatches) +
                               ", \"differences\": [";
      for (size_t d = 0; d < check.differences.size(); ++d) {
        const Difference& x = check.differences[d];
        check_json += (d ? ", " : "") + std::string("{\"kind\": ") + JsonString(x.kind) +
                      ", \"count\": " + std::to_string(x.count) +
                      ", \"example\": " + JsonString(x.example) + "}";
        std::fprintf(stderr,
                     "%s round %s differs from round-half-to-even: %s (%" PRIu64 " of %" PRIu64
                     " checked), e.g. %s\n",
                     peer->Name().c_str(), dtype.c_str(), x.kind.c_str(), x.count, check.checked,
                     x.example.c_str());
      }
      check_json += "]";
      if (check.mismatches == 0) {
        std::fprintf(stderr, "%s round %s: bit-exact on all %" PRIu64 " checked values\n",
                     peer->Name().c_str(), dtype.c_str(), check.checked);
      }

      for (const uint64_t bytes : sizes) {
        const size_t n = std::max<size_t>(bytes / esize, 1);
        AlignedBuffer in(n * esize), out(n * esize + kOutputSlack);
        eltwise::bench::FillRandomValues(*type, in.data(), n);
        std::unique_ptr<Case> c = peer->Prepare(*type, in.data(), OutputBeside(out, in.data()), n);
        const double seconds = eltwise::bench::BestSecondsPerCall(
            [&c](int64_t calls) {
              for (int64_t i = 0; i < calls; ++i) c->Run();
            },
            timing);
        char timing[128];
        std::snprintf(timing, sizeof timing, ", \"bytes\": %zu, \"seconds\": %.6e, \"threads\": %d",
                      n * esize, seconds, peer->Threads());
        const std::string implementation = c->Implementation();
        records.push_back(
            head + timing +
            (implementation.empty() ? "" : ", \"implementation\": " + JsonString(implementation)) +
            check_json + "}");
      }
    }
  }
  std::fputs(eltwise::bench::JsonArray(records).c_str(), stdout);
  return 0;
}
