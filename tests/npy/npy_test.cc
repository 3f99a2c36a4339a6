// Unit tests of src/npy: parsing hand-built and NumPy-written files, round trips through
// Serialize, the layout Desc() describes, rejection of malformed files, and atomic writes.
#include "npy/npy.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <thread>

#if !defined(_WIN32)
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "npy_bytes.h"
#include "scratch_files.h"

namespace eltwise::testing {
namespace {

namespace fs = std::filesystem;

// Distinct bytes 1, 8, 15, ... for `count` elements.
std::vector<std::byte> CountingBytes(DataType type, size_t count) {
  std::vector<std::byte> bytes(count * ElementSize(type));
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(i * 7 + 1);
  return bytes;
}

npy::Array ParseOk(const std::vector<std::byte>& file) {
  Expected<npy::Array> array = npy::Parse(file);
  EXPECT_TRUE(array.ok()) << array.status().ToString();
  return array.ok() ? *array : npy::Array{};
}

void ExpectInvalid(const std::vector<std::byte>& file, const std::string& phrase) {
  Expected<npy::Array> array = npy::Parse(file);
  ASSERT_FALSE(array.ok()) << "accepted; expected an error containing '" << phrase << "'";
  EXPECT_EQ(array.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(array.status().message().find(phrase), std::string::npos) << array.status().message();
  EXPECT_EQ(array.status().message().find('\n'), std::string::npos);
}

TEST(NpyParse, EveryTypeBothByteOrdersEveryVersion) {
  for (DataType type : kTestAllTypes) {
    for (bool big : {false, true}) {
      for (int version = 1; version <= 3; ++version) {
        SCOPED_TRACE(std::string(Name(type)) + (big ? " big" : " little") + " v" +
                     std::to_string(version));
        const std::vector<std::byte> native = CountingBytes(type, 6);
        const std::vector<std::byte> file_data = TestInByteOrder(native, ElementSize(type), big);
        const npy::Array a = ParseOk(
            TestNpyFile(version, TestDict(TestDescr(type, big), false, "(2, 3)"), file_data));
        EXPECT_EQ(a.type, type);
        EXPECT_EQ(a.shape, (std::vector<uint64_t>{2, 3}));
        EXPECT_FALSE(a.fortran_order);
        EXPECT_EQ(a.big_endian, big && ElementSize(type) > 1);
        EXPECT_EQ(a.version, version);
        EXPECT_EQ(a.data, native);
        EXPECT_EQ(a.element_count(), 6u);
      }
    }
  }
}

TEST(NpyParse, ByteOrderCharacters) {
  const std::vector<std::byte> data = CountingBytes(DataType::kFloat32, 2);
  for (const char* descr : {"=f4", "|f4", "f4"}) {  // native order
    const npy::Array a = ParseOk(TestNpyFile(1, TestDict(descr, false, "(2,)"), data));
    EXPECT_EQ(a.type, DataType::kFloat32) << descr;
    EXPECT_EQ(a.big_endian, kTestHostBigEndian) << descr;
    EXPECT_EQ(a.data, data);
  }
  const npy::Array little = ParseOk(TestNpyFile(1, TestDict("<f4", false, "(2,)"), data));
  EXPECT_FALSE(little.big_endian);
  EXPECT_EQ(little.data, TestInByteOrder(data, 4, false));
  for (const char* descr : {"<u1", ">u1", "|u1", "=u1"}) {
    const npy::Array a = ParseOk(TestNpyFile(1, TestDict(descr, false, "(8,)"), data));
    EXPECT_EQ(a.type, DataType::kUInt8) << descr;
    EXPECT_FALSE(a.big_endian) << descr;
    EXPECT_EQ(a.data, data);
  }
  const npy::Array bf = ParseOk(TestNpyFile(1, TestDict("=V2", false, "(4,)"), data));
  EXPECT_EQ(bf.type, DataType::kBFloat16);
}

TEST(NpyParse, HeaderVariants) {
  const std::vector<std::byte> data = CountingBytes(DataType::kInt16, 6);
  // Double quotes, no trailing comma, no padding, Python 2 long suffixes, reordered keys.
  const char* headers[] = {
      "{\"descr\": \"<i2\", \"fortran_order\": False, \"shape\": (2, 3)}",
      "{'shape': (2L, 3L), 'fortran_order': False, 'descr': '<i2'}",
      "  {'descr':'<i2','fortran_order':False,'shape':(2,3,),}  ",
  };
  for (const char* header : headers) {
    for (size_t align : {size_t{1}, size_t{16}, size_t{64}}) {
      const npy::Array a = ParseOk(TestNpyFile(1, header, data, align));
      EXPECT_EQ(a.shape, (std::vector<uint64_t>{2, 3})) << header;
      EXPECT_EQ(a.data, TestInByteOrder(data, 2, false));
    }
  }
}

TEST(NpyParse, ZeroDimensionalAndEmpty) {
  const std::vector<std::byte> one = CountingBytes(DataType::kFloat64, 1);
  const npy::Array scalar = ParseOk(TestNpyFile(1, TestDict("<f8", false, "()"), one));
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.element_count(), 1u);
  EXPECT_EQ(scalar.data, TestInByteOrder(one, 8, false));

  const npy::Array empty = ParseOk(TestNpyFile(1, TestDict("<f4", true, "(0, 5)"), {}));
  EXPECT_EQ(empty.shape, (std::vector<uint64_t>{0, 5}));
  EXPECT_EQ(empty.element_count(), 0u);
  EXPECT_TRUE(empty.data.empty());
  // A zero next to a huge dimension is still empty (no overflow).
  const npy::Array huge_empty =
      ParseOk(TestNpyFile(1, TestDict("<f8", false, "(0, 18446744073709551615, 3)"), {}));
  EXPECT_EQ(huge_empty.element_count(), 0u);
}

// Bytes np.save wrote (NumPy 2.4) for np.arange(3, dtype='>i2') with version=(1,0) and for
// np.array([1.5, -2.0], dtype=ml_dtypes.bfloat16): bfloat16 is saved with the descr '<V2'.
std::vector<std::byte> NumpyFile(const std::string& dict, const std::string& data) {
  std::string text = std::string("\x93NUMPY\x01\x00", 8) + "v" + std::string(1, '\0') + dict;
  text.append(127 - text.size(), ' ');
  text += '\n';
  text += data;
  return TestBytes(text);
}

TEST(NpyParse, FilesWrittenByNumpy) {
  const std::vector<std::byte> i2 = NumpyFile(
      "{'descr': '>i2', 'fortran_order': False, 'shape': (3,), }", std::string("\0\0\0\1\0\2", 6));
  const npy::Array a = ParseOk(i2);
  EXPECT_EQ(a.type, DataType::kInt16);
  EXPECT_TRUE(a.big_endian);
  int16_t values[3];
  ASSERT_EQ(a.data.size(), sizeof values);
  std::memcpy(values, a.data.data(), sizeof values);
  EXPECT_EQ(values[0], 0);
  EXPECT_EQ(values[1], 1);
  EXPECT_EQ(values[2], 2);
  EXPECT_EQ(npy::Serialize(a), i2);  // written back byte for byte as NumPy does

  const std::vector<std::byte> bf16 = NumpyFile(
      "{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }", std::string("\xc0?\x00\xc0", 4));
  const npy::Array b = ParseOk(bf16);
  EXPECT_EQ(b.type, DataType::kBFloat16);
  uint16_t bits[2];
  ASSERT_EQ(b.data.size(), sizeof bits);
  std::memcpy(bits, b.data.data(), sizeof bits);
  EXPECT_EQ(bits[0], 0x3FC0);  // 1.5
  EXPECT_EQ(bits[1], 0xC000);  // -2.0
  EXPECT_EQ(npy::Serialize(b), bf16);
}

TEST(NpySerialize, RoundTripsEveryLayout) {
  for (DataType type : kTestAllTypes) {
    for (bool big : {false, true}) {
      for (bool fortran : {false, true}) {
        for (int version = 1; version <= 3; ++version) {
          for (const std::vector<uint64_t>& shape :
               {std::vector<uint64_t>{}, std::vector<uint64_t>{5}, std::vector<uint64_t>{2, 3},
                std::vector<uint64_t>{2, 0, 4}, std::vector<uint64_t>{1, 2, 1, 3, 1, 1, 2, 1}}) {
            npy::Array a;
            a.type = type;
            a.shape = shape;
            a.fortran_order = fortran;
            a.big_endian = big && ElementSize(type) > 1;
            a.version = version;
            a.data = CountingBytes(type, a.element_count());
            ASSERT_TRUE(npy::Check(a).ok());
            const std::vector<std::byte> file = npy::Serialize(a);
            const TestParsedNpy split = TestSplitNpy(file);
            ASSERT_TRUE(split.ok);
            EXPECT_EQ(split.version, version);
            EXPECT_EQ(split.data_offset % 64, 0u);
            EXPECT_EQ(static_cast<char>(file[split.data_offset - 1]), '\n');
            EXPECT_EQ(split.data, TestInByteOrder(a.data, ElementSize(type), a.big_endian));
            const npy::Array b = ParseOk(file);
            EXPECT_EQ(b.type, a.type);
            EXPECT_EQ(b.shape, a.shape);
            EXPECT_EQ(b.fortran_order, a.fortran_order);
            EXPECT_EQ(b.big_endian, a.big_endian);
            EXPECT_EQ(b.version, a.version);
            EXPECT_EQ(b.data, a.data);
          }
        }
      }
    }
  }
}

TEST(NpySerialize, HeaderText) {
  npy::Array a;
  a.type = DataType::kUInt16;
  a.shape = {4};
  a.big_endian = true;
  a.fortran_order = true;
  a.data = CountingBytes(a.type, 4);
  EXPECT_EQ(TestSplitNpy(npy::Serialize(a)).header, TestCompactDict(">u2", true, "(4,)"));
  a.shape = {2, 2};
  EXPECT_EQ(TestSplitNpy(npy::Serialize(a)).header, TestCompactDict(">u2", true, "(2,2)"));
  a.shape = {};
  a.data.resize(2);
  EXPECT_EQ(TestSplitNpy(npy::Serialize(a)).header, TestCompactDict(">u2", true, "()"));
  EXPECT_EQ(npy::Descr(DataType::kBFloat16, false), "<V2");
  EXPECT_EQ(npy::Descr(DataType::kBFloat16, true), ">V2");
  EXPECT_EQ(npy::Descr(DataType::kInt8, true), "|i1");
  EXPECT_EQ(npy::Descr(DataType::kFloat64, true), ">f8");
}

TEST(NpyDesc, CAndFortranLayouts) {
  npy::Array a;
  a.type = DataType::kFloat16;
  a.shape = {2, 3, 4};
  a.data.resize(48);
  TensorDesc c = a.Desc();
  EXPECT_EQ(c.type, DataType::kFloat16);
  EXPECT_EQ(c.sizes, a.shape);
  EXPECT_FALSE(c.strides.has_value());  // packed row-major
  EXPECT_EQ(c.total_tensor_size_in_bytes, 48u);

  a.fortran_order = true;
  TensorDesc f = a.Desc();
  ASSERT_TRUE(f.strides.has_value());
  EXPECT_EQ(*f.strides, (std::vector<int64_t>{1, 2, 6}));
  EXPECT_EQ(f.total_tensor_size_in_bytes, 48u);

  // DMLCalcBufferTensorSize rounds up to 4 bytes: 3 float16 elements need 8.
  a.shape = {3};
  a.data.resize(6);
  EXPECT_EQ(a.Desc().total_tensor_size_in_bytes, 8u);
  EXPECT_FALSE(a.Desc().strides.has_value());  // 1-d Fortran order is C order

  a.shape = {};
  a.data.resize(2);
  EXPECT_TRUE(a.Desc().sizes.empty());
  EXPECT_EQ(a.Desc().total_tensor_size_in_bytes, 4u);

  // An empty Fortran-order array: a zero-sized dimension does not scale the strides after it.
  a.shape = {2, 0, 3};
  a.data.clear();
  ASSERT_TRUE(a.Desc().strides.has_value());
  EXPECT_EQ(*a.Desc().strides, (std::vector<int64_t>{1, 2, 2}));
}

TEST(NpyParse, RejectsMalformedFiles) {
  const std::vector<std::byte> data = CountingBytes(DataType::kFloat32, 6);
  const std::string dict = TestDict("<f4", false, "(2, 3)");
  const std::vector<std::byte> good = TestNpyFile(1, dict, data);
  ASSERT_TRUE(npy::Parse(good).ok());

  std::vector<std::byte> bad_magic = good;
  bad_magic[1] = std::byte{'n'};
  ExpectInvalid(bad_magic, "magic");
  ExpectInvalid(TestBytes("PK\x03\x04 this is a zip file"), "magic");
  ExpectInvalid({}, "truncated");
  ExpectInvalid(std::vector<std::byte>(good.begin(), good.begin() + 5), "truncated");
  ExpectInvalid(std::vector<std::byte>(good.begin(), good.begin() + 9), "truncated");
  ExpectInvalid(std::vector<std::byte>(good.begin(), good.begin() + 40), "truncated");
  ExpectInvalid(std::vector<std::byte>(good.end() - 1 - 60 - data.size(), good.end()), "magic");
  ExpectInvalid(std::vector<std::byte>(good.begin(), good.end() - 1), "truncated");
  std::vector<std::byte> trailing = good;
  trailing.push_back(std::byte{0});
  ExpectInvalid(trailing, "trailing");

  std::vector<std::byte> version = good;
  version[6] = std::byte{4};
  ExpectInvalid(version, "version 4.0");
  version[6] = std::byte{1};
  version[7] = std::byte{1};
  ExpectInvalid(version, "version 1.1");
  version[6] = std::byte{0};
  version[7] = std::byte{0};
  ExpectInvalid(version, "version 0.0");

  // A header length larger than the file.
  std::vector<std::byte> long_header = good;
  long_header[8] = std::byte{0xFF};
  long_header[9] = std::byte{0xFF};
  ExpectInvalid(long_header, "header length");
  std::vector<std::byte> v2 = TestNpyFile(2, dict, data);
  v2[11] = std::byte{0x80};
  ExpectInvalid(v2, "header length");

  // Each truncation boundary reports the part it cut: 8 bytes hold the magic and the version but
  // not the header length; 10 bytes hold a length whose header is missing.
  ExpectInvalid(std::vector<std::byte>(good.begin(), good.begin() + 7),
                "fewer than the magic string and version");
  ExpectInvalid(std::vector<std::byte>(good.begin(), good.begin() + 8),
                "it ends inside the header length field");
  ExpectInvalid(std::vector<std::byte>(good.begin(), good.begin() + 10),
                "the header length is " + std::to_string(good.size() - 10 - data.size()) +
                    " bytes but only 0 bytes follow the preamble");
}

// The header NumPy's way: data 64-byte aligned after a '\n'-terminated header of any length
// (a header of 256 bytes or more needs both bytes of version 1's length field), and a version
// outside 1-3 written as 1.
TEST(NpySerialize, HeaderPaddingLengthAndVersion) {
  for (const uint64_t size : {uint64_t{1000000000}, uint64_t{100000000}}) {
    for (size_t dims = 1; dims <= 64; ++dims) {
      npy::Header h;
      h.type = DataType::kUInt8;
      h.shape.assign(dims, size);
      h.shape[0] = 0;  // empty: any dims
      const std::vector<std::byte> header = npy::SerializeHeader(h);
      SCOPED_TRACE(std::to_string(dims) + " dims, " + std::to_string(header.size()) + " bytes");
      EXPECT_EQ(header.size() % 64, 0u);
      EXPECT_EQ(header.back(), std::byte{'\n'});
      size_t spaces = 0;  // the padding: fewer than 64 spaces
      while (header[header.size() - 2 - spaces] == std::byte{' '}) ++spaces;
      EXPECT_LT(spaces, 64u);
      Expected<npy::Array> back = npy::Parse(header);
      ASSERT_TRUE(back.ok()) << back.status().message();
      EXPECT_EQ(back->shape, h.shape);
    }
  }
  for (const auto& [version, written] : {std::pair{0, 1}, {1, 1}, {2, 2}, {3, 3}, {4, 1}}) {
    npy::Header h;
    h.shape = {2};
    h.version = version;
    EXPECT_EQ(npy::SerializeHeader(h).at(6), static_cast<std::byte>(written)) << version;
  }
}

TEST(NpyParse, RejectsBadHeaders) {
  const std::vector<std::byte> data = CountingBytes(DataType::kFloat32, 6);
  auto with_header = [&](const std::string& header) { return TestNpyFile(1, header, data); };
  ExpectInvalid(with_header("'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)"),
                "does not start with '{'");
  ExpectInvalid(with_header("{'descr': '<f4', 'fortran_order': False}"), "'shape' is missing");
  ExpectInvalid(with_header("{'shape': (6,), 'fortran_order': False}"), "'descr' is missing");
  ExpectInvalid(with_header("{'descr': '<f4', 'shape': (6,)}"), "'fortran_order' is missing");
  ExpectInvalid(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}"),
                "unexpected key 'x'");
  ExpectInvalid(with_header("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
                            "'shape': (6,)}"),
                "appears twice");
  ExpectInvalid(with_header("{'descr': '<f4', 'fortran_order': 0, 'shape': (6,)}"),
                "True or False");
  ExpectInvalid(with_header("{'descr': '<f4', 'fortran_order': Falsey, 'shape': (6,)}"),
                "True or False");
  ExpectInvalid(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}"), "tuple");
  ExpectInvalid(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (6)}"),
                "not a tuple");
  ExpectInvalid(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (-6,)}"),
                "negative");
  ExpectInvalid(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}"),
                "expected ',' or ')'");
  ExpectInvalid(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (6,)} junk"),
                "after the header dict");
  ExpectInvalid(with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (6,)"),
                "expected ',' or '}'");
  ExpectInvalid(with_header("{'descr: '<f4', 'fortran_order': False, 'shape': (6,)}"),
                "expected ':'");
  ExpectInvalid(with_header("{'descr': '<f\\x34', 'fortran_order': False, 'shape': (6,)}"),
                "escape");
  ExpectInvalid(with_header("{'descr': '<f4"), "string literal runs past");
  ExpectInvalid(TestNpyFile(1, "{'descr': '<f4", data, 1), "string literal runs past");
  ExpectInvalid(TestBytes(std::string("\x93NUMPY\x01\x00\x0c\x00{'descr': '<", 22)), "not closed");
  ExpectInvalid(with_header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,)}"),
                "structured");
  ExpectInvalid(with_header("{descr: '<f4', 'fortran_order': False, 'shape': (6,)}"),
                "expected a key");
  ExpectInvalid(with_header("{'descr': '<f4', 'fortran_order': False, "
                            "'shape': (99999999999999999999,)}"),
                "does not fit in 64 bits");
  std::string many = "(";
  for (int i = 0; i < 65; ++i) many += "1,";
  ExpectInvalid(with_header(TestDict("<f4", false, many + ")")), "more than 64 dimensions");
}

