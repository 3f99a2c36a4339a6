// Highway SIMD kernels: one KernelTable per compiled target (foreach_target.h), selected at run
// time by HWY_DYNAMIC_DISPATCH. This unit holds the contiguous kernels, the copy, the broadcast
// fill, and assembles each target's table from them and from the other families
// (simd_transposed.cc, simd_gathered2/3/4.cc). The vector ops themselves, and why each is exact,
// are in simd_ops-inl.h.
//
// Kernels: unrolled full vectors, then one last full vector ending exactly at n (it may recompute
// elements already done: every function is idempotent, f(f(x)) == f(x), so this is exact even in
// place), then 128-bit vectors and finally the scalar functor for what is shorter than a vector.
// Nothing is read or written outside [0, n).
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "cpu/cache_tuning.h"
#include "cpu/kernel_dispatch.h"
#include "cpu/reference_kernels.h"
#include "ref/functors.h"

#ifndef ELTWISE_SIMD_TARGET_TABLES
#define ELTWISE_SIMD_TARGET_TABLES
namespace eltwise {
// Every compiled target's table, registered by that target's pass of this file (below) with its
// HWY_TARGET bit: Highway's public API only, so that testing each target does not depend on how a
// Highway version lays out its dispatch tables.
struct TargetTable {
  int64_t target;
  const KernelTable* (*get)();
  const char* variant;  // nullptr: the target's table; else a second one's name
};
std::vector<TargetTable>& TargetTables() {
  static std::vector<TargetTable> tables;  // function-local: complete before any registration
  return tables;
}
bool RegisterTargetTable(int64_t target, const KernelTable* (*get)(),
                         const char* variant = nullptr) {
  TargetTables().push_back({target, get, variant});
  return true;
}
}  // namespace eltwise
#endif

// Every target the compiler can generate, including HWY_SCALAR where the baseline is better
// (aarch64: NEON), so that the scalar Highway paths are built and tested on every architecture.
#ifndef HWY_COMPILE_ALL_ATTAINABLE
#define HWY_COMPILE_ALL_ATTAINABLE
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd/simd_kernels.cc"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
// Must come after foreach_target.h.
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "cpu/simd/simd_ops-inl.h"

HWY_BEFORE_NAMESPACE();
namespace eltwise {
namespace HWY_NAMESPACE {

// ---------------------------------------------------------------------------------------------
// Loops.

// Scalar tail through the functor on the storage type.
template <class Functor, class T>
HWY_INLINE void ScalarLoop(const std::byte* in, std::byte* out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    T x;
    std::memcpy(&x, in + i * sizeof(T), sizeof(T));
    const T y = Functor{}(x);
    std::memcpy(out + i * sizeof(T), &y, sizeof(T));
  }
}

// Op on the vector at src: Op::ApplyAt where Op reads its operands itself (ContiguousOp).
template <class Op, class D>
HWY_INLINE hn::Vec<D> ApplyLoaded(D d, const hn::TFromD<D>* src) {
  if constexpr (kAppliesAt<Op, D>) {
    return Op::ApplyAt(d, src);
  } else {
    return Op::Apply(d, hn::LoadU(d, src));
  }
}

template <class Op, class D>
HWY_INLINE void Step(D d, const std::byte* in, std::byte* out, size_t i) {
  using Lane = hn::TFromD<D>;
  hn::StoreU(ApplyLoaded<Op>(d, reinterpret_cast<const Lane*>(in) + i), d,
             reinterpret_cast<Lane*>(out) + i);
}

// Up to n < Lanes(full vector): 128-bit vectors (one last overlapping), else scalar.
template <class Op, class Functor, class T>
HWY_INLINE void ShortRun(const std::byte* in, std::byte* out, size_t n) {
  const ShortTag<Op> d;
  const size_t lanes = hn::Lanes(d);
  if (lanes > 1 && n >= lanes) {
    size_t i = 0;
    for (; i + lanes <= n; i += lanes) Step<Op>(d, in, out, i);
    if (i < n) Step<Op>(d, in, out, n - lanes);
    return;
  }
  ScalarLoop<Functor, T>(in, out, n);
}

template <class Op, class Functor, class T>
void VectorKernel(const std::byte* in, std::byte* out, size_t n) {
  using Lane = typename Op::Lane;
  static_assert(sizeof(Lane) == sizeof(T));
  const FullTag<Op> d;
  const size_t lanes = hn::Lanes(d);
  if (n < lanes) return ShortRun<Op, Functor, T>(in, out, n);
  size_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    const Lane* src = reinterpret_cast<const Lane*>(in) + i;
    Lane* dst = reinterpret_cast<Lane*>(out) + i;
    if constexpr (kAppliesAt<Op, decltype(d)>) {
      for (size_t k = 0; k < 4; ++k)
        hn::StoreU(Op::ApplyAt(d, src + k * lanes), d, dst + k * lanes);
    } else {
      const auto v0 = hn::LoadU(d, src);
      const auto v1 = hn::LoadU(d, src + lanes);
      const auto v2 = hn::LoadU(d, src + 2 * lanes);
      const auto v3 = hn::LoadU(d, src + 3 * lanes);
      hn::StoreU(Op::Apply(d, v0), d, dst);
      hn::StoreU(Op::Apply(d, v1), d, dst + lanes);
      hn::StoreU(Op::Apply(d, v2), d, dst + 2 * lanes);
      hn::StoreU(Op::Apply(d, v3), d, dst + 3 * lanes);
    }
  }
  for (; i + lanes <= n; i += lanes) Step<Op>(d, in, out, i);
  if (i < n) Step<Op>(d, in, out, n - lanes);
}

