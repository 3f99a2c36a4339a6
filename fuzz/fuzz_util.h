// Shared by the eltwise fuzzers: the reference result of one element (straight from the scalar
// functors of src/ref/functors.h), NaN-aware element comparison, and memory poisoning so that
// AddressSanitizer reports any access outside the buffers a fuzzer binds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/function.h"
#include "eltwise/eltwise.h"
#include "ref/compare.h"
#include "ref/functors.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ELTWISE_FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ELTWISE_FUZZ_ASAN 1
#endif
#if defined(ELTWISE_FUZZ_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace eltwise::fuzz {

// Marks [p, p + n) inaccessible (ASan builds; a no-op otherwise). ASan tracks 8-byte granules: a
// region that starts inside a granule is poisoned from the next granule on.
inline void Poison(const void* p, size_t n) {
#if defined(ELTWISE_FUZZ_ASAN)
  ASAN_POISON_MEMORY_REGION(p, n);
#else
  (void)p;
  (void)n;
#endif
}
inline void Unpoison(const void* p, size_t n) {
#if defined(ELTWISE_FUZZ_ASAN)
  ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
  (void)p;
  (void)n;
#endif
}

[[noreturn]] inline void Fail(const char* what) {
  std::fprintf(stderr, "eltwise fuzz check failed: %s\n", what);
  std::abort();
}
#define ELTWISE_FUZZ_CHECK(cond) \
  ((cond) ? (void)0 : ::eltwise::fuzz::Fail(#cond " at " __FILE__ ":" ELTWISE_FUZZ_STR(__LINE__)))
#define ELTWISE_FUZZ_STR(x) ELTWISE_FUZZ_STR2(x)
#define ELTWISE_FUZZ_STR2(x) #x

// out = F(in) for one element of `type`; element bytes may be unaligned.
template <class F>
void ApplyOne(F f, DataType type, const std::byte* in, std::byte* out) {
  switch (type) {
#define ELTWISE_FUZZ_CASE(e, T, name) \
  case DataType::e: {                 \
    T x;                              \
    std::memcpy(&x, in, sizeof(T));   \
    const T y = f(x);                 \
    std::memcpy(out, &y, sizeof(T));  \
    return;                           \
  }
    ELTWISE_FOR_EACH_DATA_TYPE(ELTWISE_FUZZ_CASE)
#undef ELTWISE_FUZZ_CASE
  }
  Fail("unknown data type");
}

// The function of (op, option value): the first entry of function.h's list with both.
inline Function FunctionOfEntry(Op op, int option) {
#define ELTWISE_FUZZ_ENTRY(e, F, entry_op, entry_option) \
  if (entry_op == op && static_cast<int>(entry_option) == option) return Function::e;
  ELTWISE_FOR_EACH_FUNCTION(ELTWISE_FUZZ_ENTRY)
#undef ELTWISE_FUZZ_ENTRY
  Fail("no function for this op and option value");
}

// The reference result of function `f` for one element: its scalar functor (function.h).
inline void ReferenceElement(Function f, DataType type, const std::byte* in, std::byte* out) {
  switch (f) {
#define ELTWISE_FUZZ_FUNCTION(e, F, op, option) \
  case Function::e:                             \
    return ApplyOne(F{}, type, in, out);
    ELTWISE_FOR_EACH_FUNCTION(ELTWISE_FUZZ_FUNCTION)
#undef ELTWISE_FUZZ_FUNCTION
  }
  Fail("unknown function");
}

}  // namespace eltwise::fuzz