TEST(NpyParse, RejectsUnsupportedTypes) {
  const std::vector<std::byte> data(16);
  for (const auto& [descr, phrase] :
       std::vector<std::pair<std::string, std::string>>{{"|b1", "(bool)"},
                                                        {"|?", "(bool)"},
                                                        {"|O", "(Python objects)"},
                                                        {"<c8", "(complex)"},
                                                        {"<c16", "(complex)"},
                                                        {"<U4", "(strings)"},
                                                        {"|S16", "(strings)"},
                                                        {"<M8[s]", "(datetime)"},
                                                        {"<f16", "(this float size)"},
                                                        {"<f3", "(this float size)"},
                                                        {"<i3", "not supported"},
                                                        {"<V4", "(void)"},
                                                        {"|V2", "raw 2-byte void"},
                                                        {"", "not supported"},
                                                        {"<", "not supported"},
                                                        {"bfloat16", "not supported"}}) {
    SCOPED_TRACE(descr);
    ExpectInvalid(TestNpyFile(1, TestDict(descr, false, "(1,)"), data), phrase);
  }
}

TEST(NpyParse, RejectsSizeMismatchAndOverflow) {
  const std::vector<std::byte> data = CountingBytes(DataType::kFloat32, 6);
  ExpectInvalid(TestNpyFile(1, TestDict("<f4", false, "(7,)"), data), "truncated");
  ExpectInvalid(TestNpyFile(1, TestDict("<f4", false, "(5,)"), data), "trailing");
  ExpectInvalid(TestNpyFile(1, TestDict("<f4", false, "(4294967296, 4294967296)"), data),
                "more than 2^64 - 1 elements");
  ExpectInvalid(TestNpyFile(1, TestDict("<f8", false, "(4611686018427387904,)"), data),
                "more than 2^64 - 1 bytes");
  ExpectInvalid(TestNpyFile(1, TestDict("<f4", false, "(18446744073709551615,)"), data),
                "more than 2^64 - 1 bytes");
  ExpectInvalid(TestNpyFile(1, TestDict("<f4", false, "(1099511627776,)"), data), "truncated");
}