// Non-temporal variant: ordinary stores up to a vector-aligned output address, streaming stores
// for the aligned body, ordinary stores for the tail, then a store fence.
template <class Op, class Functor, class T>
void VectorKernelStream(const std::byte* in, std::byte* out, size_t n) {
  using Lane = typename Op::Lane;
  const FullTag<Op> d;
  const size_t lanes = hn::Lanes(d);
  const size_t vector_bytes = lanes * sizeof(T);
  const auto address = reinterpret_cast<uintptr_t>(out);
  // Highway's Stream of a vector narrower than 16 bytes stores 16 bytes: ordinary stores then.
  if (vector_bytes < 16 || address % sizeof(T) != 0 || n < 8 * lanes) {
    return VectorKernel<Op, Functor, T>(in, out, n);
  }
  const size_t head = ((vector_bytes - address % vector_bytes) % vector_bytes) / sizeof(T);
  VectorKernel<Op, Functor, T>(in, out, head);
  size_t i = head;
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const Lane* src = reinterpret_cast<const Lane*>(in) + i;
    Lane* dst = reinterpret_cast<Lane*>(out) + i;
    if constexpr (kAppliesAt<Op, decltype(d)>) {
      hn::Stream(Op::ApplyAt(d, src), d, dst);
      hn::Stream(Op::ApplyAt(d, src + lanes), d, dst + lanes);
    } else {
      const auto v0 = hn::LoadU(d, src);
      const auto v1 = hn::LoadU(d, src + lanes);
      hn::Stream(Op::Apply(d, v0), d, dst);
      hn::Stream(Op::Apply(d, v1), d, dst + lanes);
    }
  }
  VectorKernel<Op, Functor, T>(in + i * sizeof(T), out + i * sizeof(T), n - i);
  hwy::FlushStream();
}

