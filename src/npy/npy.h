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

struct Array {
  DataType type = DataType::kFloat32;
  std::vector<uint64_t> shape;
  bool fortran_order = false;
  bool big_endian = false;      // byte order in the file; `data` is always native (little-endian)
  int version = 1;              // format version read (written back unchanged)
  std::vector<std::byte> data;  // element bytes in file order (C or Fortran), native byte order

  // Product of `shape` (1 for a 0-d array). Saturates at UINT64_MAX; Parse and Check reject
  // shapes whose product or byte size does not fit in 64 bits.
  uint64_t element_count() const;
  // The tensor description of `data` as laid out (Fortran order gives column-major strides; C order
  // gives absent strides, i.e. packed row-major), with total_tensor_size_in_bytes =
  // DMLCalcBufferTensorSize. The buffer that holds it must have max(data.size(),
  // total_tensor_size_in_bytes) bytes: DirectML rounds the size up to a multiple of 4.
  TensorDesc Desc() const;
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

}  // namespace eltwise::npy
