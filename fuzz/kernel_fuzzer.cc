// Differential fuzzing of the CPU kernel tables: every table in AvailableKernelTables() (each SIMD
// target this CPU runs) against the scalar reference table, on arbitrary bit patterns, lengths,
// misalignments, strides (negative and zero input strides included) and in-place calls.
// Results must match element for element (bit-exact; any NaN matches any NaN). Bytes around each
// output are guarded, and the input and output buffers are exactly the bytes a kernel may touch
// (ASan reports any other access).
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "core/function.h"
#include "cpu/kernel_dispatch.h"
#include "cpu/reference_kernels.h"
#include "fuzz_util.h"

namespace eltwise::fuzz {
namespace {

constexpr size_t kGuard = 64;  // poisoned and pattern-filled bytes on each side of a buffer

// A buffer of `n` bytes at a chosen misalignment, with guard bytes on both sides that are
// ASan-poisoned (and filled with a pattern to detect stray writes in builds without ASan).
class Guarded {
 public:
  Guarded(size_t n, size_t misalign) : n_(n), storage_(new std::byte[n + 2 * kGuard + 64]) {
    const auto base = reinterpret_cast<uintptr_t>(storage_.get());
    data_ = storage_.get() + (64 - base % 64) % 64 + kGuard + misalign % 64;
    std::memset(storage_.get(), 0xA5, n + 2 * kGuard + 64);
  }
  ~Guarded() { Unpoison(storage_.get(), n_ + 2 * kGuard + 64); }
  std::byte* data() { return data_; }
  void Arm() {
    Poison(storage_.get(), n_ + 2 * kGuard + 64);
    Unpoison(data_, n_);
  }
  void Disarm() { Unpoison(storage_.get(), n_ + 2 * kGuard + 64); }
  bool GuardsIntact() const {
    for (const std::byte* p = storage_.get(); p < data_; ++p) {
      if (*p != std::byte{0xA5}) return false;
    }
    const std::byte* end = storage_.get() + n_ + 2 * kGuard + 64;
    for (const std::byte* p = data_ + n_; p < end; ++p) {
      if (*p != std::byte{0xA5}) return false;
    }
    return true;
  }

