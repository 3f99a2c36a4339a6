// File I/O faults for a preloaded program (LD_PRELOAD, with fault_alloc.cc in
// libeltwise_fault_preload.so; Linux/glibc): the n-th call of one kind on a file under one
// directory fails or comes up short. Configured by environment variables:
//   ELTWISE_FAULT_IO_DIR=dir    only paths starting with dir (and descriptors opened on them)
//   ELTWISE_FAULT_IO_CALL=kind  open (open/openat and their 64-bit and fortified forms), read,
//                               write, fsync (fsync/fdatasync), rename (rename/renameat/renameat2)
//   ELTWISE_FAULT_IO_N=n        the n-th such call (counted from the start of the program)
//   ELTWISE_FAULT_IO_MODE=mode  eio or enospc: fails with that errno; short: a read or write of
//                               at least 2 bytes transfers half of them (a legal result that
//                               must be retried)
//   ELTWISE_FAULT_FIRED=path    created when the n-th call is reached
// Every other call goes to the C library unchanged.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

enum class Kind { kNone, kOpen, kRead, kWrite, kFsync, kRename };
enum class Mode { kEio, kEnospc, kShort };

struct Config {
  const char* dir = nullptr;
  size_t dir_length = 0;
  Kind kind = Kind::kNone;
  unsigned long long n = 0;
  Mode mode = Mode::kEio;
};

Kind ParseKind(const char* s) {
  if (s == nullptr) return Kind::kNone;
  if (std::strcmp(s, "open") == 0) return Kind::kOpen;
  if (std::strcmp(s, "read") == 0) return Kind::kRead;
  if (std::strcmp(s, "write") == 0) return Kind::kWrite;
  if (std::strcmp(s, "fsync") == 0) return Kind::kFsync;
  if (std::strcmp(s, "rename") == 0) return Kind::kRename;
  return Kind::kNone;
}

// Read once, on first use (getenv neither allocates nor does I/O).
const Config& GetConfig() {
  static const Config config = [] {
    Config c;
    c.dir = std::getenv("ELTWISE_FAULT_IO_DIR");
    if (c.dir == nullptr || *c.dir == '\0') return c;
    c.dir_length = std::strlen(c.dir);
    c.kind = ParseKind(std::getenv("ELTWISE_FAULT_IO_CALL"));
    if (const char* n = std::getenv("ELTWISE_FAULT_IO_N")) c.n = std::strtoull(n, nullptr, 10);
    const char* mode = std::getenv("ELTWISE_FAULT_IO_MODE");
    if (mode != nullptr && std::strcmp(mode, "enospc") == 0) c.mode = Mode::kEnospc;
    if (mode != nullptr && std::strcmp(mode, "short") == 0) c.mode = Mode::kShort;
    return c;
  }();
  return config;
}

// Descriptors opened on paths under the directory.
constexpr int kMaxTracked = 4096;
std::atomic<bool> g_tracked[kMaxTracked];
std::atomic<unsigned long long> g_calls{0};

bool UnderDir(const char* path) {
  const Config& c = GetConfig();
  return c.dir_length != 0 && path != nullptr && std::strncmp(path, c.dir, c.dir_length) == 0;
}
bool Tracked(int fd) { return fd >= 0 && fd < kMaxTracked && g_tracked[fd].load(); }
void Track(int fd, bool on) {
  if (fd >= 0 && fd < kMaxTracked) g_tracked[fd].store(on);
}

// Whether this call (of `kind`, on a file under the directory) is the n-th; marks it fired.
bool Hit(Kind kind) {
  const Config& c = GetConfig();
  if (c.kind != kind || c.n == 0) return false;
  if (g_calls.fetch_add(1) + 1 != c.n) return false;
  if (const char* path = std::getenv("ELTWISE_FAULT_FIRED"); path != nullptr && *path != '\0') {
    const long fd = ::syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) ::syscall(SYS_close, fd);
  }
  return true;
}

// Sets errno for a failing hit: -1 for eio/enospc; 0 for short (the caller shortens the call).
int FailOrShort() {
  const Mode mode = GetConfig().mode;
  if (mode == Mode::kShort) return 0;
  errno = mode == Mode::kEio ? EIO : ENOSPC;
  return -1;
}

template <class F>
F Next(const char* name) {
  return reinterpret_cast<F>(::dlsym(RTLD_NEXT, name));
}

bool TakesMode(int flags) { return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE; }

