// eltwise_transpose_peers: a transposed or permuted input written packed, the same shapes as
// `eltwise bench`'s layouts (tools/bench/layouts.h: transposed, nchw_to_nhwc, nhwc_to_nchw,
// batched_transpose), timed in
//   - eltwise: Sign, a fused transpose + op (and the same call on 1 thread);
//   - oneDNN: a reorder from the strided input to the packed output (libdnnl-dev, when found);
//   - memcpy of the same bytes on the same threads (what the memory gives them together);
//   - HPTT: a pure transposition (float and double only), when built with ELTWISE_HPTT_DIR
//     (bench/CMakeLists.txt; HPTT is never part of this tree);
// each held against a single-threaded memcpy of the same output bytes timed in the same rounds
// (ratio = memcpy time / its time: 1 is the speed of a copy). The measurements of one case
// alternate, round by round, so that drift hits them alike; the best of each counts.
//
//   eltwise_transpose_peers [--layouts ...] [--sizes 256K 4M 64M] [--esizes 1 2 4 8]
//                           [--threads 2] [--rounds 5] [--min-time 0.05] [--small-pages]
//                           [--neighbour-pool N]
//
// Buffers are on transparent huge pages (madvise, as NumPy's large arrays) unless --small-pages.
// --neighbour-pool N keeps an OpenMP team of N threads in the process that runs a parallel region
// between calls (as a BLAS or PyTorch does in a Python session): the swings it causes are what it
// shows. Every peer's output is compared bit for bit with a plain loop's permutation of the
// input; a mismatch fails the run. Prints a table, and with --json a JSON array of records.
#include <sys/mman.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/baselines.h"
#include "bench/failure.h"
#include "bench/json.h"
#include "bench/layouts.h"
#include "bench/sizes.h"
#include "bench/threads.h"
#include "bench/timing.h"
#include "cpu/thread_pool.h"
#include "eltwise/eltwise.h"
#include "measure_support.h"

#if ELTWISE_HAVE_ONEDNN
#include <oneapi/dnnl/dnnl.hpp>
#endif
#if ELTWISE_HAVE_HPTT
#include <hptt.h>
#endif
#if ELTWISE_HAVE_OPENMP
#include <omp.h>
#endif

