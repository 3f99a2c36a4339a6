// NumPy .npy files (format versions 1, 2 and 3): C or Fortran order, little- or big-endian.
// Used by the CLI, the ONNX runner and the fuzzers. Parse never crashes on malformed input: it
// returns kInvalidArgument with a message naming what is wrong.
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
  bool big_endian = false;  // byte order in the file; `data` is always native (little-endian)
  int version = 1;          // format version read (written back unchanged)
  std::vector<std::byte> data;  // element bytes in file order (C or Fortran), native byte order

  uint64_t element_count() const;
  // The tensor description of `data` as laid out (Fortran order gives column-major strides),
  // with total_tensor_size_in_bytes = DMLCalcBufferTensorSize.
  TensorDesc Desc() const;
};

Expected<Array> Parse(std::span<const std::byte> file_bytes);
Expected<Array> Read(const std::string& path);
std::vector<std::byte> Serialize(const Array& array);
// Writes to a temporary file beside `path` and renames it into place, so `path` is either left
// untouched or replaced whole.
Status Write(const std::string& path, const Array& array);

}  // namespace eltwise::npy
