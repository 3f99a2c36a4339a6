// NumPy .npy files (format versions 1, 2 and 3): C or Fortran order, little- or big-endian.
// Used by the CLI, the ONNX runner and the fuzzers. Parse never crashes on malformed input: it
// returns kInvalidArgument with a message naming what is wrong.
//
// Data types: the descr strings f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 with a byte-order character
// '<', '>', '|' or '=' ('|' and '=' mean native order; 1-byte types have no order), and bfloat16.
// NumPy has no bfloat16: np.save of an ml_dtypes.bfloat16 array writes the descr '<V2' (or '>V2'
// for a byte-swapped array), so '<V2' / '>V2' / '=V2' are read as bfloat16 and bfloat16 is
// written as '<V2' or '>V2' (np.load(...).view(ml_dtypes.bfloat16) gets it back). '|V2' is
// plain 2-byte void data (np.void), which is rejected. Every other descr (bool, object, complex,
// strings, datetimes, float128, structured dtypes) is rejected.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "eltwise/status.h"
#include "eltwise/tensor.h"
#include "eltwise/types.h"

namespace eltwise::npy {

// What a .npy header says: everything about the array but its element bytes.
struct Header {
  DataType type = DataType::kFloat32;
  std::vector<uint64_t> shape;
  bool fortran_order = false;
  bool big_endian = false;  // byte order in the file
  int version = 1;          // format version read (written back unchanged)

  // Product of `shape` (1 for a 0-d array). Saturates at UINT64_MAX; Parse and Check reject
  // shapes whose product or byte size does not fit in 64 bits.
  uint64_t element_count() const;
  // element_count() * ElementSize(type), saturating like element_count().
  uint64_t data_bytes() const;
  // The tensor description of the data as laid out (Fortran order gives column-major strides; C
  // order gives absent strides, i.e. packed row-major), with total_tensor_size_in_bytes =
  // DMLCalcBufferTensorSize. The buffer that holds it must have max(data bytes,
  // total_tensor_size_in_bytes) bytes: DirectML rounds the size up to a multiple of 4.
  TensorDesc Desc() const;
};

struct Array : Header {
  std::vector<std::byte> data;  // element bytes in file order (C or Fortran), native byte order
};

// The descr string for `type` in the given byte order ("<f4", ">i8", "|u1", "<V2" for bfloat16).
std::string Descr(DataType type, bool big_endian);

// kInvalidArgument unless `array` can be written: version 1-3, at most 64 dimensions, the element
// count and byte size fit in 64 bits, and data.size() == element_count() * ElementSize(type).
Status Check(const Array& array);

Expected<Array> Parse(std::span<const std::byte> file_bytes);
// kIoError if the file cannot be opened or read; otherwise as Parse.
Expected<Array> Read(const std::string& path);
// The file bytes of `array`, which must pass Check (the caller's contract; Write checks it).
// The header is padded with spaces so the data starts at a multiple of 64 bytes, like np.save.
std::vector<std::byte> Serialize(const Array& array);
// Writes to a temporary file beside `path` and renames it into place, so `path` is either left
// untouched or replaced whole. kInvalidArgument if the array fails Check (nothing is written);
// kIoError if the file cannot be written.
Status Write(const std::string& path, const Array& array);

// Streaming, for files of any size (the CLI's sign and round): a header read or written on its
// own, the element bytes in pieces.

// The bytes before the data for `header`: magic, version, header length and the dict, padded with
// spaces so the data starts at a multiple of 64 bytes, like np.save. Serialize(array) is this
// followed by the data.
std::vector<std::byte> SerializeHeader(const Header& header);

// Reverses the bytes of each `element_size`-byte element of `bytes` (whose size is a multiple of
// it): between a file's byte order and this machine's when they differ.
void SwapElementBytes(std::span<std::byte> bytes, size_t element_size);
// Whether data in `header`'s byte order must be swapped to be native (and back).
bool NeedsSwap(const Header& header);

// A .npy file opened for reading its data piece by piece. Open reads and checks the header (the
// same rules and messages as Parse, prefixed by the path); where the file's size is known it must
// match the shape, else the pieces' reads find the mismatch.
class InputFile {
 public:
  // kIoError if the file cannot be opened or read; kInvalidArgument for a malformed file, or a
  // header longer than kMaxStreamedHeaderBytes.
  static Expected<InputFile> Open(const std::string& path);
  static constexpr uint64_t kMaxStreamedHeaderBytes = uint64_t{1} << 20;

  InputFile(InputFile&& other) noexcept;
  InputFile& operator=(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile();

  const Header& header() const { return header_; }
  const std::string& path() const { return path_; }
  // Fills `bytes` with the next data bytes, in file order and byte order. After the last piece
  // (data_bytes() in all) it also checks that the file ends there. kInvalidArgument if the file
  // ends early or has trailing bytes; kIoError if a read fails.
  Status ReadData(std::span<std::byte> bytes);
  // Closes the file (also done by the destructor). Windows cannot replace a file that is open, so
  // an output that replaces its input (IN == OUT) needs the input closed first.
  void Close();

 private:
  InputFile() = default;
  std::string path_;
  Header header_;
  int fd_ = -1;
  uint64_t data_read_ = 0;
};

// A file written under a temporary name beside `path` (same directory, so the final rename is
// atomic) and moved over `path` by Commit: until then `path` is untouched. The destructor removes
// the temporary unless Commit succeeded.
class PendingFile {
 public:
  // kIoError if no temporary can be created beside `path`.
  static Expected<PendingFile> Create(const std::string& path);

  PendingFile(PendingFile&& other) noexcept;
  PendingFile& operator=(PendingFile&& other) noexcept;
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  ~PendingFile();

  const std::string& temp_path() const { return temp_; }
  // Appends `bytes`. kIoError naming the temporary (e.g. "No space left on device").
  Status Write(std::span<const std::byte> bytes);
  // Asks the system to start writing the file's dirty pages to disk now, without waiting (Linux:
  // sync_file_range; elsewhere nothing), so that Commit's flush finds less to do.
  void StartWriteback();
  // Flushes the data to disk (fsync).
  Status Flush();
  // Flushes (unless Flush was called), closes, and renames the temporary over `path`.
  Status Commit();
  // Closes and removes the temporary; `path` stays untouched.
  void Discard();

 private:
  PendingFile() = default;
  std::string path_, temp_;
  int fd_ = -1;
  uint64_t written_ = 0, writeback_started_ = 0;
  bool flushed_ = false;
};

}  // namespace eltwise::npy