namespace eltwise::bench {
namespace {

// Anonymous memory of `bytes`, 2 MiB aligned, on transparent huge pages when asked (faulted in by
// the first write).
class PageBuffer {
 public:
  PageBuffer(size_t bytes, bool huge) : size_(std::max<size_t>(bytes, 1)) {
    constexpr size_t kHuge = size_t{2} << 20;
    mapped_ = size_ + kHuge;
    void* p = mmap(nullptr, mapped_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap of " + std::to_string(mapped_) + " bytes");
    base_ = static_cast<std::byte*>(p);
    const uintptr_t start = reinterpret_cast<uintptr_t>(base_);
    data_ = base_ + ((kHuge - start % kHuge) % kHuge);
    if (huge) madvise(data_, size_, MADV_HUGEPAGE);
  }
  ~PageBuffer() { munmap(base_, mapped_); }
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;
  std::byte* data() const { return data_; }

 private:
  size_t size_, mapped_;
  std::byte* base_;
  std::byte* data_;
};

struct Dim {
  uint64_t size;
  int64_t in;  // input stride, elements
};

// The output's dims (outermost first) with their input strides, size-1 dims dropped.
std::vector<Dim> OutputDims(const Shapes& s) {
  std::vector<Dim> dims;
  for (size_t d = 0; d < s.output.sizes.size(); ++d) {
    if (s.output.sizes[d] != 1) dims.push_back({s.output.sizes[d], (*s.input.strides)[d]});
  }
  return dims;
}

// out[i] = in[input offset of i] over a packed output: the independent permutation the peers'
// results are checked against.
void PermuteByLoop(const Shapes& s, size_t esize, const std::byte* in, std::byte* out) {
  const std::vector<Dim> dims = OutputDims(s);
  std::vector<uint64_t> index(dims.size(), 0);
  for (uint64_t i = 0; i < s.elements; ++i) {
    int64_t offset = 0;
    for (size_t d = 0; d < dims.size(); ++d) offset += static_cast<int64_t>(index[d]) * dims[d].in;
    std::memcpy(out + i * esize, in + offset * static_cast<int64_t>(esize), esize);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++index[d] < dims[d].size) break;
      index[d] = 0;
    }
  }
}

struct Peer {
  std::string name;
  int threads;
  std::function<void()> call;
  bool checked;           // its output is the pure permutation (not eltwise's Sign)
  Batch batch = nullptr;  // `calls` calls at once, where one call alone would cost more (a team)
};

struct Measured {
  std::string name;
  int threads;
  double seconds;
};

DataType TypeOfSize(int esize) {
  switch (esize) {
    case 1:
      return *ParseDataType("int8");
    case 2:
      return *ParseDataType("float16");
    case 4:
      return *ParseDataType("float32");
    default:
      return *ParseDataType("float64");
  }
}

#if ELTWISE_HAVE_ONEDNN
std::optional<dnnl::memory::data_type> OnednnType(int esize) {
  using dt = dnnl::memory::data_type;
  switch (esize) {
    case 1:
      return dt::s8;
    case 2:
      return dt::f16;
    case 4:
      return dt::f32;
    default:
      return std::nullopt;  // oneDNN 2.6's CPU reorder has no f64
  }
}

// A reorder from the strided input to the packed output, on oneDNN's default threading (OpenMP:
// the thread count is set with omp_set_num_threads by the caller).
std::optional<Peer> OnednnPeer(const Shapes& s, int esize, int threads, const std::byte* in,
                               std::byte* out) {
  const std::optional<dnnl::memory::data_type> type = OnednnType(esize);
  if (!type) return std::nullopt;
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  static dnnl::stream stream(engine);
  dnnl::memory::dims sizes, in_strides, out_strides;
  const std::vector<int64_t> packed = PackedStrides(s.output.sizes);
  for (size_t d = 0; d < s.output.sizes.size(); ++d) {
    sizes.push_back(static_cast<dnnl::memory::dim>(s.output.sizes[d]));
    in_strides.push_back((*s.input.strides)[d]);
    out_strides.push_back(packed[d]);
  }
  try {
    auto src = std::make_shared<dnnl::memory>(dnnl::memory::desc(sizes, *type, in_strides), engine,
                                              const_cast<std::byte*>(in));
    auto dst =
        std::make_shared<dnnl::memory>(dnnl::memory::desc(sizes, *type, out_strides), engine, out);
    auto reorder = std::make_shared<dnnl::reorder>(*src, *dst);
    return Peer{"oneDNN reorder", threads,
                [=] {
                  reorder->execute(stream, *src, *dst);
                  stream.wait();
                },
                true};
  } catch (const dnnl::error& e) {
    std::fprintf(stderr, "oneDNN: no reorder for this case: %s\n", e.what());
    return std::nullopt;
  }
}
#endif

#if ELTWISE_HAVE_HPTT
// HPTT's plan for the same permutation, row-major: A is the input in its memory order (dims by
// falling input stride), B the packed output; B's dim k is A's dim perm[k].
template <class T>
std::optional<Peer> HpttPeer(const Shapes& s, int threads, const std::byte* in, std::byte* out) {
  const std::vector<Dim> dims = OutputDims(s);
  std::vector<int> order(dims.size());  // A's dims, outermost first, as output dim indices
  for (size_t d = 0; d < dims.size(); ++d) order[d] = static_cast<int>(d);
  std::sort(order.begin(), order.end(), [&](int a, int b) { return dims[a].in > dims[b].in; });
  std::vector<int> size_a(dims.size()), perm(dims.size());
  for (size_t k = 0; k < dims.size(); ++k) size_a[k] = static_cast<int>(dims[order[k]].size);
  for (size_t k = 0; k < dims.size(); ++k) {
    perm[k] = static_cast<int>(std::find(order.begin(), order.end(), static_cast<int>(k)) -
                               order.begin());
  }
  auto plan = hptt::create_plan(perm.data(), static_cast<int>(dims.size()), T(1),
                                reinterpret_cast<const T*>(in), size_a.data(), nullptr, T(0),
                                reinterpret_cast<T*>(out), nullptr, hptt::ESTIMATE, threads,
                                nullptr, /*useRowMajor=*/true);
  if (!plan) return std::nullopt;
  return Peer{"HPTT", threads, [plan] { plan->execute(); }, true};
}
#endif

// A parallel region of `threads` OpenMP threads after each call: a neighbouring pool that is
// active between eltwise's calls, its threads spinning or sleeping by OMP_WAIT_POLICY.
void NeighbourWork(int threads) {
#if ELTWISE_HAVE_OPENMP
  double total = 0;
#pragma omp parallel for num_threads(threads) reduction(+ : total)
  for (int i = 0; i < 20000; ++i) total += std::sqrt(static_cast<double>(i));
  asm volatile("" : : "g"(total));  // kept: the work is the point
#else
  (void)threads;
#endif
}

int Run(int argc, char** argv) {
  std::vector<std::string> layouts{"transposed", "nchw_to_nhwc", "nhwc_to_nchw",
                                   "batched_transpose"};
  std::vector<std::string> sizes{"256K", "4M", "64M"};
  std::vector<int> esizes{1, 2, 4, 8};
  int threads = 2, rounds = 5, neighbour = 0;
  double min_time = 0.05;
  bool small_pages = false;
  std::string json_path;
  CLI::App app("Transposed and permuted inputs written packed: eltwise against its peers");
  app.add_option("--layouts", layouts, "transposed nchw_to_nhwc nhwc_to_nchw batched_transpose");
  app.add_option("--sizes", sizes, "Output sizes in bytes (suffix K, M, G)");
  app.add_option("--esizes", esizes, "Element sizes: 1 (int8) 2 (float16) 4 (float32) 8 (float64)")
      ->check(CLI::IsMember({1, 2, 4, 8}));
  app.add_option("--threads", threads, "Threads of the parallel calls")->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds, "Alternation rounds (best counts)")
      ->check(CLI::PositiveNumber);
  app.add_option("--min-time", min_time, "Seconds per timed batch")->check(CLI::PositiveNumber);
  app.add_flag("--small-pages", small_pages, "4 KiB pages instead of transparent huge pages");
  std::vector<std::string> peer_names{"memcpy", "eltwise", "onednn", "hptt"};
  app.add_option("--peers", peer_names,
                 "memcpy eltwise onednn hptt. oneDNN's and HPTT's OpenMP threads spin after their "
                 "calls, slowing whatever runs next in the process unless OMP_WAIT_POLICY=PASSIVE "
                 "(which slows their small calls): time them apart for fair figures")
      ->check(CLI::IsMember({"memcpy", "eltwise", "onednn", "hptt"}));
  app.add_option("--neighbour-pool", neighbour,
                 "Threads of an OpenMP team that works between calls (0: none)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--json", json_path, "Also write the records to this JSON file");
  CLI11_PARSE(app, argc, argv);
  const auto wanted = [&](const char* name) {
    return std::find(peer_names.begin(), peer_names.end(), name) != peer_names.end();
  };
#if ELTWISE_HAVE_OPENMP
  omp_set_num_threads(threads);  // oneDNN's and HPTT's team
#endif

