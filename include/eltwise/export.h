// ELTWISE_API marks what libeltwise exports. The library is compiled with hidden visibility, so a
// shared libeltwise exports exactly the declarations marked here, and a public function or class
// declared without it cannot be linked from a shared build (tests/consumer checks every one).
// Windows needs to know which side of a DLL it is on; the CMake build and eltwise.pc say it:
//  * ELTWISE_BUILDING_SHARED: compiling a shared libeltwise;
//  * ELTWISE_SHARED: using one (eltwise::eltwise and eltwise.pc set it);
//  * neither: a static libeltwise.
#pragma once

#if defined(_WIN32)
#if defined(ELTWISE_BUILDING_SHARED)
#define ELTWISE_API __declspec(dllexport)
#elif defined(ELTWISE_SHARED)
#define ELTWISE_API __declspec(dllimport)
#else
#define ELTWISE_API
#endif
#else
#define ELTWISE_API __attribute__((visibility("default")))
#endif