// Every prefix of a valid file and many corrupted copies are rejected or parsed without reading
// past the end (run under AddressSanitizer to check the reads).
TEST(NpyParse, TruncationsAndCorruptionsNeverCrash) {
  const std::vector<std::byte> data = CountingBytes(DataType::kFloat64, 12);
  for (int version = 1; version <= 3; ++version) {
    const std::vector<std::byte> good = TestNpyFile(version, TestDict("<f8", true, "(3, 4)"), data);
    for (size_t n = 0; n < good.size(); ++n) {
      const std::vector<std::byte> prefix(good.begin(), good.begin() + n);
      Expected<npy::Array> a = npy::Parse(prefix);
      ASSERT_FALSE(a.ok()) << n;
      EXPECT_EQ(a.status().code(), StatusCode::kInvalidArgument);
    }
    std::mt19937 rng(1234 + version);
    for (int trial = 0; trial < 5000; ++trial) {
      std::vector<std::byte> corrupted = good;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        const size_t at = rng() % std::min<size_t>(corrupted.size(), 140);
        corrupted[at] = static_cast<std::byte>(rng());
      }
      Expected<npy::Array> a = npy::Parse(corrupted);
      if (a.ok()) {
        EXPECT_TRUE(npy::Check(*a).ok());
      } else {
        EXPECT_EQ(a.status().code(), StatusCode::kInvalidArgument);
      }
    }
  }
}