int OpenAt(int dirfd, const char* path, int flags, mode_t mode) {
  const bool under = (dirfd == AT_FDCWD || path[0] == '/') && UnderDir(path);
  if (under && Hit(Kind::kOpen) && FailOrShort() < 0) return -1;
  // syscall() returns -1 with errno set on failure, like open().
  const int fd = static_cast<int>(::syscall(SYS_openat, dirfd, path, flags, mode));
  if (fd < 0) return -1;
  Track(fd, under);
  return fd;
}

ssize_t ReadOn(int fd, void* buffer, size_t count) {
  using Read = ssize_t (*)(int, void*, size_t);
  static const Read next = Next<Read>("read");
  if (Tracked(fd) && Hit(Kind::kRead)) {
    if (FailOrShort() < 0) return -1;
    if (count >= 2) count /= 2;
  }
  return next(fd, buffer, count);
}

}  // namespace

extern "C" {

int open(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (TakesMode(flags)) {
    va_list args;
    va_start(args, flags);
    mode = static_cast<mode_t>(va_arg(args, int));
    va_end(args);
  }
  return OpenAt(AT_FDCWD, path, flags, mode);
}
int open64(const char* path, int flags, ...) {
  mode_t mode = 0;
  if (TakesMode(flags)) {
    va_list args;
    va_start(args, flags);
    mode = static_cast<mode_t>(va_arg(args, int));
    va_end(args);
  }
  return OpenAt(AT_FDCWD, path, flags, mode);
}
int openat(int dirfd, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (TakesMode(flags)) {
    va_list args;
    va_start(args, flags);
    mode = static_cast<mode_t>(va_arg(args, int));
    va_end(args);
  }
  return OpenAt(dirfd, path, flags, mode);
}
int openat64(int dirfd, const char* path, int flags, ...) {
  mode_t mode = 0;
  if (TakesMode(flags)) {
    va_list args;
    va_start(args, flags);
    mode = static_cast<mode_t>(va_arg(args, int));
    va_end(args);
  }
  return OpenAt(dirfd, path, flags, mode);
}
// The fortified forms (_FORTIFY_SOURCE) take no mode.
int __open_2(const char* path, int flags) { return OpenAt(AT_FDCWD, path, flags, 0); }
int __open64_2(const char* path, int flags) { return OpenAt(AT_FDCWD, path, flags, 0); }

int close(int fd) {
  using Close = int (*)(int);
  static const Close next = Next<Close>("close");
  Track(fd, false);
  return next(fd);
}

ssize_t read(int fd, void* buffer, size_t count) { return ReadOn(fd, buffer, count); }
ssize_t __read_chk(int fd, void* buffer, size_t count, size_t /*buffer_size*/) {
  return ReadOn(fd, buffer, count);
}

ssize_t write(int fd, const void* buffer, size_t count) {
  using Write = ssize_t (*)(int, const void*, size_t);
  static const Write next = Next<Write>("write");
  if (Tracked(fd) && Hit(Kind::kWrite)) {
    if (FailOrShort() < 0) return -1;
    if (count >= 2) count /= 2;
  }
  return next(fd, buffer, count);
}

int fsync(int fd) {
  using Sync = int (*)(int);
  static const Sync next = Next<Sync>("fsync");
  if (Tracked(fd) && Hit(Kind::kFsync) && FailOrShort() < 0) return -1;
  return next(fd);
}
int fdatasync(int fd) {
  using Sync = int (*)(int);
  static const Sync next = Next<Sync>("fdatasync");
  if (Tracked(fd) && Hit(Kind::kFsync) && FailOrShort() < 0) return -1;
  return next(fd);
}

int rename(const char* from, const char* to) {
  using Rename = int (*)(const char*, const char*);
  static const Rename next = Next<Rename>("rename");
  if ((UnderDir(from) || UnderDir(to)) && Hit(Kind::kRename) && FailOrShort() < 0) return -1;
  return next(from, to);
}
int renameat(int from_dir, const char* from, int to_dir, const char* to) {
  using Rename = int (*)(int, const char*, int, const char*);
  static const Rename next = Next<Rename>("renameat");
  if ((UnderDir(from) || UnderDir(to)) && Hit(Kind::kRename) && FailOrShort() < 0) return -1;
  return next(from_dir, from, to_dir, to);
}
int renameat2(int from_dir, const char* from, int to_dir, const char* to, unsigned flags) {
  using Rename = int (*)(int, const char*, int, const char*, unsigned);
  static const Rename next = Next<Rename>("renameat2");
  if ((UnderDir(from) || UnderDir(to)) && Hit(Kind::kRename) && FailOrShort() < 0) return -1;
  return next(from_dir, from, to_dir, to, flags);
}

}  // extern "C"
