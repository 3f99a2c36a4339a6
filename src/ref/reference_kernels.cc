// Reference loops: the scalar functors applied one element at a time. They are complete (every
// function and type) and are what the SIMD kernels are compared against.
#include <cstring>

#include "kernels/kernel_table.h"
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

void ReferencePatternFill(std::byte* out, size_t bytes, const std::byte* pattern) {
  for (size_t i = 0; i < bytes; ++i) out[i] = pattern[i % 8];
}

KernelTable MakeReferenceTable() {
  KernelTable table;
  table.pattern_fill = &ReferencePatternFill;
#define ELTWISE_REF_TYPE(e, T, name)                                                  \
  table.contiguous[f][static_cast<size_t>(DataType::e)] = &ReferenceContiguous<F, T>; \
  table.strided[f][static_cast<size_t>(DataType::e)] = &ReferenceStrided<F, T>;
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