TEST(NpyCheck, RejectsInconsistentArrays) {
  npy::Array a;
  a.type = DataType::kInt32;
  a.shape = {3};
  a.data.resize(8);
  EXPECT_EQ(npy::Check(a).code(), StatusCode::kInvalidArgument);
  a.data.resize(12);
  EXPECT_TRUE(npy::Check(a).ok());
  a.version = 4;
  EXPECT_EQ(npy::Check(a).code(), StatusCode::kInvalidArgument);
  a.version = 0;
  EXPECT_EQ(npy::Check(a).code(), StatusCode::kInvalidArgument);
  a.version = 1;
  a.shape = {1ull << 62, 8};
  EXPECT_EQ(npy::Check(a).code(), StatusCode::kInvalidArgument);

  a.shape = {3};
  a.type = static_cast<DataType>(kDataTypeCount);
  Status s = npy::Check(a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(
      s.message().find("type is " + std::to_string(kDataTypeCount) + ", which is not a data type"),
      std::string::npos)
      << s.message();

  a.type = DataType::kUInt8;
  a.shape.assign(65, 1);
  a.data.resize(1);
  s = npy::Check(a);
  EXPECT_NE(s.message().find("shape has 65 dimensions; at most 64 are allowed"), std::string::npos)
      << s.message();
  a.shape.assign(64, 1);
  EXPECT_TRUE(npy::Check(a).ok());

  // A zero dimension makes the array empty, whatever the other dimensions' product would be.
  a.shape = {1ull << 62, 1ull << 62, 0};  // the product overflows before the zero
  a.data.clear();
  EXPECT_TRUE(npy::Check(a).ok()) << npy::Check(a).message();
}

// Sizes past 2^64 saturate rather than wrap: the byte count, and Fortran-order strides (clamped to
// the largest int64, with no buffer size).
TEST(NpyHeader, SizesAndStridesSaturate) {
  npy::Header h;
  h.type = DataType::kFloat64;
  h.shape = {1ull << 62};
  EXPECT_EQ(h.element_count(), 1ull << 62);
  EXPECT_EQ(h.data_bytes(), std::numeric_limits<uint64_t>::max());

  h.type = DataType::kUInt8;
  h.fortran_order = true;
  h.shape = {1ull << 32, 1ull << 32, 2};
  const TensorDesc d = h.Desc();
  ASSERT_TRUE(d.strides.has_value());
  EXPECT_EQ(*d.strides,
            (std::vector<int64_t>{1, int64_t{1} << 32, std::numeric_limits<int64_t>::max()}));
  EXPECT_EQ(d.total_tensor_size_in_bytes, 0u);
}

class NpyFiles : public ScratchDirTest {};

TEST_F(NpyFiles, WriteReplacesWholeAndLeavesNoTemporaryFiles) {
  npy::Array a;
  a.type = DataType::kUInt32;
  a.shape = {2, 2};
  a.big_endian = true;
  a.data = CountingBytes(a.type, 4);
  const fs::path path = dir_ / "a.npy";
  WriteFileBytes(path,
                 TestBytes("previous contents that are longer than the new file will be......"));
  ASSERT_TRUE(npy::Write(path.string(), a).ok());
  EXPECT_EQ(ReadFileBytes(path), npy::Serialize(a));
  Expected<npy::Array> b = npy::Read(path.string());
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->data, a.data);
  size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "a.npy");
  }
  EXPECT_EQ(files, 1u);
}