 private:
  size_t n_;
  std::unique_ptr<std::byte[]> storage_;
  std::byte* data_;
};

void CheckSame(DataType type, const std::byte* want, const std::byte* got, size_t n,
               ptrdiff_t want_stride, ptrdiff_t got_stride) {
  for (size_t i = 0; i < n; ++i) {
    ELTWISE_FUZZ_CHECK(SameResult(type, want + static_cast<ptrdiff_t>(i) * want_stride,
                                  got + static_cast<ptrdiff_t>(i) * got_stride));
  }
}

void Run(FuzzedDataProvider& fdp) {
  static const std::vector<NamedKernelTable> tables = AvailableKernelTables();
  const KernelTable& reference = ReferenceKernels();
  const auto function =
      static_cast<Function>(fdp.ConsumeIntegralInRange<int>(0, kFunctionCount - 1));
  const auto type = static_cast<DataType>(fdp.ConsumeIntegralInRange<int>(0, kDataTypeCount - 1));
  const size_t esize = ElementSize(type);
  const NamedKernelTable& tested = tables[fdp.ConsumeIntegralInRange<size_t>(0, tables.size() - 1)];
  const int kind = fdp.ConsumeIntegralInRange<int>(0, 3);  // contiguous, stream, in place, strided
  size_t n = fdp.ConsumeIntegralInRange<size_t>(0, 80);
  if (fdp.ConsumeIntegralInRange<int>(0, 7) == 0) n = fdp.ConsumeIntegralInRange<size_t>(0, 20000);
  const size_t in_misalign = fdp.ConsumeIntegralInRange<size_t>(0, 63);
  const size_t out_misalign = fdp.ConsumeIntegralInRange<size_t>(0, 63);

  if (kind < 3) {
    // Contiguous: n packed elements; input bit patterns from the fuzzer input (then recycled).
    const size_t bytes = n * esize;
    std::vector<std::byte> source = [&] {
      std::vector<uint8_t> raw = fdp.ConsumeRemainingBytes<uint8_t>();
      if (raw.empty()) raw.push_back(0);
      std::vector<std::byte> s(bytes);
      for (size_t i = 0; i < bytes; ++i)
        s[i] = static_cast<std::byte>(raw[i % raw.size()] ^ (i / raw.size()));
      return s;
    }();
    std::vector<std::byte> want(bytes);
    reference.Contiguous(function, type)(source.data(), want.data(), n);

    Guarded in(bytes, in_misalign);
    if (bytes) std::memcpy(in.data(), source.data(), bytes);
    if (kind == 2) {  // in place
      in.Arm();
      tested.table->Contiguous(function, type)(in.data(), in.data(), n);
      in.Disarm();
      ELTWISE_FUZZ_CHECK(in.GuardsIntact());
      CheckSame(type, want.data(), in.data(), n, esize, esize);
      return;
    }
    Guarded out(bytes, out_misalign);
    const ContiguousKernel kernel = kind == 1 ? tested.table->ContiguousStream(function, type)
                                              : tested.table->Contiguous(function, type);
    in.Arm();
    out.Arm();
    kernel(in.data(), out.data(), n);
    in.Disarm();
    out.Disarm();
    ELTWISE_FUZZ_CHECK(in.GuardsIntact() && out.GuardsIntact());
    ELTWISE_FUZZ_CHECK(bytes == 0 || std::memcmp(in.data(), source.data(), bytes) == 0);
    CheckSame(type, want.data(), out.data(), n, esize, esize);
    return;
  }

  // Strided: element strides in [-5, 5] for the input (0 = broadcast) and non-zero for the output.
  const ptrdiff_t in_step = fdp.ConsumeIntegralInRange<int>(-5, 5);
  ptrdiff_t out_step = fdp.ConsumeIntegralInRange<int>(-5, 5);
  if (out_step == 0) out_step = 1;
  auto span = [&](ptrdiff_t step) -> size_t {
    return n == 0 ? 0 : ((n - 1) * static_cast<size_t>(step < 0 ? -step : step) + 1) * esize;
  };
  auto first = [&](ptrdiff_t step) -> size_t {  // byte offset of element 0 in its buffer
    return step < 0 ? (n - 1) * static_cast<size_t>(-step) * esize : 0;
  };
  const size_t in_bytes = span(in_step);
  const size_t out_bytes = span(out_step);
  std::vector<std::byte> source(in_bytes);
  {
    std::vector<uint8_t> raw = fdp.ConsumeRemainingBytes<uint8_t>();
    if (raw.empty()) raw.push_back(0);
    for (size_t i = 0; i < in_bytes; ++i)
      source[i] = static_cast<std::byte>(raw[i % raw.size()] ^ (i / raw.size()));
  }
  const std::vector<std::byte> background(out_bytes, std::byte{0x5A});
  std::vector<std::byte> want = background;
  if (n != 0) {
    reference.Strided(function, type)(
        source.data() + first(in_step), in_step * static_cast<ptrdiff_t>(esize),
        want.data() + first(out_step), out_step * static_cast<ptrdiff_t>(esize), n);
  }
  Guarded in(in_bytes, in_misalign);
  Guarded out(out_bytes, out_misalign);
  if (in_bytes) std::memcpy(in.data(), source.data(), in_bytes);
  if (out_bytes) std::memcpy(out.data(), background.data(), out_bytes);
  in.Arm();
  out.Arm();
  if (n != 0) {
    tested.table->Strided(function, type)(
        in.data() + first(in_step), in_step * static_cast<ptrdiff_t>(esize),
        out.data() + first(out_step), out_step * static_cast<ptrdiff_t>(esize), n);
  }
  in.Disarm();
  out.Disarm();
  ELTWISE_FUZZ_CHECK(in.GuardsIntact() && out.GuardsIntact());
  ELTWISE_FUZZ_CHECK(in_bytes == 0 || std::memcmp(in.data(), source.data(), in_bytes) == 0);
  // Addressed elements match the reference; the gaps between them keep the background.
  const size_t out_step_bytes = static_cast<size_t>(out_step < 0 ? -out_step : out_step) * esize;
  for (size_t b = 0; b < out_bytes; ++b) {
    if (b % out_step_bytes < esize) continue;
    ELTWISE_FUZZ_CHECK(out.data()[b] == want[b]);
  }
  for (size_t b = 0; b < out_bytes; b += out_step_bytes) {
    ELTWISE_FUZZ_CHECK(SameResult(type, want.data() + b, out.data() + b));
  }
}

}  // namespace
}  // namespace eltwise::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  eltwise::fuzz::Run(fdp);
  return 0;
}