  Expected<Device> device = Device::Cpu({.threads = threads});
  Expected<Device> one = Device::Cpu({.threads = 1});
  ThrowIfFailed(device.status(), "device");
  ThrowIfFailed(one.status(), "device");
  TimingOptions timing;
  timing.min_time = min_time;
  timing.repeats = 1;  // the rounds give the best of `rounds`

  std::string json = "[";
  std::printf(
      "| layout | bytes | esize | peer | threads | copy / peer | calls with a capped pool |\n"
      "|---|---|---|---|---|---|---|\n");
  for (const std::string& layout_name : layouts) {
    const std::optional<Layout> layout = ParseLayout(layout_name);
    if (!layout) throw std::runtime_error("unknown layout " + layout_name);
    for (const std::string& size_text : sizes) {
      const std::optional<uint64_t> bytes = ParseByteCount(size_text);
      if (!bytes) throw std::runtime_error("bad size " + size_text);
      for (int esize : esizes) {
        const DataType type = TypeOfSize(esize);
        const Shapes s = MakeShapes(*layout, type, *bytes);
        const uint64_t out_bytes = s.output_bytes;
        PageBuffer in(s.input_bytes, !small_pages), out(out_bytes, !small_pages),
            copy_out(out_bytes, !small_pages), want(out_bytes, false);
        for (uint64_t i = 0; i < s.input_bytes; ++i) {  // no NaN or special values needed
          in.data()[i] = static_cast<std::byte>((i * 7 + 3) % 61);
        }
        std::memset(out.data(), 0, out_bytes);
        std::memset(copy_out.data(), 0, out_bytes);
        PermuteByLoop(s, static_cast<size_t>(esize), in.data(), want.data());

        std::vector<Peer> peers;
        const Team team(threads);
        if (wanted("memcpy") && threads != 1 &&
            neighbour == 0) {  // what the memory gives the threads together
          peers.push_back({"memcpy", threads, nullptr, false, [&](int64_t calls) {
                             RunBaseline(Baseline::kMemcpy, in.data(), copy_out.data(), out_bytes,
                                         team, calls);
                           }});
        }
        Expected<CompiledOperator> sign = Compile(*device, SignDesc{s.input, s.output});
        Expected<CompiledOperator> sign1 = Compile(*one, SignDesc{s.input, s.output});
        ThrowIfFailed(sign.status(), "compile");
        ThrowIfFailed(sign1.status(), "compile");
        const ConstBinding in_binding{in.data(), s.input_bytes};
        const Binding out_binding{out.data(), out_bytes};
        // Calls that found the pool's helper cap lowered by a stall (thread_pool.h): the cause
        // of slow calls beside a neighbouring pool, when it is the cause.
        int64_t calls = 0, capped = 0;
        const size_t pooled_peer = wanted("eltwise") && threads > 1 ? peers.size() : SIZE_MAX;
        if (wanted("eltwise")) {
          peers.push_back({"eltwise Sign", threads,
                           [&] {
                             ThrowIfFailed(sign->Execute(in_binding, out_binding), "execute");
                             ++calls;
                             if (ThreadPool::Global().CurrentContention().helper_cap <
                                 threads - 1) {
                               ++capped;
                             }
                           },
                           false});
        }
        if (wanted("eltwise") && threads != 1) {
          peers.push_back(
              {"eltwise Sign", 1,
               [&] { ThrowIfFailed(sign1->Execute(in_binding, out_binding), "execute"); }, false});
        }
#if ELTWISE_HAVE_ONEDNN
        if (wanted("onednn")) {
          if (auto p = OnednnPeer(s, esize, threads, in.data(), out.data())) peers.push_back(*p);
        }
#endif
#if ELTWISE_HAVE_HPTT
        if (wanted("hptt") && esize == 4) {
          if (auto p = HpttPeer<float>(s, threads, in.data(), out.data())) peers.push_back(*p);
        } else if (wanted("hptt") && esize == 8) {
          if (auto p = HpttPeer<double>(s, threads, in.data(), out.data())) peers.push_back(*p);
        }
#endif
        // Every checked peer's result, before timing.
        for (const Peer& p : peers) {
          if (!p.checked || !p.call) continue;
          std::memset(out.data(), 0, out_bytes);
          p.call();
          if (std::memcmp(out.data(), want.data(), out_bytes) != 0) {
            std::fprintf(stderr, "%s: wrong permutation for %s %s esize %d\n", p.name.c_str(),
                         layout_name.c_str(), size_text.c_str(), esize);
            return 1;
          }
        }
        double copy_best = INFINITY;
        std::vector<double> best(peers.size(), INFINITY);
        std::vector<AlternatedBatch> batches;
        batches.push_back({[&](int64_t calls) {
                             for (int64_t c = 0; c < calls; ++c) {
                               std::memcpy(copy_out.data(), in.data(), out_bytes);
                               if (neighbour > 0) NeighbourWork(neighbour);
                             }
                           },
                           &copy_best});
        for (size_t i = 0; i < peers.size(); ++i) {
          if (peers[i].batch) {
            batches.push_back({peers[i].batch, &best[i]});
            continue;
          }
          batches.push_back({[&, i](int64_t calls) {
                               for (int64_t c = 0; c < calls; ++c) {
                                 peers[i].call();
                                 if (neighbour > 0) NeighbourWork(neighbour);
                               }
                             },
                             &best[i]});
        }
        TimeAlternately(batches, rounds, timing);
        for (size_t i = 0; i < peers.size(); ++i) {
          const double ratio = copy_best / best[i];
          const bool pooled = i == pooled_peer;
          const std::string capped_share =
              pooled && calls > 0 ? std::to_string(100 * capped / calls) + " %" : "";
          std::printf("| %s | %s | %d | %s | %d | %.2f | %s |\n", layout_name.c_str(),
                      SizeName(out_bytes).c_str(), esize, peers[i].name.c_str(), peers[i].threads,
                      ratio, capped_share.c_str());
          char record[512];
          std::snprintf(record, sizeof record,
                        "%s{\"layout\": \"%s\", \"bytes\": %" PRIu64
                        ", \"esize\": %d, \"peer\": \"%s\", \"threads\": %d, \"seconds\": %.9g, "
                        "\"copy_seconds\": %.9g, \"huge_pages\": %s, \"neighbour_pool\": %d}",
                        json.size() > 1 ? ", " : "", layout_name.c_str(), out_bytes, esize,
                        peers[i].name.c_str(), peers[i].threads, best[i], copy_best,
                        small_pages ? "false" : "true", neighbour);
          json += record;
          json.insert(json.size() - 1, ", " + eltwise::bench::MachineJson());
        }
        std::fflush(stdout);
      }
    }
  }
  json += "]\n";
  if (!json_path.empty()) std::ofstream(json_path) << json;
  return 0;
}

}  // namespace
}  // namespace eltwise::bench

int main(int argc, char** argv) {
  try {
    return eltwise::bench::Run(argc, argv);
  } catch (const eltwise::bench::Failure& f) {
    std::fprintf(stderr, "eltwise_transpose_peers: %s: %s\n", f.context().c_str(), f.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "eltwise_transpose_peers: %s\n", e.what());
  }
  return 1;
}