TEST_F(NpyFiles, WriteErrorsLeaveTheTargetUntouched) {
  npy::Array a;
  a.type = DataType::kFloat32;
  a.shape = {3};
  a.data.resize(8);  // inconsistent with the shape
  const fs::path path = dir_ / "out.npy";
  const std::vector<std::byte> before = TestBytes("untouched");
  WriteFileBytes(path, before);
  Status s = npy::Write(path.string(), a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadFileBytes(path), before);

  a.data.resize(12);
  s = npy::Write((dir_ / "missing" / "out.npy").string(), a);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_NE(s.message().find("missing"), std::string::npos) << s.message();

  // A directory in the way: rename fails, the temporary file is removed.
  fs::create_directories(dir_ / "dir.npy" / "x");
  s = npy::Write((dir_ / "dir.npy").string(), a);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(FilesInDir(), 2u);  // out.npy and dir.npy only
}

TEST_F(NpyFiles, ReadErrors) {
  Expected<npy::Array> missing = npy::Read((dir_ / "missing.npy").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kIoError);
  EXPECT_EQ(missing.status().message().rfind(
                "cannot open '" + (dir_ / "missing.npy").string() + "': ", 0),
            0u)
      << missing.status().message();

  Expected<npy::Array> directory = npy::Read(dir_.string());
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.status().code(), StatusCode::kIoError);

  const fs::path bad = dir_ / "bad.npy";
  WriteFileBytes(bad, TestBytes("not a numpy file"));
  Expected<npy::Array> malformed = npy::Read(bad.string());
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(malformed.status().message().find("bad.npy"), std::string::npos);
}

