// .npy files on disk: whole-file Read and Write, InputFile for streamed reads and PendingFile for
// atomic replacement (a temporary beside the target, renamed over it once complete).
#include <errno.h>
#include <fcntl.h>  // open; sync_file_range and posix_fadvise on Linux
#include <sys/stat.h>
#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <io.h>
#include <windows.h>
#else
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <limits>
#include <utility>

#include "core/out_of_memory.h"
#include "npy/npy.h"
#include "npy/npy_format.h"

namespace eltwise::npy {

using internal::DataSizeMismatch;
using internal::Invalid;
using internal::ParseHeader;

namespace {

Status ErrnoStatus(const std::string& what, const std::string& path) {
  return Status(StatusCode::kIoError, what + " '" + path + "': " + std::strerror(errno));
}

// Files, as C runtime descriptors: POSIX open/read/write/fsync/rename, or on Windows the C
// runtime's _open family in binary mode (no CR/LF translation), not inherited by child processes,
// _commit (FlushFileBuffers) and MoveFileEx. Paths are narrow strings as the system takes them
// (UTF-8 on POSIX systems, the ANSI code page on Windows, like argv).
#if defined(_WIN32)
using IoCount = int;
// A directory fails here with EACCES (POSIX opens it and fails the read with EISDIR): it is
// reported as EISDIR, so that both systems say the same.
int OpenForReading(const std::string& path) {
  const int fd = ::_open(path.c_str(), _O_RDONLY | _O_BINARY | _O_NOINHERIT);
  if (fd < 0 && errno == EACCES) {
    const DWORD attributes = ::GetFileAttributesA(path.c_str());
    if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
      errno = EISDIR;
    }
  }
  return fd;
}
int CreateExclusive(const std::string& path) {
  return ::_open(path.c_str(), _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT,
                 _S_IREAD | _S_IWRITE);
}
uint64_t FileSizeHint(int fd) {
  struct _stat64 st {};
  return ::_fstat64(fd, &st) == 0 && (st.st_mode & _S_IFMT) == _S_IFREG && st.st_size > 0
             ? static_cast<uint64_t>(st.st_size)
             : 0;
}
IoCount ReadSome(int fd, std::byte* data, size_t bytes) {
  return ::_read(fd, data, static_cast<unsigned>(std::min<size_t>(bytes, size_t{1} << 30)));
}
IoCount WriteSome(int fd, const std::byte* data, size_t bytes) {
  return ::_write(fd, data, static_cast<unsigned>(std::min<size_t>(bytes, size_t{1} << 30)));
}
int FlushToDisk(int fd) { return ::_commit(fd); }
int CloseFile(int fd) { return ::_close(fd); }
int RemoveFile(const std::string& path) { return ::_unlink(path.c_str()); }
uint64_t ProcessId() { return ::GetCurrentProcessId(); }
// Replaces `to` with `from` in one step, and returns once the rename is on disk.
Status MoveIntoPlace(const std::string& from, const std::string& to) {
  if (::MoveFileExA(from.c_str(), to.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
    return Status::Ok();
  }
  const DWORD error = ::GetLastError();
  char text[256] = {};
  const DWORD length = ::FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                                        nullptr, error, 0, text, sizeof text, nullptr);
  std::string message(text, length);
  while (!message.empty() && (message.back() == '\n' || message.back() == '\r' ||
                              message.back() == ' ' || message.back() == '.')) {
    message.pop_back();
  }
  if (message.empty()) message = "Windows error " + std::to_string(error);
  return Status(StatusCode::kIoError, "cannot replace '" + to + "': " + message);
}
#else
using IoCount = ssize_t;
int OpenForReading(const std::string& path) { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC); }
// Mode 0666 lets the umask set the permissions as for any new file.
int CreateExclusive(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
}
uint64_t FileSizeHint(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0
             ? static_cast<uint64_t>(st.st_size)
             : 0;
}
IoCount ReadSome(int fd, std::byte* data, size_t bytes) {
  return ::read(fd, data, std::min<size_t>(bytes, size_t{1} << 30));
}
IoCount WriteSome(int fd, const std::byte* data, size_t bytes) {
  return ::write(fd, data, std::min<size_t>(bytes, size_t{1} << 30));
}
int FlushToDisk(int fd) { return ::fsync(fd); }
int CloseFile(int fd) { return ::close(fd); }
int RemoveFile(const std::string& path) { return ::unlink(path.c_str()); }
uint64_t ProcessId() { return static_cast<uint64_t>(::getpid()); }
// rename() replaces `to` atomically (both are in the same directory).
Status MoveIntoPlace(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) == 0) return Status::Ok();
  return ErrnoStatus("cannot replace", to);
}
#endif

