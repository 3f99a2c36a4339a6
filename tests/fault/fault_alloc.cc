// Allocation and thread-creation faults (fault.h): replaces every form of the global operator
// new/delete and interposes pthread_create. Linked into a test executable, the executable's
// definitions win over the C++ runtime's (and a sanitizer runtime's); preloaded into a program
// (LD_PRELOAD), they win the same way. Memory comes from malloc/posix_memalign and goes back with
// free, so AddressSanitizer still tracks every block and reports leaks.
//
// ELTWISE_FAULT_FIRED=path names a file created when a fault fires, so that a driver knows the
// n-th call was reached and can stop at the first n that is not. A preloaded copy is armed from
// the environment by fault_main.cc.
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <new>

#include "fault/fault.h"

namespace {

std::atomic<uint64_t> g_count{0};       // allocations since the arming
std::atomic<uint64_t> g_fail_at{0};     // 0: disarmed
std::atomic<bool> g_fail_after{false};  // every allocation after the armed one fails too
std::atomic<bool> g_fired{false};
std::atomic<bool> g_fail_threads{false};
std::atomic<uint64_t> g_threads_failed{0};

// Creates ELTWISE_FAULT_FIRED's file with raw system calls: nothing here allocates or passes
// through an interposed function.
void MarkFired() {
  const char* path = std::getenv("ELTWISE_FAULT_FIRED");
  if (path == nullptr || *path == '\0') return;
  const long fd = ::syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0) ::syscall(SYS_close, fd);
}

bool ShouldFail() {
  const uint64_t at = g_fail_at.load(std::memory_order_relaxed);
  if (at == 0) return false;
  const uint64_t n = g_count.fetch_add(1, std::memory_order_relaxed) + 1;
  if (n < at || (n > at && !g_fail_after.load(std::memory_order_relaxed))) return false;
  g_fired.store(true);
  MarkFired();
  return true;
}

// nullptr when the armed allocation is reached or memory is exhausted. The new handler is not
// called: a failure is the point.
void* Allocate(std::size_t size, std::size_t alignment) noexcept {
  if (ShouldFail()) return nullptr;
  if (size == 0) size = 1;
  if (alignment <= alignof(std::max_align_t)) return std::malloc(size);
  void* p = nullptr;
  return ::posix_memalign(&p, alignment, size) == 0 ? p : nullptr;
}

void* AllocateOrThrow(std::size_t size, std::size_t alignment) {
  void* p = Allocate(size, alignment);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

std::size_t Alignment(std::align_val_t a) { return static_cast<std::size_t>(a); }

}  // namespace

extern "C" {

void eltwise_fault_arm_allocation(uint64_t n) {
  g_fail_at.store(0);
  g_count.store(0);
  g_fired.store(false);
  g_fail_after.store(false);
  g_fail_at.store(n);
}
void eltwise_fault_arm_allocations_from(uint64_t n) {
  g_fail_at.store(0);
  g_count.store(0);
  g_fired.store(false);
  g_fail_after.store(true);
  g_fail_at.store(n);
}
uint64_t eltwise_fault_allocation_count(void) { return g_fail_at.load() == 0 ? 0 : g_count.load(); }
int eltwise_fault_allocation_fired(void) { return g_fired.load() ? 1 : 0; }

void eltwise_fault_fail_threads(int on) { g_fail_threads.store(on != 0); }
uint64_t eltwise_fault_threads_failed(void) { return g_threads_failed.load(); }

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*),
                   void* arg) {
  if (g_fail_threads.load()) {
    g_threads_failed.fetch_add(1);
    MarkFired();
    return EAGAIN;
  }
  using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static const Create next = reinterpret_cast<Create>(::dlsym(RTLD_NEXT, "pthread_create"));
  if (next == nullptr) return EAGAIN;
  return next(thread, attr, start, arg);
}

}  // extern "C"

void* operator new(std::size_t size) { return AllocateOrThrow(size, 0); }
void* operator new[](std::size_t size) { return AllocateOrThrow(size, 0); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return Allocate(size, 0); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return Allocate(size, 0); }
void* operator new(std::size_t size, std::align_val_t a) {
  return AllocateOrThrow(size, Alignment(a));
}
void* operator new[](std::size_t size, std::align_val_t a) {
  return AllocateOrThrow(size, Alignment(a));
}
void* operator new(std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return Allocate(size, Alignment(a));
}
void* operator new[](std::size_t size, std::align_val_t a, const std::nothrow_t&) noexcept {
  return Allocate(size, Alignment(a));
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