// InputFile (the streamed reader) accepts and rejects exactly what Parse does, with the same
// message after the path, and reads the same data in the file's byte order, in pieces.
TEST_F(NpyFiles, InputFileAgreesWithParse) {
  const fs::path path = dir_ / "in.npy";
  const auto check = [&](const std::vector<std::byte>& file, const std::string& what) {
    SCOPED_TRACE(what);
    WriteFileBytes(path, file);
    Expected<npy::Array> parsed = npy::Parse(file);
    Expected<npy::InputFile> input = npy::InputFile::Open(path.string());
    if (!parsed.ok()) {
      ASSERT_FALSE(input.ok());
      EXPECT_EQ(input.status().code(), parsed.status().code());
      EXPECT_EQ(input.status().message(), path.string() + ": " + parsed.status().message());
      return;
    }
    ASSERT_TRUE(input.ok()) << input.status().message();
    const npy::Header& h = input->header();
    EXPECT_EQ(h.type, parsed->type);
    EXPECT_EQ(h.shape, parsed->shape);
    EXPECT_EQ(h.fortran_order, parsed->fortran_order);
    EXPECT_EQ(h.big_endian, parsed->big_endian);
    EXPECT_EQ(h.version, parsed->version);
    std::vector<std::byte> data(h.data_bytes());
    for (size_t at = 0; at < data.size(); at += 5) {  // odd pieces
      const size_t n = std::min<size_t>(5, data.size() - at);
      ASSERT_TRUE(input->ReadData(std::span<std::byte>(data.data() + at, n)).ok());
    }
    if (data.empty()) EXPECT_TRUE(input->ReadData({}).ok());
    EXPECT_EQ(TestInByteOrder(data, ElementSize(h.type), h.big_endian), parsed->data);
  };
  const std::vector<std::byte> data = CountingBytes(DataType::kFloat64, 12);
  for (int version = 1; version <= 3; ++version) {
    const std::vector<std::byte> good = TestNpyFile(version, TestDict(">f8", true, "(3, 4)"), data);
    check(good, "good");
    check(TestNpyFile(version, TestDict("<f4", false, "(0, 4)"), {}), "empty");
    for (size_t n = 0; n <= good.size() + 3; n += 1 + n / 16) {
      std::vector<std::byte> prefix(good.begin(), good.begin() + std::min(n, good.size()));
      prefix.resize(n, std::byte{1});  // longer than the file: trailing bytes
      check(prefix, "first " + std::to_string(n) + " bytes");
    }
    std::mt19937 rng(99 + version);
    for (int trial = 0; trial < 300; ++trial) {
      std::vector<std::byte> corrupted = good;
      corrupted[rng() % std::min<size_t>(corrupted.size(), 140)] = static_cast<std::byte>(rng());
      check(corrupted, "corruption " + std::to_string(trial));
    }
  }
  // A header of exactly the most bytes InputFile reads (1 MiB, no padding) is read.
  const std::string dict = TestDict("<f4", false, "(1,)");
  const std::vector<std::byte> longest =
      TestNpyFile(2, dict + std::string((size_t{1} << 20) - 1 - dict.size(), ' '),
                  CountingBytes(DataType::kFloat32, 1), 1);
  ASSERT_EQ(longest.size(), 12 + (size_t{1} << 20) + 4);
  check(longest, "a header of 1 MiB");
  // A header longer than InputFile reads (Parse has no such limit): named in the message.
  std::vector<std::byte> long_header =
      TestNpyFile(2, TestDict("<f4", false, "(1,)") + std::string(2 << 20, ' '), data);
  long_header.resize(long_header.size() - data.size() + 4);
  WriteFileBytes(path, long_header);
  Expected<npy::InputFile> input = npy::InputFile::Open(path.string());
  ASSERT_FALSE(input.ok());
  EXPECT_EQ(input.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(input.status().message().find("eltwise reads headers of at most 1048576 bytes"),
            std::string::npos)
      << input.status().message();
}

// PendingFile: `path` untouched until Commit; Discard (and the destructor) leave no temporary.
TEST_F(NpyFiles, PendingFileReplacesOnlyOnCommit) {
  const fs::path path = dir_ / "out.npy";
  WriteFileBytes(path, TestBytes("old"));
  {
    Expected<npy::PendingFile> file = npy::PendingFile::Create(path.string());
    ASSERT_TRUE(file.ok());
    ASSERT_TRUE(file->Write(TestBytes("new")).ok());
    EXPECT_EQ(ReadFileBytes(path), TestBytes("old"));
  }  // destroyed without Commit
  EXPECT_EQ(ReadFileBytes(path), TestBytes("old"));
  Expected<npy::PendingFile> file = npy::PendingFile::Create(path.string());
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(file->Write(TestBytes("ne")).ok());
  file->StartWriteback();
  ASSERT_TRUE(file->Write(TestBytes("w")).ok());
  ASSERT_TRUE(file->Commit().ok());
  EXPECT_EQ(ReadFileBytes(path), TestBytes("new"));
  EXPECT_EQ(FilesInDir(), 1u);
}

// The temporary's name: `.NAME.tmp-PROCESS-COUNTER` beside the target. A name that exists is
// skipped for the next counter, up to 100 names a call; then creation fails with the system's
// reason.
TEST_F(NpyFiles, PendingFileSkipsNamesThatExist) {
  const fs::path path = dir_ / "out.npy";
  std::string prefix;
  uint64_t next = 0;
  {
    Expected<npy::PendingFile> probe = npy::PendingFile::Create(path.string());
    ASSERT_TRUE(probe.ok()) << probe.status().ToString();
    const std::string& temp = probe->temp_path();
    prefix = temp.substr(0, temp.rfind('-') + 1);
    ASSERT_EQ(prefix.rfind((dir_ / ".out.npy.tmp-").string(), 0), 0u) << temp;
    next = std::stoull(temp.substr(prefix.size())) + 1;
  }
  const auto occupy = [&](uint64_t first, uint64_t count) {
    for (uint64_t c = first; c < first + count; ++c) {
      WriteFileBytes(prefix + std::to_string(c), TestBytes("taken"));
    }
  };
  occupy(next, 99);  // the 100th name a call tries is used
  Expected<npy::PendingFile> file = npy::PendingFile::Create(path.string());
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->temp_path(), prefix + std::to_string(next + 99));
  ASSERT_TRUE(file->Write(TestBytes("new")).ok());
  ASSERT_TRUE(file->Commit().ok());
  EXPECT_EQ(ReadFileBytes(path), TestBytes("new"));

  next += 100;
  occupy(next, 100);  // every name one call tries
  Expected<npy::PendingFile> refused = npy::PendingFile::Create(path.string());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kIoError);
  EXPECT_EQ(refused.status().message(),
            "cannot create a temporary file for '" + path.string() + "': " + std::strerror(EEXIST));
  EXPECT_EQ(ReadFileBytes(path), TestBytes("new"));
}