// Broadcast fill: whole vectors of the pattern stored at vector-aligned addresses, 4 per
// iteration; the unaligned head and the tail are copied bytes.
void PatternFill(std::byte* out, size_t bytes, const std::byte* pattern) {
  const hn::CappedTag<uint8_t, 64> d;  // whole periods, and within the pattern from any phase < 8
  const size_t lanes = hn::Lanes(d);
  if (lanes < 8 || bytes < 4 * lanes) {
    for (size_t i = 0; i < bytes; i += 64) {
      std::memcpy(out + i, pattern, std::min<size_t>(64, bytes - i));
    }
    return;
  }
  const size_t head = (lanes - reinterpret_cast<uintptr_t>(out) % lanes) % lanes;
  std::memcpy(out, pattern, head);
  const uint8_t* const phased = reinterpret_cast<const uint8_t*>(pattern) + head % 8;
  const auto v = hn::LoadU(d, phased);  // the pattern as seen from out + head
  uint8_t* p = reinterpret_cast<uint8_t*>(out + head);
  size_t rest = bytes - head;
  for (; rest >= 4 * lanes; rest -= 4 * lanes, p += 4 * lanes) {
    hn::Store(v, d, p);
    hn::Store(v, d, p + lanes);
    hn::Store(v, d, p + 2 * lanes);
    hn::Store(v, d, p + 3 * lanes);
  }
  for (; rest >= lanes; rest -= lanes, p += lanes) hn::Store(v, d, p);
  std::memcpy(p, phased, rest);
}

// Copy (Round on integers is the identity). In place it is nothing. Disjoint runs below
// kMemmoveCopyBytes take a loop of whole vectors (the last one overlapping): glibc's memmove
// starts `rep movsb` from 2 KiB, whose startup cost a small call pays in full; from 32 KiB on,
// memmove is the faster (chosen by measurement on x86-64 with eltwise bench; see
// docs/performance.md). Larger or overlapping runs take memmove, which is exact for any overlap.
constexpr size_t kMemmoveCopyBytes = size_t{32} << 10;
// Whether runs of `bytes` bytes at `in` and `out` share no byte.
bool DisjointRuns(const std::byte* in, const std::byte* out, size_t bytes) {
  const auto in_at = reinterpret_cast<uintptr_t>(in);
  const auto out_at = reinterpret_cast<uintptr_t>(out);
  return in_at + bytes <= out_at || out_at + bytes <= in_at;
}
void CopyKernel(const std::byte* in, std::byte* out, size_t n, size_t element_size) {
  const size_t bytes = n * element_size;
  if (in == out || bytes == 0) return;
  const hn::ScalableTag<uint8_t> d;
  const size_t lanes = hn::Lanes(d);
  if (!DisjointRuns(in, out, bytes) || bytes >= kMemmoveCopyBytes || bytes < lanes) {
    std::memmove(out, in, bytes);
    return;
  }
  // The vector loop of every kernel, on bytes (IdentityOp: the copy).
  VectorKernel<IdentityOp<uint8_t>, CopyFunctor, uint8_t>(in, out, bytes);
}
template <class T>
void CopyKernelT(const std::byte* in, std::byte* out, size_t n) {
  CopyKernel(in, out, n, sizeof(T));
}

// The copy with non-temporal stores, where the walkers stream (contiguous_stream), for the runs
// that memmove would not stream itself: the tasks of a call on several threads. A run of
// kMemmoveStreamBytes or more is a whole call on one thread, and takes memmove, which streams by
// its own threshold: on an Intel Xeon, one thread at 1040 MiB, memmove ran at 0.98-0.99 of a copy
// and these stores at 0.91-0.92, while 2 threads went from 0.61 to 0.91-0.97 with them
// (docs/data/xeon-emeraldrapids-2026-11-30/stream_copy_*.jsonl). Overlapping runs (and in place)
// take CopyKernel.
constexpr size_t kMemmoveStreamBytes = size_t{16} << 20;
template <class T>
void CopyStreamKernelT(const std::byte* in, std::byte* out, size_t n) {
  const size_t bytes = n * sizeof(T);
  if (bytes < kMemmoveStreamBytes && DisjointRuns(in, out, bytes)) {
    VectorKernelStream<IdentityOp<uint8_t>, CopyFunctor, uint8_t>(in, out, bytes);
  } else {
    CopyKernel(in, out, n, sizeof(T));
  }
}

