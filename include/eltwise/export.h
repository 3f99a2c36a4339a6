// ELTWISE_API marks what libeltwise exports. The library is compiled with hidden visibility, so a
// shared libeltwise exports exactly the declarations marked here, and a public function or class
// declared without it cannot be linked from a shared build (tests/consumer checks every one).
//  * ELTWISE_BUILDING: set while compiling libeltwise itself (by its CMake build).
//  * ELTWISE_SHARED: set for users of a shared libeltwise (by eltwise::eltwise and eltwise.pc);
//    only Windows needs it, to import from the DLL.
#pragma once

#if defined(_WIN32)
#if defined(ELTWISE_BUILDING)
#define ELTWISE_API __declspec(dllexport)
#elif defined(ELTWISE_SHARED)
#define ELTWISE_API __declspec(dllimport)
#else
#define ELTWISE_API
#endif
#else
#define ELTWISE_API __attribute__((visibility("default")))
#endif
