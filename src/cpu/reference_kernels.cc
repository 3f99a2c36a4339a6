// Reference loops: the scalar functors applied one element at a time. They are complete (every
// function and type) and are what the SIMD kernels are compared against.
#include "cpu/reference_kernels.h"

#include <cstring>

#include "ref/functors.h"

namespace eltwise {
namespace {

template <class F, class T>
void ReferenceContiguous(const std::byte* in, std::byte* out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    T x;
    std::memcpy(&x, in + i * sizeof(T), sizeof(T));
    const T y = F{}(x);
    std::memcpy(out + i * sizeof(T), &y, sizeof(T));
  }
}

template <class F, class T>
void ReferenceStrided(const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                      ptrdiff_t out_stride, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    T x;
    std::memcpy(&x, in, sizeof(T));
    const T y = F{}(x);
    std::memcpy(out, &y, sizeof(T));
    in += in_stride;
    out += out_stride;
  }
}

template <class F, class T>
void ReferenceTransposed(const std::byte* in, ptrdiff_t in_stride, std::byte* out,
                         ptrdiff_t out_pitch, size_t a_count, size_t b_count) {
  for (size_t a = 0; a < a_count; ++a) {
    ReferenceStrided<F, T>(in + a * sizeof(T), in_stride,
                           out + static_cast<ptrdiff_t>(a) * out_pitch, sizeof(T), b_count);
  }
}

static_assert(kMinGatherStride == 2 && kMaxGatherStride == 4,
              "the gathered entries below are listed for strides 2, 3 and 4");
template <class F, class T, size_t kStride>
void ReferenceGathered(const std::byte* in, std::byte* out, size_t n) {
  ReferenceStrided<F, T>(in, kStride * sizeof(T), out, sizeof(T), n);
}

void ReferencePatternFill(std::byte* out, size_t bytes, const std::byte* pattern) {
  for (size_t i = 0; i < bytes; ++i) out[i] = pattern[i % 8];
}

KernelTable MakeReferenceTable() {
  KernelTable table;
  table.pattern_fill = &ReferencePatternFill;
#define ELTWISE_REF_TYPE(e, T, name)                                                  \
  table.contiguous[f][static_cast<size_t>(DataType::e)] = &ReferenceContiguous<F, T>; \
  table.strided[f][static_cast<size_t>(DataType::e)] = &ReferenceStrided<F, T>;       \
  table.transposed[f][static_cast<size_t>(DataType::e)] = &ReferenceTransposed<F, T>; \
  table.gathered[f][static_cast<size_t>(DataType::e)] = {                             \
      &ReferenceGathered<F, T, 2>, &ReferenceGathered<F, T, 3>, &ReferenceGathered<F, T, 4>};
#define ELTWISE_REF_FUNCTION(fe, Functor, ...)          \
  {                                                     \
    using F = Functor;                                  \
    const size_t f = static_cast<size_t>(Function::fe); \
    ELTWISE_FOR_EACH_DATA_TYPE(ELTWISE_REF_TYPE)        \
  }
  ELTWISE_FOR_EACH_FUNCTION(ELTWISE_REF_FUNCTION)
#undef ELTWISE_REF_FUNCTION
#undef ELTWISE_REF_TYPE
  return table;
}

}  // namespace

const KernelTable& ReferenceKernels() {
  static const KernelTable table = MakeReferenceTable();
  return table;
}

}  // namespace eltwise
