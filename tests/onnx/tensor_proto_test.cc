// TensorProto decoding of every storage form, its error messages, tensor files and comparison.
// Expected bytes are written out literally here (little-endian element bit patterns).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include "onnx/onnx_frontend.h"
#include "scratch_files.h"
#include "untouched_bytes.h"

#if defined(ELTWISE_ONNX_TEST_NPY)
#include "npy/npy.h"
#endif

namespace eltwise::onnx_frontend {
namespace {

using ::onnx::TensorProto;

std::vector<std::byte> Serialize(const TensorProto& t) {
  const std::string s = t.SerializeAsString();
  std::vector<std::byte> out(s.size());
  std::memcpy(out.data(), s.data(), s.size());
  return out;
}

template <class T>
std::vector<std::byte> Bytes(std::initializer_list<T> values) {
  std::vector<std::byte> out(values.size() * sizeof(T));
  std::memcpy(out.data(), std::data(values), out.size());
  return out;
}

TensorProto Make(int type, std::vector<int64_t> dims) {
  TensorProto t;
  t.set_name("t");
  t.set_data_type(type);
  for (int64_t d : dims) t.add_dims(d);
  return t;
}

HostTensor DecodeOk(const TensorProto& t) {
  Expected<HostTensor> r = DecodeTensorProto(Serialize(t));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : HostTensor{};
}

std::string DecodeError(const TensorProto& t) {
  Expected<HostTensor> r = DecodeTensorProto(Serialize(t));
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

TEST(TensorProtoDecode, RawDataFloat) {
  TensorProto t = Make(TensorProto::FLOAT, {2});
  const std::vector<std::byte> raw = Bytes<uint32_t>({0x3FC00000u, 0x80000000u});  // 1.5, -0
  t.set_raw_data(raw.data(), raw.size());
  const HostTensor h = DecodeOk(t);
  EXPECT_EQ(h.name, "t");
  EXPECT_EQ(h.type, DataType::kFloat32);
  EXPECT_EQ(h.shape, (std::vector<uint64_t>{2}));
  EXPECT_EQ(h.data, raw);
}

TEST(TensorProtoDecode, RawDataEveryType) {
  const struct {
    int onnx;
    DataType type;
    size_t size;
  } cases[] = {
      {TensorProto::FLOAT, DataType::kFloat32, 4},
      {TensorProto::FLOAT16, DataType::kFloat16, 2},
      {TensorProto::BFLOAT16, DataType::kBFloat16, 2},
      {TensorProto::DOUBLE, DataType::kFloat64, 8},
      {TensorProto::INT8, DataType::kInt8, 1},
      {TensorProto::INT16, DataType::kInt16, 2},
      {TensorProto::INT32, DataType::kInt32, 4},
      {TensorProto::INT64, DataType::kInt64, 8},
      {TensorProto::UINT8, DataType::kUInt8, 1},
      {TensorProto::UINT16, DataType::kUInt16, 2},
      {TensorProto::UINT32, DataType::kUInt32, 4},
      {TensorProto::UINT64, DataType::kUInt64, 8},
  };
  for (const auto& c : cases) {
    TensorProto t = Make(c.onnx, {3, 1});
    std::string raw(3 * c.size, '\0');
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<char>(0xA0 + i);
    t.set_raw_data(raw);
    const HostTensor h = DecodeOk(t);
    EXPECT_EQ(h.type, c.type) << c.onnx;
    EXPECT_EQ(h.shape, (std::vector<uint64_t>{3, 1}));
    ASSERT_EQ(h.data.size(), raw.size());
    EXPECT_EQ(std::memcmp(h.data.data(), raw.data(), raw.size()), 0);
    EXPECT_EQ(OnnxDataType(c.type), c.onnx);
    EXPECT_EQ(FromOnnxDataType(c.onnx), c.type);
  }
}

TEST(TensorProtoDecode, FloatData) {
  TensorProto t = Make(TensorProto::FLOAT, {3});
  t.add_float_data(-2.5f);
  t.add_float_data(std::numeric_limits<float>::infinity());
  t.add_float_data(std::bit_cast<float>(0x00000001u));  // smallest subnormal
  EXPECT_EQ(DecodeOk(t).data, Bytes<uint32_t>({0xC0200000u, 0x7F800000u, 0x00000001u}));
}

TEST(TensorProtoDecode, DoubleData) {
  TensorProto t = Make(TensorProto::DOUBLE, {2});
  t.add_double_data(0.5);
  t.add_double_data(-0.0);
  EXPECT_EQ(DecodeOk(t).data, Bytes<uint64_t>({0x3FE0000000000000ull, 0x8000000000000000ull}));
}

TEST(TensorProtoDecode, Int32DataInt32) {
  TensorProto t = Make(TensorProto::INT32, {2});
  t.add_int32_data(std::numeric_limits<int32_t>::min());
  t.add_int32_data(7);
  EXPECT_EQ(DecodeOk(t).data, Bytes<int32_t>({std::numeric_limits<int32_t>::min(), 7}));
}

TEST(TensorProtoDecode, Int32DataPackedNarrowIntegers) {
  TensorProto i8 = Make(TensorProto::INT8, {3});
  for (int v : {-128, -1, 127}) i8.add_int32_data(v);
  EXPECT_EQ(DecodeOk(i8).data, Bytes<uint8_t>({0x80, 0xFF, 0x7F}));

  TensorProto u8 = Make(TensorProto::UINT8, {2});
  for (int v : {0, 255}) u8.add_int32_data(v);
  EXPECT_EQ(DecodeOk(u8).data, Bytes<uint8_t>({0x00, 0xFF}));

  TensorProto i16 = Make(TensorProto::INT16, {2});
  for (int v : {-32768, 32767}) i16.add_int32_data(v);
  EXPECT_EQ(DecodeOk(i16).data, Bytes<uint16_t>({0x8000, 0x7FFF}));

  TensorProto u16 = Make(TensorProto::UINT16, {2});
  for (int v : {65535, 1}) u16.add_int32_data(v);
  EXPECT_EQ(DecodeOk(u16).data, Bytes<uint16_t>({0xFFFF, 0x0001}));
}

TEST(TensorProtoDecode, Int32DataFloat16AndBFloat16Bits) {
  // onnx.helper writes the bit pattern as an unsigned value; sign-extended is accepted too.
  TensorProto f16 = Make(TensorProto::FLOAT16, {3});
  f16.add_int32_data(0x3C00);   // 1.0
  f16.add_int32_data(0xFC00);   // -inf, as uint16
  f16.add_int32_data(-0x0400);  // 0xFC00 sign-extended
  EXPECT_EQ(DecodeOk(f16).data, Bytes<uint16_t>({0x3C00, 0xFC00, 0xFC00}));

  TensorProto bf16 = Make(TensorProto::BFLOAT16, {2});
  bf16.add_int32_data(0x7FC0);  // NaN
  bf16.add_int32_data(0xBF80);  // -1.0
  EXPECT_EQ(DecodeOk(bf16).data, Bytes<uint16_t>({0x7FC0, 0xBF80}));
}

TEST(TensorProtoDecode, Int64Data) {
  TensorProto t = Make(TensorProto::INT64, {2});
  t.add_int64_data(std::numeric_limits<int64_t>::min());
  t.add_int64_data(-1);
  EXPECT_EQ(DecodeOk(t).data, Bytes<int64_t>({std::numeric_limits<int64_t>::min(), -1}));
}

TEST(TensorProtoDecode, Uint64DataForUint32AndUint64) {
  TensorProto u32 = Make(TensorProto::UINT32, {2});
  u32.add_uint64_data(0xFFFFFFFFull);
  u32.add_uint64_data(5);
  EXPECT_EQ(DecodeOk(u32).data, Bytes<uint32_t>({0xFFFFFFFFu, 5u}));

  TensorProto u64 = Make(TensorProto::UINT64, {1});
  u64.add_uint64_data(0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(DecodeOk(u64).data, Bytes<uint64_t>({0xFFFFFFFFFFFFFFFFull}));
}

TEST(TensorProtoDecode, ScalarAndEmpty) {
  TensorProto scalar = Make(TensorProto::INT16, {});
  scalar.add_int32_data(-3);
  const HostTensor s = DecodeOk(scalar);
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(s.element_count(), 1u);
  EXPECT_EQ(s.data, Bytes<int16_t>({-3}));

  const HostTensor e = DecodeOk(Make(TensorProto::FLOAT, {0, 3}));  // no data field at all
  EXPECT_EQ(e.shape, (std::vector<uint64_t>{0, 3}));
  EXPECT_TRUE(e.data.empty());
  TensorProto e_raw = Make(TensorProto::FLOAT, {2, 0});
  e_raw.set_raw_data("");
  EXPECT_TRUE(DecodeOk(e_raw).data.empty());
}

TEST(TensorProtoDecode, Errors) {
  {
    TensorProto t = Make(TensorProto::FLOAT, {2, 3});
    t.set_raw_data(std::string(23, '\0'));
    EXPECT_EQ(DecodeError(t),
              "TensorProto 't': raw_data has 23 bytes; dims [2,3] (6 elements) of FLOAT need 24");
  }
  {
    TensorProto t = Make(TensorProto::FLOAT, {2});
    t.add_float_data(1);
    EXPECT_EQ(DecodeError(t),
              "TensorProto 't': float_data has 1 value; dims [2] (2 elements) need 2");
  }
  {
    TensorProto t = Make(TensorProto::DOUBLE, {1});
    t.add_float_data(1);
    EXPECT_EQ(DecodeError(t),
              "TensorProto 't': data is in float_data, which cannot hold DOUBLE; "
              "use raw_data or double_data");
  }
  {
    TensorProto t = Make(TensorProto::UINT32, {1});
    t.add_int32_data(1);
    EXPECT_NE(DecodeError(t).find("data is in int32_data, which cannot hold UINT32"),
              std::string::npos);
  }
  {
    TensorProto t = Make(TensorProto::FLOAT, {1});
    t.add_float_data(1);
    t.set_raw_data(std::string(4, '\0'));
    EXPECT_NE(DecodeError(t).find("has both raw_data and float_data"), std::string::npos);
  }
  {
    TensorProto t = Make(TensorProto::INT8, {1});
    t.add_int32_data(128);
    EXPECT_EQ(DecodeError(t),
              "TensorProto 't': int32_data[0] is 128, out of range for INT8 [-128, 127]");
  }
  {
    TensorProto t = Make(TensorProto::UINT16, {2});
    t.add_int32_data(0);
    t.add_int32_data(-1);
    EXPECT_NE(DecodeError(t).find("int32_data[1] is -1, out of range for UINT16"),
              std::string::npos);
  }
  {
    TensorProto t = Make(TensorProto::FLOAT16, {1});
    t.add_int32_data(65536);
    EXPECT_NE(DecodeError(t).find("out of range for FLOAT16"), std::string::npos);
  }
  {
    TensorProto t = Make(TensorProto::UINT32, {1});
    t.add_uint64_data(0x100000000ull);
    EXPECT_NE(DecodeError(t).find("uint64_data[0] is 4294967296, out of range for UINT32"),
              std::string::npos);
  }
  {
    TensorProto t = Make(TensorProto::FLOAT, {3, -1});
    EXPECT_EQ(DecodeError(t), "TensorProto 't': dims[1] is -1; dims must be >= 0");
  }
  {
    TensorProto t = Make(TensorProto::FLOAT, {2});
    EXPECT_NE(DecodeError(t).find("has no data; dims [2] (2 elements) need raw_data or a typed"),
              std::string::npos);
  }
  {
    TensorProto t = Make(TensorProto::FLOAT, {1});
    t.clear_data_type();
    EXPECT_EQ(DecodeError(t), "TensorProto 't': data_type is not set");
    t.set_data_type(TensorProto::UNDEFINED);  // set, to the value that means none
    EXPECT_EQ(DecodeError(t), "TensorProto 't': data_type is not set");
  }
  {
    // One element is "1 element".
    TensorProto t = Make(TensorProto::FLOAT, {1});
    t.set_raw_data(std::string(3, '\0'));
    EXPECT_EQ(DecodeError(t),
              "TensorProto 't': raw_data has 3 bytes; dims [1] (1 element) of FLOAT need 4");
  }
  {
    // data_location set to DEFAULT is data in the message, as when it is absent.
    TensorProto t = Make(TensorProto::FLOAT, {1});
    t.set_data_location(TensorProto::DEFAULT);
    t.add_float_data(-0.5F);
    EXPECT_EQ(DecodeOk(t).data, Bytes<float>({-0.5F}));
  }
  for (int type :
       {int{TensorProto::STRING}, int{TensorProto::BOOL}, int{TensorProto::COMPLEX64}, 17, 99}) {
    TensorProto t = Make(type, {1});
    t.set_raw_data(std::string(1, '\0'));
    EXPECT_NE(DecodeError(t).find("is not supported; eltwise tensors are"), std::string::npos)
        << type;
  }
  {
    TensorProto t = Make(TensorProto::FLOAT, {1});
    t.set_data_location(TensorProto::EXTERNAL);
    auto* e = t.add_external_data();
    e->set_key("location");
    e->set_value("data.bin");
    EXPECT_NE(DecodeError(t).find("data_location is EXTERNAL"), std::string::npos);
  }
  {
    TensorProto t = Make(TensorProto::FLOAT, {1});
    t.mutable_segment()->set_begin(0);
    t.add_float_data(1);
    EXPECT_NE(DecodeError(t).find("segment"), std::string::npos);
  }
  {  // Element count or byte size past 2^64: an error, not an allocation.
    TensorProto t = Make(TensorProto::FLOAT, {int64_t{1} << 62, int64_t{1} << 62});
    EXPECT_NE(DecodeError(t).find("more than 2^64 elements"), std::string::npos);
    TensorProto u = Make(TensorProto::DOUBLE, {int64_t{1} << 62});
    EXPECT_NE(DecodeError(u).find("too large"), std::string::npos);
    TensorProto v = Make(TensorProto::FLOAT, {int64_t{1} << 40});
    v.set_raw_data(std::string(4, '\0'));
    EXPECT_NE(DecodeError(v).find("raw_data has 4 bytes"), std::string::npos);
  }
}

// Rejections the ONNX checker does not make first: external_data entries without an EXTERNAL
// location, more dims than any eltwise tensor has, and string_data beside another field.
TEST(TensorProtoDecode, ExternalEntriesTooManyDimsAndStringData) {
  {
    TensorProto t = Make(TensorProto::FLOAT, {1});
    auto* e = t.add_external_data();
    e->set_key("location");
    e->set_value("data.bin");
    EXPECT_EQ(DecodeError(t),
              "TensorProto 't': has external_data entries; external data is not supported");
  }
  {
    TensorProto t = Make(TensorProto::FLOAT, std::vector<int64_t>(65, 1));
    t.add_float_data(1);
    EXPECT_EQ(DecodeError(t), "TensorProto 't': has 65 dims; at most 64 are accepted");
    t.clear_dims();
    for (int i = 0; i < 64; ++i) t.add_dims(1);
    EXPECT_EQ(DecodeOk(t).shape.size(), 64u);
  }
  {
    TensorProto t = Make(TensorProto::FLOAT, {1});
    t.set_raw_data(std::string(4, '\0'));
    t.add_string_data("x");
    EXPECT_EQ(DecodeError(t),
              "TensorProto 't': has both raw_data and string_data; a tensor's data must be in "
              "exactly one field");
  }
}

#if !defined(_WIN32)
// More than protobuf's 2 GiB limit is refused before a byte is read.
TEST(TensorProtoDecode, OverTwoGiBIsRefusedUnread) {
  const testing::UntouchedBytes huge(size_t{1} << 31);
  ASSERT_TRUE(huge.ok());
  Expected<HostTensor> r = DecodeTensorProto(huge.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "TensorProto is 2147483648 bytes; protobuf messages are limited to 2 GiB");
}
#endif

TEST(TensorProtoDecode, MalformedBytes) {
  TensorProto t = Make(TensorProto::FLOAT, {4});
  t.set_raw_data(std::string(16, '\x01'));
  std::vector<std::byte> bytes = Serialize(t);
  for (size_t cut = 1; cut < bytes.size(); ++cut) {  // every truncation fails cleanly
    Expected<HostTensor> r = DecodeTensorProto(std::span(bytes.data(), cut));
    EXPECT_FALSE(r.ok()) << cut;
  }
  const std::vector<std::byte> garbage = Bytes<uint8_t>({0xFF, 0xFF, 0xFF, 0xFF, 0x0F});
  Expected<HostTensor> r = DecodeTensorProto(garbage);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a valid TensorProto"), std::string::npos);
}

TEST(TensorProtoEncode, RoundTrip) {
  HostTensor h;
  h.name = "x";
  h.type = DataType::kBFloat16;
  h.shape = {2, 1};
  h.data = Bytes<uint16_t>({0x7FC1, 0x8000});
  const std::vector<std::byte> bytes = EncodeTensorProto(h);
  TensorProto t;
  ASSERT_TRUE(t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  EXPECT_EQ(t.data_type(), TensorProto::BFLOAT16);
  EXPECT_EQ(t.name(), "x");
  ASSERT_EQ(t.dims_size(), 2);
  EXPECT_EQ(t.raw_data().size(), 4u);
  const HostTensor back = DecodeOk(t);
  EXPECT_EQ(back.data, h.data);
  EXPECT_EQ(back.shape, h.shape);
}

class TensorFiles : public testing::ScratchDirTest {
 protected:
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
};

TEST_F(TensorFiles, PbRoundTrip) {
  HostTensor h;
  h.type = DataType::kInt64;
  h.shape = {3};
  h.data = Bytes<int64_t>({-1, 0, 1});
  ASSERT_TRUE(WriteTensorFile(Path("a.pb"), h).ok());
  Expected<HostTensor> back = ReadTensorFile(Path("a.pb"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->data, h.data);
  EXPECT_EQ(back->type, h.type);
}

// A file one byte longer than the reader's 64 KiB buffer: its last read returns one byte.
TEST_F(TensorFiles, PbFileOfOneByteMoreThanTheReadBuffer) {
  HostTensor h;
  h.type = DataType::kUInt8;
  h.shape = {65525};  // 12 bytes of fields and tags around 65,525 bytes of raw_data
  h.data.resize(65525);
  for (size_t i = 0; i < h.data.size(); ++i) h.data[i] = static_cast<std::byte>(i * 7);
  ASSERT_TRUE(WriteTensorFile(Path("big.pb"), h).ok());
  ASSERT_EQ(std::filesystem::file_size(Path("big.pb")), 65537u);
  Expected<HostTensor> back = ReadTensorFile(Path("big.pb"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->data, h.data);
}

TEST_F(TensorFiles, MissingFile) {
  Expected<HostTensor> r = ReadTensorFile(Path("absent.pb"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIoError);
  EXPECT_NE(r.status().message().find("absent.pb: cannot open"), std::string::npos);
}

// A file that cannot replace its target (here a folder of that name) is an error naming the path
// and the reason; the temporary beside it is removed.
TEST_F(TensorFiles, WriteOntoAFolderFailsAndLeavesNoTemporary) {
  HostTensor h;
  h.type = DataType::kUInt8;
  h.shape = {1};
  h.data = Bytes<uint8_t>({7});
  std::filesystem::create_directory(Path("taken.pb"));
  const Status s = WriteTensorFile(Path("taken.pb"), h);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(s.message(), Path("taken.pb") + ": cannot replace: Is a directory");
  EXPECT_TRUE(std::filesystem::is_directory(Path("taken.pb")));
  EXPECT_FALSE(std::filesystem::exists(Path("taken.pb.tmp")));
}

// A target in a folder that does not exist: the temporary cannot be created; nothing is written.
TEST_F(TensorFiles, WriteIntoAMissingFolderIsAnErrorNamingThePath) {
  HostTensor h;
  h.type = DataType::kUInt8;
  h.shape = {1};
  h.data = Bytes<uint8_t>({7});
  const std::string path = Path("missing/a.pb");
  const Status s = WriteTensorFile(path, h);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_EQ(s.message(), path + ": cannot create: No such file or directory");
  EXPECT_FALSE(std::filesystem::exists(Path("missing")));
}

#if defined(ELTWISE_ONNX_TEST_NPY)
TEST_F(TensorFiles, NpyRoundTripAndFortranOrder) {
  ASSERT_TRUE(NpySupported());
  HostTensor h;
  h.type = DataType::kFloat16;
  h.shape = {2, 3};
  h.data = Bytes<uint16_t>({1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(WriteTensorFile(Path("a.npy"), h).ok());
  Expected<HostTensor> back = ReadTensorFile(Path("a.npy"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->data, h.data);
  EXPECT_EQ(back->shape, h.shape);

  // A Fortran-order array holds the columns one after another; it reads back in C order.
  npy::Array f;
  f.type = DataType::kUInt8;
  f.shape = {2, 3};
  f.fortran_order = true;
  f.data = Bytes<uint8_t>({1, 4, 2, 5, 3, 6});  // [[1,2,3],[4,5,6]] column by column
  ASSERT_TRUE(npy::Write(Path("f.npy"), f).ok());
  Expected<HostTensor> c = ReadTensorFile(Path("f.npy"));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->data, Bytes<uint8_t>({1, 2, 3, 4, 5, 6}));

  // One dimension, or none, reads the same in either order; so does an empty array.
  for (const std::vector<uint64_t>& shape :
       {std::vector<uint64_t>{3}, std::vector<uint64_t>{}, std::vector<uint64_t>{2, 0},
        std::vector<uint64_t>{1, 1}}) {
    uint64_t count = 1;
    for (uint64_t d : shape) count *= d;
    f.shape = shape;
    f.data = Bytes<uint8_t>({9, 8, 7});
    f.data.resize(count);
    ASSERT_TRUE(npy::Write(Path("g.npy"), f).ok());
    Expected<HostTensor> g = ReadTensorFile(Path("g.npy"));
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_EQ(g->shape, shape);
    EXPECT_EQ(g->data, f.data);
  }
}

// The .npy suffix is recognised in upper case too (files from case-insensitive file systems).
TEST_F(TensorFiles, UpperCaseNpySuffix) {
  HostTensor h;
  h.type = DataType::kInt16;
  h.shape = {2};
  h.data = Bytes<int16_t>({-3, 4});
  ASSERT_TRUE(WriteTensorFile(Path("A.NPY"), h).ok());
  // Written as .npy, not as a TensorProto: the file starts with the .npy magic.
  const std::vector<std::byte> bytes = testing::ReadFileBytes(Path("A.NPY"));
  ASSERT_GE(bytes.size(), 6u);
  EXPECT_EQ(std::memcmp(bytes.data(), "\x93NUMPY", 6), 0);
  Expected<HostTensor> back = ReadTensorFile(Path("A.NPY"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->data, h.data);
  EXPECT_EQ(back->shape, h.shape);
}

// A malformed .npy file is an error that starts with its path, once.
TEST_F(TensorFiles, MalformedNpyNamesThePath) {
  {
    std::FILE* f = std::fopen(Path("bad.npy").c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("not an npy file", f);
    std::fclose(f);
  }
  Expected<HostTensor> r = ReadTensorFile(Path("bad.npy"));
  ASSERT_FALSE(r.ok());
  const std::string m = r.status().message();
  EXPECT_EQ(m.rfind(Path("bad.npy") + ": ", 0), 0u) << m;
  EXPECT_EQ(m.find(Path("bad.npy"), 1), std::string::npos) << m;
}
#endif

// ONNX's element type names by code: the first, the last, and past the last.
TEST(OnnxDataTypeNames, FirstLastAndPast) {
  EXPECT_EQ(OnnxDataTypeName(0), "UNDEFINED");
  EXPECT_EQ(OnnxDataTypeName(1), "FLOAT");
  EXPECT_EQ(OnnxDataTypeName(16), "BFLOAT16");
  EXPECT_EQ(OnnxDataTypeName(24), "FLOAT8E8M0");
  EXPECT_EQ(OnnxDataTypeName(25), "code 25");
  EXPECT_EQ(OnnxDataTypeName(-1), "code -1");
}

TEST(CompareTensors, NanPayloadsAreEqualZerosAreNot) {
  HostTensor a;
  a.type = DataType::kFloat32;
  a.shape = {3};
  a.data = Bytes<uint32_t>({0x7FC00000u, 0x00000000u, 0x3F800000u});
  HostTensor b = a;
  b.data = Bytes<uint32_t>({0xFFC00001u, 0x00000000u, 0x3F800000u});
  EXPECT_EQ(CompareTensors(a, b), std::nullopt);
  b.data = Bytes<uint32_t>({0x7FC00000u, 0x80000000u, 0x3F800000u});
  const std::optional<std::string> diff = CompareTensors(a, b);
  ASSERT_TRUE(diff.has_value());
  EXPECT_NE(diff->find("1 of 3 elements differ; first at [1]: got -0"), std::string::npos) << *diff;

  HostTensor h = a;
  h.type = DataType::kFloat16;
  h.shape = {2};
  h.data = Bytes<uint16_t>({0x7E00, 0x7C00});  // NaN, +inf
  HostTensor g = h;
  g.data = Bytes<uint16_t>({0xFD01, 0x7C00});  // another NaN
  EXPECT_EQ(CompareTensors(h, g), std::nullopt);
  g.data = Bytes<uint16_t>({0x7E00, 0x7E00});  // inf vs NaN differ
  EXPECT_TRUE(CompareTensors(h, g).has_value());

  HostTensor i = a;
  i.type = DataType::kInt32;  // same bytes, other type
  EXPECT_NE(CompareTensors(a, i)->find("type INT32, expected FLOAT"), std::string::npos);
  HostTensor s = a;
  s.shape = {1, 3};
  EXPECT_NE(CompareTensors(a, s)->find("shape [1,3], expected [3]"), std::string::npos);
  HostTensor short_data = a;
  short_data.data.pop_back();
  EXPECT_EQ(CompareTensors(a, short_data), "data size does not match the shape");
}

// A mismatch names the first differing element as a value and, for floating types, its bits: one
// pair of one-element tensors per type (expected values written out by hand).
TEST(CompareTensors, MismatchesShowValueAndBitsOfEveryType) {
  const auto mismatch = [](DataType type, std::vector<std::byte> got, std::vector<std::byte> want) {
    HostTensor a, e;
    a.type = e.type = type;
    a.shape = e.shape = {1};
    a.data = std::move(got);
    e.data = std::move(want);
    return CompareTensors(e, a).value_or("no mismatch reported");
  };
  const std::string prefix = "1 of 1 elements differ; first at [0]: got ";
  // float32: 8 hex digits of bits; the smallest subnormal, -2^-149, to 17 significant digits.
  EXPECT_EQ(
      mismatch(DataType::kFloat32, Bytes<uint32_t>({0x3F800000u}), Bytes<uint32_t>({0x80000001u})),
      prefix + "1 (0x3f800000), expected -1.4012984643248171e-45 (0x80000001)");
  EXPECT_EQ(mismatch(DataType::kFloat64, Bytes<uint64_t>({0x3FF8000000000000u}),
                     Bytes<uint64_t>({0x7FF8000000000000u})),
            prefix + "1.5 (0x3ff8000000000000), expected nan (0x7ff8000000000000)");
  // float16: a normal number, a subnormal (2^-24) and zeros go through their own decodes.
  EXPECT_EQ(mismatch(DataType::kFloat16, Bytes<uint16_t>({0x0001}), Bytes<uint16_t>({0x8000})),
            prefix + "5.9604644775390625e-08 (0x0001), expected -0 (0x8000)");
  EXPECT_EQ(mismatch(DataType::kFloat16, Bytes<uint16_t>({0xC100}), Bytes<uint16_t>({0x7C00})),
            prefix + "-2.5 (0xc100), expected inf (0x7c00)");
  EXPECT_EQ(mismatch(DataType::kBFloat16, Bytes<uint16_t>({0x3FC0}), Bytes<uint16_t>({0xFFC1})),
            prefix + "1.5 (0x3fc0), expected nan (0xffc1)");
  EXPECT_EQ(mismatch(DataType::kInt8, Bytes<int8_t>({-128}), Bytes<int8_t>({127})),
            prefix + "-128, expected 127");
  EXPECT_EQ(mismatch(DataType::kInt16, Bytes<int16_t>({-32768}), Bytes<int16_t>({1})),
            prefix + "-32768, expected 1");
  EXPECT_EQ(mismatch(DataType::kInt32, Bytes<int32_t>({-2147483647 - 1}), Bytes<int32_t>({0})),
            prefix + "-2147483648, expected 0");
  EXPECT_EQ(mismatch(DataType::kInt64, Bytes<int64_t>({std::numeric_limits<int64_t>::min()}),
                     Bytes<int64_t>({-1})),
            prefix + "-9223372036854775808, expected -1");
  EXPECT_EQ(mismatch(DataType::kUInt8, Bytes<uint8_t>({255}), Bytes<uint8_t>({0})),
            prefix + "255, expected 0");
  EXPECT_EQ(mismatch(DataType::kUInt16, Bytes<uint16_t>({65535}), Bytes<uint16_t>({2})),
            prefix + "65535, expected 2");
  EXPECT_EQ(mismatch(DataType::kUInt32, Bytes<uint32_t>({4294967295u}), Bytes<uint32_t>({3})),
            prefix + "4294967295, expected 3");
  EXPECT_EQ(mismatch(DataType::kUInt64, Bytes<uint64_t>({std::numeric_limits<uint64_t>::max()}),
                     Bytes<uint64_t>({4})),
            prefix + "18446744073709551615, expected 4");
}

}  // namespace
}  // namespace eltwise::onnx_frontend