Status WriteAll(int fd, const std::byte* data, size_t bytes) {
  while (bytes != 0) {
    const IoCount n = WriteSome(fd, data, bytes);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status(StatusCode::kIoError, std::strerror(errno));
    }
    data += n;
    bytes -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Reads until `bytes` is full or the file ends; the count read, or -1 with errno set.
int64_t ReadFull(int fd, std::byte* data, size_t bytes) {
  size_t done = 0;
  while (done < bytes) {
    const IoCount n = ReadSome(fd, data + done, bytes - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return static_cast<int64_t>(done);
}

Status WithPath(const std::string& path, const Status& status) {
  return Status(status.code(), path + ": " + status.message());
}

}  // namespace

Expected<Array> Read(const std::string& path) {
  return GuardAllocation("npy::Read", [&]() -> Expected<Array> {
    const int fd = OpenForReading(path);
    if (fd < 0) return ErrnoStatus(errno == EISDIR ? "cannot read" : "cannot open", path);
    std::vector<std::byte> bytes;
    bytes.reserve(static_cast<size_t>(
        std::min<uint64_t>(FileSizeHint(fd), std::numeric_limits<size_t>::max())));
    std::byte buffer[1 << 16];
    for (;;) {
      const IoCount n = ReadSome(fd, buffer, sizeof buffer);
      if (n < 0) {
        if (errno == EINTR) continue;
        Status s = ErrnoStatus("cannot read", path);
        CloseFile(fd);
        return s;
      }
      if (n == 0) break;
      bytes.insert(bytes.end(), buffer, buffer + n);
    }
    CloseFile(fd);
    Expected<Array> array = Parse(bytes);
    if (!array.ok()) return WithPath(path, array.status());
    return array;
  });
}

Status Write(const std::string& path, const Array& array) {
  return GuardAllocation("npy::Write", [&]() -> Status {
    if (Status s = Check(array); !s.ok()) return s;
    const std::vector<std::byte> bytes = Serialize(array);
    Expected<PendingFile> file = PendingFile::Create(path);
    if (!file.ok()) return file.status();
    if (Status s = file->Write(bytes); !s.ok()) return s;
    return file->Commit();
  });
}

Expected<InputFile> InputFile::Open(const std::string& path) {
  return GuardAllocation("npy::InputFile::Open", [&]() -> Expected<InputFile> {
    InputFile file;
    file.path_ = path;
    file.fd_ = OpenForReading(path);
    if (file.fd_ < 0) return ErrnoStatus(errno == EISDIR ? "cannot read" : "cannot open", path);
#if defined(POSIX_FADV_SEQUENTIAL)
    ::posix_fadvise(file.fd_, 0, 0, POSIX_FADV_SEQUENTIAL);  // a hint: larger read-ahead
#endif
    // The preamble (magic, version, header length), then the header it announces.
    std::vector<std::byte> prefix(internal::kMaxPreambleBytes);
    int64_t got = ReadFull(file.fd_, prefix.data(), prefix.size());
    if (got < 0) return ErrnoStatus("cannot read", path);
    prefix.resize(static_cast<size_t>(got));
    const uint64_t size = FileSizeHint(file.fd_);  // 0: unknown (not a regular file) or empty
    if (const std::optional<internal::Preamble> preamble = internal::ReadPreamble(prefix)) {
      // The header as announced, or as much of it as the file holds (ParseHeader then reports the
      // truncation as Parse does).
      uint64_t end = preamble->bytes + preamble->header_length;
      if (size != 0) end = std::min(end, std::max<uint64_t>(size, preamble->bytes));
      if (end - preamble->bytes > kMaxStreamedHeaderBytes) {
        return WithPath(path,
                        Invalid("header length is " + std::to_string(preamble->header_length) +
                                " bytes; eltwise reads headers of at most " +
                                std::to_string(kMaxStreamedHeaderBytes) + " bytes"));
      }
      const size_t have = prefix.size();
      if (end > have) {
        prefix.resize(static_cast<size_t>(end));
        got = ReadFull(file.fd_, prefix.data() + have, prefix.size() - have);
        if (got < 0) return ErrnoStatus("cannot read", path);
        prefix.resize(have + static_cast<size_t>(got));
      }
    }
    uint64_t data_offset = 0;
    Expected<Header> header = ParseHeader(prefix, &data_offset);
    if (!header.ok()) return WithPath(path, header.status());
    file.header_ = std::move(*header);
    // A regular file: the sizes are compared now, before anything is written. Other files (pipes)
    // are checked as they are read.
    const uint64_t available = std::max(size, data_offset) - data_offset;
    if (size != 0 && available != file.header_.data_bytes()) {
      return WithPath(path, DataSizeMismatch(file.header_, available));
    }
    // ParseHeader rejects every header shorter than the bytes read for the preamble, so the file
    // position is at the data here.
    return file;
  });
}

InputFile::InputFile(InputFile&& other) noexcept { *this = std::move(other); }

InputFile& InputFile::operator=(InputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) CloseFile(fd_);
    path_ = std::move(other.path_);
    header_ = std::move(other.header_);
    fd_ = std::exchange(other.fd_, -1);
    data_read_ = other.data_read_;
  }
  return *this;
}