#if !defined(_WIN32)
bool IsOpen(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

// Standard input closed for a test's scope, so that the next file opened gets descriptor 0; put
// back at the end, also when an assertion leaves the test early.
class StdinClosed {
 public:
  StdinClosed() : saved_(::dup(0)) { ::close(0); }
  ~StdinClosed() {
    if (saved_ >= 0) {
      ::dup2(saved_, 0);
      ::close(saved_);
    }
  }
  StdinClosed(const StdinClosed&) = delete;
  StdinClosed& operator=(const StdinClosed&) = delete;
  bool ok() const { return saved_ >= 0; }

 private:
  int saved_;
};

// With standard input closed, the next file opened gets descriptor 0 (a tool started with stdin
// closed). The temporary and the streamed reader use it as any other and close it when done.
TEST_F(NpyFiles, DescriptorZeroIsAFileLikeAnyOther) {
  const fs::path in = dir_ / "in.npy", other = dir_ / "other.npy", out = dir_ / "out.npy";
  const std::vector<std::byte> data = CountingBytes(DataType::kUInt16, 6);
  WriteFileBytes(in, TestNpyFile(1, TestDict("<u2", false, "(2, 3)"), data));
  WriteFileBytes(other, TestNpyFile(1, TestDict("<u2", false, "(6,)"), data));
  const StdinClosed closed;
  ASSERT_TRUE(closed.ok());
  ASSERT_FALSE(IsOpen(0));
  {
    Expected<npy::PendingFile> file = npy::PendingFile::Create(out.string());
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    EXPECT_TRUE(IsOpen(0));  // the temporary
    ASSERT_TRUE(file->Write(TestBytes("abc")).ok());
    ASSERT_TRUE(file->Commit().ok());
    EXPECT_FALSE(IsOpen(0));
  }
  EXPECT_EQ(ReadFileBytes(out), TestBytes("abc"));
  {
    Expected<npy::PendingFile> file = npy::PendingFile::Create(out.string());
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    EXPECT_TRUE(IsOpen(0));
  }  // discarded
  EXPECT_FALSE(IsOpen(0));
  EXPECT_EQ(FilesInDir(), 3u);  // in, other and out: no temporary left

  Expected<npy::Array> whole = npy::Read(in.string());  // through descriptor 0, then closed
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->data, data);
  EXPECT_FALSE(IsOpen(0));

  Expected<npy::InputFile> input = npy::InputFile::Open(in.string());
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_TRUE(IsOpen(0));
  std::vector<std::byte> read(data.size());
  ASSERT_TRUE(input->ReadData(read).ok());
  EXPECT_EQ(read, data);
  Expected<npy::InputFile> second = npy::InputFile::Open(other.string());
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  *input = std::move(*second);  // closes descriptor 0
  EXPECT_FALSE(IsOpen(0));
  EXPECT_EQ(input->header().shape, std::vector<uint64_t>{6});
  {
    Expected<npy::InputFile> third = npy::InputFile::Open(in.string());
    ASSERT_TRUE(third.ok()) << third.status().ToString();
    EXPECT_TRUE(IsOpen(0));
  }  // destroyed
  EXPECT_FALSE(IsOpen(0));
}