template <bool kF16RoundInIntegers>
KernelTable MakeTable() {
  KernelTable table = ReferenceKernels();  // entries without a vector form on this target stay
  table.pattern_fill = &PatternFill;
  ForEachVectorEntry<kF16RoundInIntegers>([&]<class Op, class Tail, class T>(size_t f, size_t t) {
    if constexpr (std::is_same_v<Tail, CopyFunctor>) {
      table.contiguous[f][t] = &CopyKernelT<T>;
      table.contiguous_stream[f][t] = &CopyStreamKernelT<T>;
    } else {
      using Contiguous = typename ContiguousOp<Op>::type;
      table.contiguous[f][t] = &VectorKernel<Contiguous, Tail, T>;
      table.contiguous_stream[f][t] = &VectorKernelStream<Contiguous, Tail, T>;
    }
  });
  FillTransposedKernels<kF16RoundInIntegers>(table);
  FillGatheredKernels<2, kF16RoundInIntegers>(table);
  FillGatheredKernels<3, kF16RoundInIntegers>(table);
  FillGatheredKernels<4, kF16RoundInIntegers>(table);
  return table;
}

const KernelTable* GetTargetTable() {
  static const KernelTable table = MakeTable<false>();
  return &table;
}

#if ELTWISE_HWY_F16_ROUND_ROUTES
// The same with f16 Round ties away, and toward zero outside the contiguous kernels, in the
// integer domain (RoutedOp, ContiguousOp), the table CacheTuning::f16_round_in_integers picks on
// CPUs whose F16C conversions are slow.
const KernelTable* GetF16IntegerTable() {
  static const KernelTable table = MakeTable<true>();
  return &table;
}
#endif

// The table this CPU runs on this target.
const KernelTable* GetTable() {
#if ELTWISE_HWY_F16_ROUND_ROUTES
  if (cpu::MachineTuning().f16_round_in_integers) return GetF16IntegerTable();
#endif
  return GetTargetTable();
}

}  // namespace HWY_NAMESPACE
}  // namespace eltwise
HWY_AFTER_NAMESPACE();

// This target's table, for AvailableKernelTables; registered outside the target's code region so
// that the static initializer uses no instruction of the target.
namespace eltwise::HWY_NAMESPACE {
[[maybe_unused]] const bool kTableRegistered = RegisterTargetTable(HWY_TARGET, &GetTargetTable);
#if ELTWISE_HWY_F16_ROUND_ROUTES
[[maybe_unused]] const bool kF16IntegerTableRegistered =
    RegisterTargetTable(HWY_TARGET, &GetF16IntegerTable, "AVX2_F16RoundInIntegers");
#endif
}  // namespace eltwise::HWY_NAMESPACE

#if HWY_ONCE
#include <vector>

namespace eltwise {

HWY_EXPORT(GetTable);

const KernelTable& BestKernelTable() {
  static const KernelTable* table = HWY_DYNAMIC_DISPATCH(GetTable)();
  return *table;
}

std::vector<NamedKernelTable> AvailableKernelTables() {
  std::vector<NamedKernelTable> tables = {{"reference", &ReferenceKernels()}};
  std::vector<TargetTable> targets;
  const int64_t supported = hwy::SupportedTargets();
  for (const TargetTable& t : TargetTables()) {
    if ((t.target & supported) != 0) targets.push_back(t);
  }
  // Highway's lower target bits are the better targets; list them worst to best.
  std::sort(targets.begin(), targets.end(),
            [](const TargetTable& a, const TargetTable& b) { return a.target > b.target; });
  for (const TargetTable& t : targets) {
    if (t.variant == nullptr) {
      tables.push_back({hwy::TargetName(t.target), t.get(), /*variant=*/false});
    } else {
      tables.push_back({t.variant, t.get(), /*variant=*/true});
    }
  }
  return tables;
}

}  // namespace eltwise
#endif  // HWY_ONCE
