// .npy bytes built by hand for the tests, independently of src/npy: the format is written out here
// from NumPy's format description (magic, version, header length, dict, data).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "eltwise/eltwise.h"

namespace eltwise::testing {

// Every eltwise type; a .npy file holds each (TestDescr gives its descr).
inline constexpr DataType kTestAllTypes[] = {
    DataType::kFloat32, DataType::kFloat16, DataType::kBFloat16, DataType::kFloat64,
    DataType::kInt8,    DataType::kInt16,   DataType::kInt32,    DataType::kInt64,
    DataType::kUInt8,   DataType::kUInt16,  DataType::kUInt32,   DataType::kUInt64};

// The descr NumPy uses for `type` ('<V2' for bfloat16, as np.save writes ml_dtypes.bfloat16).
inline std::string TestDescr(DataType type, bool big_endian) {
  switch (type) {
    case DataType::kFloat32:
      return big_endian ? ">f4" : "<f4";
    case DataType::kFloat16:
      return big_endian ? ">f2" : "<f2";
    case DataType::kBFloat16:
      return big_endian ? ">V2" : "<V2";
    case DataType::kFloat64:
      return big_endian ? ">f8" : "<f8";
    case DataType::kInt8:
      return "|i1";
    case DataType::kInt16:
      return big_endian ? ">i2" : "<i2";
    case DataType::kInt32:
      return big_endian ? ">i4" : "<i4";
    case DataType::kInt64:
      return big_endian ? ">i8" : "<i8";
    case DataType::kUInt8:
      return "|u1";
    case DataType::kUInt16:
      return big_endian ? ">u2" : "<u2";
    case DataType::kUInt32:
      return big_endian ? ">u4" : "<u4";
    case DataType::kUInt64:
      return big_endian ? ">u8" : "<u8";
  }
  return "?";
}

inline std::string TestDict(const std::string& descr, bool fortran, const std::string& shape) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

// A .npy file: `header` is the dict text; it is padded with spaces and '\n' so the data starts at a
// multiple of `align` bytes (64 as NumPy writes; 1 for no padding but the '\n').
inline std::vector<std::byte> TestNpyFile(int version, std::string header,
                                          const std::vector<std::byte>& data, size_t align = 64) {
  const size_t preamble = version == 1 ? 10 : 12;
  const size_t unpadded = preamble + header.size() + 1;
  header.append((align - unpadded % align) % align, ' ');
  header += '\n';
  std::vector<std::byte> file;
  const unsigned char magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  for (unsigned char c : magic) file.push_back(std::byte{c});
  file.push_back(static_cast<std::byte>(version));
  file.push_back(std::byte{0});
  for (size_t i = 0; i < preamble - 8; ++i) {
    file.push_back(static_cast<std::byte>((header.size() >> (8 * i)) & 0xFF));
  }
  for (char c : header) file.push_back(static_cast<std::byte>(c));
  file.insert(file.end(), data.begin(), data.end());
  return file;
}

// Reverses the bytes of every `element_size`-byte element.
inline std::vector<std::byte> TestSwapped(std::vector<std::byte> data, size_t element_size) {
  for (size_t i = 0; i + element_size <= data.size(); i += element_size) {
    std::reverse(data.begin() + i, data.begin() + i + element_size);
  }
  return data;
}

inline constexpr bool kTestHostBigEndian = std::endian::native == std::endian::big;

// Element bytes in this machine's order as a file of the given byte order holds them, and back
// (the same swap, or none).
inline std::vector<std::byte> TestInByteOrder(std::vector<std::byte> data, size_t element_size,
                                              bool big_endian) {
  return big_endian == kTestHostBigEndian ? data : TestSwapped(std::move(data), element_size);
}

inline std::vector<std::byte> TestBytes(const std::string& text) {
  std::vector<std::byte> bytes;
  for (char c : text) bytes.push_back(static_cast<std::byte>(c));
  return bytes;
}

// A .npy file split into its parts by the test (not by src/npy).
struct TestParsedNpy {
  bool ok = false;
  int version = 0;
  std::string header;  // the dict text with all spaces and newlines removed
  size_t data_offset = 0;
  std::vector<std::byte> data;
};

inline TestParsedNpy TestSplitNpy(const std::vector<std::byte>& file) {
  TestParsedNpy parsed;
  if (file.size() < 10 || file[0] != std::byte{0x93} ||
      std::string(reinterpret_cast<const char*>(file.data()) + 1, 5) != "NUMPY") {
    return parsed;
  }
  parsed.version = static_cast<int>(file[6]);
  const size_t preamble = parsed.version == 1 ? 10 : 12;
  if (file.size() < preamble) return parsed;
  size_t length = 0;
  for (size_t i = 8; i < preamble; ++i) length |= static_cast<size_t>(file[i]) << (8 * (i - 8));
  if (file.size() < preamble + length) return parsed;
  for (size_t i = preamble; i < preamble + length; ++i) {
    const char c = static_cast<char>(file[i]);
    if (c != ' ' && c != '\n') parsed.header += c;
  }
  parsed.data_offset = preamble + length;
  parsed.data.assign(file.begin() + static_cast<ptrdiff_t>(preamble + length), file.end());
  parsed.ok = true;
  return parsed;
}

// The header NumPy would write, with spaces removed, as TestSplitNpy returns it.
inline std::string TestCompactDict(const std::string& descr, bool fortran,
                                   const std::string& shape) {
  std::string dict = TestDict(descr, fortran, shape);
  dict.erase(std::remove(dict.begin(), dict.end(), ' '), dict.end());
  return dict;
}

}  // namespace eltwise::testing
