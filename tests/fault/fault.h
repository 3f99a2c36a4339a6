// Fault injection for tests: the control API of fault_alloc.cc (linked into a test executable, or
// preloaded into a program with LD_PRELOAD as libeltwise_fault_preload.so). C linkage, so that a
// preloaded copy can be reached from Python through ctypes.
//
// Allocation faults: once armed with n, the n-th call of any global operator new form (counted
// across all threads from the arming) fails: the throwing forms throw std::bad_alloc, the
// nothrow forms return nullptr. Every later call succeeds again (or, armed "from" n, fails too).
// Thread faults: while on, every pthread_create (so every std::thread) fails with EAGAIN.
#pragma once

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Resets the count and arms the n-th allocation from now to fail; 0 disarms.
void eltwise_fault_arm_allocation(uint64_t n);
// Resets the count and arms the n-th allocation from now and every later one to fail, until
// disarmed (eltwise_fault_arm_allocation(0)).
void eltwise_fault_arm_allocations_from(uint64_t n);
// Allocations counted since the last arming (0 while disarmed).
uint64_t eltwise_fault_allocation_count(void);
// Whether the armed allocation was reached (and failed) since the last arming.
int eltwise_fault_allocation_fired(void);

// Makes every pthread_create fail with EAGAIN (on != 0) or succeed again (0).
void eltwise_fault_fail_threads(int on);
// pthread_create calls failed so far.
uint64_t eltwise_fault_threads_failed(void);

#ifdef __cplusplus
}
#endif