InputFile::~InputFile() { Close(); }

void InputFile::Close() {
  if (fd_ >= 0) CloseFile(std::exchange(fd_, -1));
}

Status InputFile::ReadData(std::span<std::byte> bytes) {
  return GuardAllocation("npy::InputFile::ReadData", [&]() -> Status {
    const uint64_t needed = header_.data_bytes();
    if (bytes.size() > needed - data_read_) {
      return Status(StatusCode::kInternal, "InputFile::ReadData past the end of the data");
    }
    const int64_t got = ReadFull(fd_, bytes.data(), bytes.size());
    if (got < 0) return ErrnoStatus("cannot read", path_);
    data_read_ += static_cast<uint64_t>(got);
    if (static_cast<size_t>(got) < bytes.size()) {
      return WithPath(path_, DataSizeMismatch(header_, data_read_));
    }
    if (data_read_ == needed) {  // the file must end here
      std::byte extra[1];
      const int64_t more = ReadFull(fd_, extra, sizeof extra);
      if (more < 0) return ErrnoStatus("cannot read", path_);
      if (more > 0) return WithPath(path_, DataSizeMismatch(header_, needed + 1));
    }
    return Status::Ok();
  });
}

Expected<PendingFile> PendingFile::Create(const std::string& path) {
  return GuardAllocation("npy::PendingFile::Create", [&]() -> Expected<PendingFile> {
    // A unique name in the same directory, so that MoveIntoPlace swaps it in atomically.
    const std::filesystem::path target(path);
    const std::filesystem::path directory = target.parent_path();
    static std::atomic<uint64_t> counter{0};
    PendingFile file;
    file.path_ = path;
    for (int attempt = 0; attempt < 100 && file.fd_ < 0; ++attempt) {
      std::string name = ".";  // appended piecewise: GCC 12 warns falsely on "." + string
      name += target.filename().string();
      name += ".tmp-" + std::to_string(ProcessId());
      name += '-';
      name += std::to_string(counter++);
      file.temp_ = (directory.empty() ? std::filesystem::path(name) : directory / name).string();
      file.fd_ = CreateExclusive(file.temp_);
      if (file.fd_ < 0 && errno != EEXIST) break;
    }
    if (file.fd_ < 0) {
      file.temp_.clear();  // nothing to remove
      return ErrnoStatus("cannot create a temporary file for", path);
    }
    return file;
  });
}

PendingFile::PendingFile(PendingFile&& other) noexcept { *this = std::move(other); }

PendingFile& PendingFile::operator=(PendingFile&& other) noexcept {
  if (this != &other) {
    Discard();
    path_ = std::move(other.path_);
    temp_ = std::exchange(other.temp_, {});
    fd_ = std::exchange(other.fd_, -1);
    written_ = other.written_;
    writeback_started_ = other.writeback_started_;
    flushed_ = other.flushed_;
  }
  return *this;
}

PendingFile::~PendingFile() { Discard(); }

Status PendingFile::Write(std::span<const std::byte> bytes) {
  return GuardAllocation("npy::PendingFile::Write", [&]() -> Status {
    if (Status s = WriteAll(fd_, bytes.data(), bytes.size()); !s.ok()) {
      return Status(StatusCode::kIoError, "cannot write '" + temp_ + "': " + s.message());
    }
    written_ += bytes.size();
    return Status::Ok();
  });
}

void PendingFile::StartWriteback() {
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
  if (written_ > writeback_started_) {
    ::sync_file_range(fd_, static_cast<off64_t>(writeback_started_),
                      static_cast<off64_t>(written_ - writeback_started_), SYNC_FILE_RANGE_WRITE);
    writeback_started_ = written_;
  }
#endif
}

Status PendingFile::Flush() {
  return GuardAllocation("npy::PendingFile::Flush", [&]() -> Status {
    if (FlushToDisk(fd_) != 0) return ErrnoStatus("cannot flush", temp_);
    flushed_ = true;
    return Status::Ok();
  });
}

Status PendingFile::Commit() {
  return GuardAllocation("npy::PendingFile::Commit", [&]() -> Status {
    Status status = flushed_ ? Status::Ok() : Flush();
    if (CloseFile(std::exchange(fd_, -1)) != 0 && status.ok()) {
      status = ErrnoStatus("cannot close", temp_);
    }
    if (status.ok()) status = MoveIntoPlace(temp_, path_);
    if (!status.ok()) {
      Discard();
      return status;
    }
    temp_.clear();  // it is `path` now
    return status;
  });
}

void PendingFile::Discard() {
  if (fd_ >= 0) CloseFile(std::exchange(fd_, -1));
  if (!temp_.empty()) RemoveFile(std::exchange(temp_, {}));
}

}  // namespace eltwise::npy
