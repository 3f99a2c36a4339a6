// Arms a preloaded libeltwise_fault_preload.so from the environment when the program's main starts
// (it interposes glibc's __libc_start_main and calls main through a wrapper):
//   ELTWISE_FAULT_ALLOC=n    the n-th allocation from main's start fails (fault.h)
//   ELTWISE_FAULT_THREADS=1  every thread creation fails
// Allocations of static initialisation (before main) are not counted: a C++ program cannot report
// a failure there (the runtime calls std::terminate), whatever the program does.
#include <dlfcn.h>

#include <cstdlib>

#include "fault/fault.h"

namespace {

using Main = int (*)(int, char**, char**);
Main g_main = nullptr;

int ArmedMain(int argc, char** argv, char** envp) {
  if (const char* n = std::getenv("ELTWISE_FAULT_ALLOC"); n != nullptr && *n != '\0') {
    eltwise_fault_arm_allocation(std::strtoull(n, nullptr, 10));
  }
  if (const char* t = std::getenv("ELTWISE_FAULT_THREADS"); t != nullptr && *t == '1') {
    eltwise_fault_fail_threads(1);
  }
  return g_main(argc, argv, envp);
}

}  // namespace

extern "C" int __libc_start_main(Main main, int argc, char** argv, void (*init)(), void (*fini)(),
                                 void (*rtld_fini)(), void* stack_end) {
  using Start = int (*)(Main, int, char**, void (*)(), void (*)(), void (*)(), void*);
  const Start next = reinterpret_cast<Start>(::dlsym(RTLD_NEXT, "__libc_start_main"));
  if (next == nullptr) std::abort();
  g_main = main;
  return next(ArmedMain, argc, argv, init, fini, rtld_fini, stack_end);
}