// Closing twice (Close, Discard, then the destructor) closes a descriptor once: a descriptor the
// process opened since, here 0, stays open.
TEST_F(NpyFiles, ClosingTwiceClosesOnce) {
  const fs::path in = dir_ / "in.npy", out = dir_ / "out.npy";
  WriteFileBytes(
      in, TestNpyFile(1, TestDict("<u2", false, "(6,)"), CountingBytes(DataType::kUInt16, 6)));
  const StdinClosed closed;
  ASSERT_TRUE(closed.ok());
  {
    Expected<npy::InputFile> input = npy::InputFile::Open(in.string());
    ASSERT_TRUE(input.ok()) << input.status().ToString();
    input->Close();
    const int other = ::open(in.c_str(), O_RDONLY);  // descriptor 0, free again
    ASSERT_EQ(other, 0);
  }  // the destructor closes nothing more
  EXPECT_TRUE(IsOpen(0));
  ::close(0);
  {
    Expected<npy::PendingFile> file = npy::PendingFile::Create(out.string());
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    file->Discard();
    const int other = ::open(in.c_str(), O_RDONLY);
    ASSERT_EQ(other, 0);
  }
  EXPECT_TRUE(IsOpen(0));
  ::close(0);
  EXPECT_FALSE(fs::exists(out));
}

// A FIFO's writer: opens `path` for writing (it waits for the reader), writes `bytes` in one
// call (under PIPE_BUF: the reader sees all or nothing of it) and closes, ending the stream.
std::jthread FeedFifo(const fs::path& path, std::vector<std::byte> bytes) {
  return std::jthread([path, bytes = std::move(bytes)] {
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);  // a reader gone early: EPIPE, not death
    const int fd = ::open(path.c_str(), O_WRONLY);
    if (fd < 0) return;
    [[maybe_unused]] const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    ::close(fd);
  });
}

// Streamed input with no size known up front (a FIFO): the data's end is found by reading one
// byte more, so trailing bytes are reported as the data and one byte over; a stream that ends
// inside the header is reported as Parse reports the same bytes.
TEST_F(NpyFiles, InputFileFromAFifo) {
  const fs::path fifo = dir_ / "in.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  const std::vector<std::byte> data = CountingBytes(DataType::kFloat32, 6);
  const std::vector<std::byte> good = TestNpyFile(1, TestDict("<f4", false, "(2, 3)"), data);
  ASSERT_LT(good.size() + 3, size_t{PIPE_BUF});
  {
    const std::jthread writer = FeedFifo(fifo, good);
    Expected<npy::InputFile> input = npy::InputFile::Open(fifo.string());
    ASSERT_TRUE(input.ok()) << input.status().ToString();
    std::vector<std::byte> read(data.size());
    ASSERT_TRUE(input->ReadData(read).ok());
    EXPECT_EQ(read, data);
  }
  {
    std::vector<std::byte> longer = good;
    longer.resize(good.size() + 3, std::byte{9});
    const std::jthread writer = FeedFifo(fifo, longer);
    Expected<npy::InputFile> input = npy::InputFile::Open(fifo.string());
    ASSERT_TRUE(input.ok()) << input.status().ToString();
    std::vector<std::byte> read(data.size());
    const Status s = input->ReadData(read);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(), fifo.string() +
                               ": .npy data has 25 bytes but shape (2, 3) of float32 needs 24 "
                               "(trailing bytes)");
  }
  {
    const std::vector<std::byte> preamble(good.begin(), good.begin() + 12);
    const std::jthread writer = FeedFifo(fifo, preamble);
    Expected<npy::InputFile> input = npy::InputFile::Open(fifo.string());
    Expected<npy::Array> parsed = npy::Parse(preamble);
    ASSERT_FALSE(parsed.ok());
    ASSERT_FALSE(input.ok());
    EXPECT_EQ(input.status().code(), parsed.status().code());
    EXPECT_EQ(input.status().message(), fifo.string() + ": " + parsed.status().message());
  }
}
#endif

// The vectorized byte swap against a byte-by-byte reversal, for every element size.
TEST(NpySwap, SwapElementBytesReversesEachElement) {
  for (size_t size : {1, 2, 3, 4, 8, 16}) {  // 3 and 16: the generic loop
    std::vector<std::byte> bytes(size * 37);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(i * 7 + 1);
    std::vector<std::byte> swapped = bytes;
    npy::SwapElementBytes(swapped, size);
    for (size_t i = 0; i < bytes.size(); ++i) {
      const size_t element = i / size, within = i % size;
      ASSERT_EQ(swapped[i], bytes[element * size + (size - 1 - within)]) << size << " " << i;
    }
  }
}

}  // namespace
}  // namespace eltwise::testing
