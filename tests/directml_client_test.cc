// Client code written the way DirectML programs fill ELEMENT_WISE_SIGN / ELEMENT_WISE_ROUND
// descriptions (DirectML's samples, onnxruntime's DirectML execution provider), compiled against
// eltwise/directml.h unchanged and run through eltwise::CompileDirectML. Results are compared with
// DirectML's documented results, written out here: the DML_ROUNDING_MODE table and Sign's
// definition f(x) = -1 if x < 0, 1 if x > 0, 0 otherwise (negative zero and NaN included).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "eltwise/directml.h"

namespace {

// ---- The client side: a tensor description built like onnxruntime's Dml::TensorDesc. ONNX
// shapes are right-aligned into at least 4 dimensions (at most DML_TENSOR_DIMENSION_COUNT_MAX1),
// broadcast dimensions get stride 0, the total size comes from DMLCalcBufferTensorSize.
class ClientTensorDesc {
 public:
  // `shape` is the tensor's own ONNX shape; `broadcastShape`, if given, the shape it is read as.
  ClientTensorDesc(DML_TENSOR_DATA_TYPE dataType, std::vector<uint32_t> shape,
                   std::optional<std::vector<uint32_t>> broadcastShape = std::nullopt,
                   uint32_t minDimensionCount = 4) {
    const std::vector<uint32_t>& logical = broadcastShape ? *broadcastShape : shape;
    m_dimensionCount = std::max<uint32_t>(static_cast<uint32_t>(logical.size()), minDimensionCount);
    EXPECT_LE(m_dimensionCount, DML_TENSOR_DIMENSION_COUNT_MAX1);
    m_sizes.fill(1);
    m_strides.fill(0);
    const uint32_t sizeOffset = m_dimensionCount - static_cast<uint32_t>(logical.size());
    for (size_t i = 0; i < logical.size(); ++i) m_sizes[sizeOffset + i] = logical[i];
    if (broadcastShape) {
      // Packed strides of the tensor's own shape, right-aligned; 0 where it is broadcast.
      uint32_t stride = 1;
      for (size_t i = shape.size(); i-- > 0;) {
        const size_t target = m_dimensionCount - shape.size() + i;
        m_strides[target] = shape[i] == 1 ? 0 : stride;
        stride *= shape[i];
      }
      m_useStrides = true;
    }
    m_bufferTensorDesc.DataType = dataType;
    m_bufferTensorDesc.Flags = DML_TENSOR_FLAG_NONE;
    m_bufferTensorDesc.DimensionCount = m_dimensionCount;
    m_bufferTensorDesc.Sizes = m_sizes.data();
    m_bufferTensorDesc.Strides = m_useStrides ? m_strides.data() : nullptr;
    m_bufferTensorDesc.GuaranteedBaseOffsetAlignment = 0;
    UpdateTotalSize();
    m_tensorDesc = {DML_TENSOR_TYPE_BUFFER, &m_bufferTensorDesc};
  }
  ClientTensorDesc(const ClientTensorDesc&) = delete;

  // Explicit strides in elements (a padded or transposed layout), in the description's dimensions.
  void SetStrides(const std::vector<uint32_t>& strides) {
    ASSERT_EQ(strides.size(), m_dimensionCount);
    for (size_t i = 0; i < strides.size(); ++i) m_strides[i] = strides[i];
    m_useStrides = true;
    m_bufferTensorDesc.Strides = m_strides.data();
    UpdateTotalSize();
  }
  // onnxruntime flags constant (initializer) inputs this way.
  void MarkOwnedByDml() { m_bufferTensorDesc.Flags |= DML_TENSOR_FLAG_OWNED_BY_DML; }

  const DML_TENSOR_DESC* GetDmlDesc() const { return &m_tensorDesc; }
  uint64_t GetBufferSizeInBytes() const { return m_bufferTensorDesc.TotalTensorSizeInBytes; }

 private:
  void UpdateTotalSize() {
    m_bufferTensorDesc.TotalTensorSizeInBytes =
        DMLCalcBufferTensorSize(m_bufferTensorDesc.DataType, m_dimensionCount, m_sizes.data(),
                                m_useStrides ? m_strides.data() : nullptr);
  }

  uint32_t m_dimensionCount = 0;
  bool m_useStrides = false;
  std::array<uint32_t, DML_TENSOR_DIMENSION_COUNT_MAX1> m_sizes = {};
  std::array<uint32_t, DML_TENSOR_DIMENSION_COUNT_MAX1> m_strides = {};
  DML_BUFFER_TENSOR_DESC m_bufferTensorDesc = {};
  DML_TENSOR_DESC m_tensorDesc = {};
};

eltwise::Device DeviceAt(DML_FEATURE_LEVEL level) {
  return *eltwise::Device::Cpu({eltwise::ToFeatureLevel(level), 1});
}

// A buffer like a D3D12 resource: 256-byte aligned, `bytes` long, filled with a marker.
struct Buffer {
  explicit Buffer(uint64_t bytes) : storage(bytes / 4 + 64, 0xDEADBEEFu), size(bytes) {
    data = reinterpret_cast<unsigned char*>(storage.data());
    data += (256 - reinterpret_cast<uintptr_t>(data) % 256) % 256;
  }
  template <class T>
  T At(uint64_t element) const {
    T v;
    std::memcpy(&v, data + element * sizeof(T), sizeof(T));
    return v;
  }
  template <class T>
  void Set(uint64_t element, T v) {
    std::memcpy(data + element * sizeof(T), &v, sizeof(T));
  }
  std::vector<uint32_t> storage;
  unsigned char* data;
  uint64_t size;
};

// ---- DirectML's documented results.

// The DML_ROUNDING_MODE table (docs: DML_ROUNDING_MODE enumeration, Remarks).
constexpr float kRoundInputs[9] = {-2.5f, -1.75f, -1.5f, -1.25f, 0.0f, 1.25f, 1.5f, 1.75f, 2.5f};
constexpr float kRoundTable[3][9] = {
    {-2, -2, -2, -1, 0, 1, 2, 2, 2},  // DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN
    {-2, -1, -1, -1, 0, 1, 1, 1, 2},  // DML_ROUNDING_MODE_TOWARD_ZERO
    {-3, -2, -2, -1, 0, 1, 2, 2, 3},  // DML_ROUNDING_MODE_TOWARD_INFINITY
};
// The same values as IEEE binary16 bit patterns.
constexpr uint16_t kRoundInputsF16[9] = {0xC100, 0xBF00, 0xBE00, 0xBD00, 0x0000,
                                         0x3D00, 0x3E00, 0x3F00, 0x4100};
uint16_t F16OfSmallInteger(float v) {
  switch (static_cast<int>(v)) {
    case -3:
      return 0xC200;
    case -2:
      return 0xC000;
    case -1:
      return 0xBC00;
    case 0:
      return 0x0000;
    case 1:
      return 0x3C00;
    case 2:
      return 0x4000;
    case 3:
      return 0x4200;
  }
  ADD_FAILURE() << "no binary16 pattern for " << v;
  return 0x7E00;
}

// Sign's definition, on the value (NaN compares false both ways: 0).
template <class T>
T DocumentedSign(T x) {
  if (x < T(0)) return T(-1);
  if (x > T(0)) return T(1);
  return T(0);
}

// ---- The tests.

// DirectML's samples: one packed NCHW description used for input and output (in place).
TEST(DirectMLClient, SampleStyleInPlaceRoundEveryMode) {
  for (int mode = 0; mode < 3; ++mode) {
    const uint32_t sizes[4] = {1, 1, 3, 3};
    DML_BUFFER_TENSOR_DESC bufferDesc = {};
    bufferDesc.DataType = DML_TENSOR_DATA_TYPE_FLOAT16;
    bufferDesc.Flags = DML_TENSOR_FLAG_NONE;
    bufferDesc.DimensionCount = static_cast<uint32_t>(std::size(sizes));
    bufferDesc.Sizes = sizes;
    bufferDesc.TotalTensorSizeInBytes =
        DMLCalcBufferTensorSize(bufferDesc.DataType, bufferDesc.DimensionCount, sizes, nullptr);
    ASSERT_EQ(bufferDesc.TotalTensorSizeInBytes, 20u);  // 18 bytes, rounded up to 4
    DML_TENSOR_DESC tensorDesc = {DML_TENSOR_TYPE_BUFFER, &bufferDesc};
    DML_ELEMENT_WISE_ROUND_OPERATOR_DESC roundDesc = {&tensorDesc, &tensorDesc,
                                                      static_cast<DML_ROUNDING_MODE>(mode)};
    DML_OPERATOR_DESC opDesc = {DML_OPERATOR_ELEMENT_WISE_ROUND, &roundDesc};

    for (DML_FEATURE_LEVEL level : {DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
                                    DML_FEATURE_LEVEL_5_0, DML_FEATURE_LEVEL_6_4}) {
      eltwise::Expected<eltwise::CompiledOperator> op =
          eltwise::CompileDirectML(DeviceAt(level), opDesc);
      ASSERT_TRUE(op.ok()) << op.status().ToString();
      Buffer buffer(bufferDesc.TotalTensorSizeInBytes);
      for (int i = 0; i < 9; ++i) buffer.Set<uint16_t>(i, kRoundInputsF16[i]);
      ASSERT_TRUE(op->Execute({buffer.data, buffer.size}, {buffer.data, buffer.size}).ok());
      for (int i = 0; i < 9; ++i) {
        EXPECT_EQ(buffer.At<uint16_t>(i), F16OfSmallInteger(kRoundTable[mode][i]))
            << "mode " << mode << " x " << kRoundInputs[i];
      }
      EXPECT_EQ(buffer.At<uint16_t>(9), 0xDEAD);  // padding up to the 4-byte total is not written
    }
  }
}

template <class T>
struct DmlTypeOf;
#define CLIENT_DML_TYPE(T, dml)                        \
  template <>                                          \
  struct DmlTypeOf<T> {                                \
    static constexpr DML_TENSOR_DATA_TYPE value = dml; \
  };
CLIENT_DML_TYPE(float, DML_TENSOR_DATA_TYPE_FLOAT32)
CLIENT_DML_TYPE(double, DML_TENSOR_DATA_TYPE_FLOAT64)
CLIENT_DML_TYPE(int8_t, DML_TENSOR_DATA_TYPE_INT8)
CLIENT_DML_TYPE(int16_t, DML_TENSOR_DATA_TYPE_INT16)
CLIENT_DML_TYPE(int32_t, DML_TENSOR_DATA_TYPE_INT32)
CLIENT_DML_TYPE(int64_t, DML_TENSOR_DATA_TYPE_INT64)
CLIENT_DML_TYPE(uint8_t, DML_TENSOR_DATA_TYPE_UINT8)
CLIENT_DML_TYPE(uint16_t, DML_TENSOR_DATA_TYPE_UINT16)
CLIENT_DML_TYPE(uint32_t, DML_TENSOR_DATA_TYPE_UINT32)
CLIENT_DML_TYPE(uint64_t, DML_TENSOR_DATA_TYPE_UINT64)
#undef CLIENT_DML_TYPE

// 20 inputs per type: the extremes, small values, and for floats the IEEE specials.
template <class T>
std::vector<T> SignInputs() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {L::lowest(), L::max(), T(0), T(1), T(2), L::min()};
  if constexpr (std::is_signed_v<T>) v.insert(v.end(), {T(-1), T(-2)});
  if constexpr (std::is_floating_point_v<T>) {
    v.insert(v.end(), {T(-0.0), L::infinity(), -L::infinity(), L::quiet_NaN(), -L::quiet_NaN(),
                       L::denorm_min(), -L::denorm_min(), T(0.5)});
  }
  for (int k = 0; v.size() < 20; ++k) v.push_back(static_cast<T>((k * 37) % 100));
  return v;
}

// The levels that accept Sign for T (DML_ELEMENT_WISE_SIGN_OPERATOR_DESC, tensor support).
template <class T>
std::vector<DML_FEATURE_LEVEL> SignLevels() {
  if constexpr (std::is_same_v<T, float>)
    return {DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_3_0, DML_FEATURE_LEVEL_6_4};
  if constexpr (sizeof(T) == 8) return {DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_6_4};
  return {DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0, DML_FEATURE_LEVEL_6_4};
}

// A 4x5 matrix read transposed (column-major input, as a strided view), packed output.
template <class T>
void CheckSignTransposed(const eltwise::Device& device) {
  ClientTensorDesc input(DmlTypeOf<T>::value, {4, 5});
  input.SetStrides({0, 0, 1, 4});
  ClientTensorDesc output(DmlTypeOf<T>::value, {4, 5});
  DML_ELEMENT_WISE_SIGN_OPERATOR_DESC signDesc = {input.GetDmlDesc(), output.GetDmlDesc()};
  DML_OPERATOR_DESC opDesc = {DML_OPERATOR_ELEMENT_WISE_SIGN, &signDesc};
  eltwise::Expected<eltwise::CompiledOperator> op = eltwise::CompileDirectML(device, opDesc);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  const std::vector<T> values = SignInputs<T>();
  Buffer in(input.GetBufferSizeInBytes()), out(output.GetBufferSizeInBytes());
  for (size_t i = 0; i < values.size(); ++i) in.Set<T>(i, values[i]);
  ASSERT_TRUE(op->Execute({in.data, in.size}, {out.data, out.size}).ok());
  for (uint64_t r = 0; r < 4; ++r) {
    for (uint64_t c = 0; c < 5; ++c) {
      const T x = values[r + 4 * c];
      const T want = DocumentedSign(x);
      const T got = out.At<T>(r * 5 + c);
      EXPECT_EQ(std::memcmp(&got, &want, sizeof(T)), 0)
          << "type " << DmlTypeOf<T>::value << " x " << +x << ": got " << +got;
    }
  }
}

template <class T>
void CheckSignTransposedAtItsLevels() {
  for (DML_FEATURE_LEVEL level : SignLevels<T>()) CheckSignTransposed<T>(DeviceAt(level));
}

template <class... T>
void CheckSignTransposedAtEveryLevel() {
  (CheckSignTransposedAtItsLevels<T>(), ...);
}

TEST(DirectMLClient, SignEveryDataTypeTransposed) {
  CheckSignTransposedAtEveryLevel<float, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                                  uint32_t, uint64_t>();
  // FLOAT64 is no Sign type of DirectML; eltwise's extended level takes the same description.
  CheckSignTransposed<double>(*eltwise::Device::Cpu({eltwise::FeatureLevel::kExtended, 1}));
  ClientTensorDesc t(DML_TENSOR_DATA_TYPE_FLOAT64, {4, 5});
  DML_ELEMENT_WISE_SIGN_OPERATOR_DESC signDesc = {t.GetDmlDesc(), t.GetDmlDesc()};
  DML_OPERATOR_DESC opDesc = {DML_OPERATOR_ELEMENT_WISE_SIGN, &signDesc};
  EXPECT_FALSE(eltwise::CompileDirectML(DeviceAt(DML_FEATURE_LEVEL_6_4), opDesc).ok());
}

// Sign of binary16 values, as bit patterns: the documented result for each.
TEST(DirectMLClient, SignFloat16Specials) {
  const std::pair<uint16_t, uint16_t> cases[] = {
      {0x0000, 0x0000},                    // +0
      {0x8000, 0x0000},                    // -0: "0, otherwise (this includes negative zero)"
      {0x0001, 0x3C00},                    // smallest subnormal
      {0x8001, 0xBC00}, {0x03FF, 0x3C00},  // largest subnormal
      {0x3800, 0x3C00},                    // 0.5
      {0xB800, 0xBC00}, {0x3C00, 0x3C00},  // 1
      {0xBC00, 0xBC00}, {0x7BFF, 0x3C00},  // 65504
      {0xFBFF, 0xBC00}, {0x7C00, 0x3C00},  // +inf
      {0xFC00, 0xBC00},                    // -inf
      {0x7E00, 0x0000},                    // NaN compares neither < 0 nor > 0
      {0xFE00, 0x0000}, {0x7C01, 0x0000},  // signalling NaN
  };
  constexpr uint32_t count = static_cast<uint32_t>(std::size(cases));
  ClientTensorDesc t(DML_TENSOR_DATA_TYPE_FLOAT16, {count});
  DML_ELEMENT_WISE_SIGN_OPERATOR_DESC signDesc = {t.GetDmlDesc(), t.GetDmlDesc()};
  DML_OPERATOR_DESC opDesc = {DML_OPERATOR_ELEMENT_WISE_SIGN, &signDesc};
  for (DML_FEATURE_LEVEL level : {DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_6_4}) {
    eltwise::Expected<eltwise::CompiledOperator> op =
        eltwise::CompileDirectML(DeviceAt(level), opDesc);
    ASSERT_TRUE(op.ok()) << op.status().ToString();
    Buffer buffer(t.GetBufferSizeInBytes());
    for (uint32_t i = 0; i < count; ++i) buffer.Set<uint16_t>(i, cases[i].first);
    ASSERT_TRUE(op->Execute({buffer.data, buffer.size}, {buffer.data, buffer.size}).ok());
    for (uint32_t i = 0; i < count; ++i) {
      EXPECT_EQ(buffer.At<uint16_t>(i), cases[i].second) << std::hex << cases[i].first;
    }
  }
}

// onnxruntime's broadcasting: an ONNX input of shape {3} read as {2, 3} (strides 0 for the
// broadcast dimensions), a packed {2, 3} output.
template <class T>
void CheckBroadcastSign() {
  ClientTensorDesc input(DmlTypeOf<T>::value, {3}, std::vector<uint32_t>{2, 3});
  ClientTensorDesc output(DmlTypeOf<T>::value, {2, 3});
  EXPECT_EQ(input.GetBufferSizeInBytes(), (3 * sizeof(T) + 3) / 4 * 4);
  DML_ELEMENT_WISE_SIGN_OPERATOR_DESC signDesc = {input.GetDmlDesc(), output.GetDmlDesc()};
  DML_OPERATOR_DESC opDesc = {DML_OPERATOR_ELEMENT_WISE_SIGN, &signDesc};
  eltwise::Expected<eltwise::CompiledOperator> op =
      eltwise::CompileDirectML(DeviceAt(DML_FEATURE_LEVEL_6_4), opDesc);
  ASSERT_TRUE(op.ok()) << op.status().ToString();
  using L = std::numeric_limits<T>;
  const T values[3] = {L::lowest(), T(0), L::max()};
  Buffer in(input.GetBufferSizeInBytes()), out(output.GetBufferSizeInBytes());
  for (int i = 0; i < 3; ++i) in.Set<T>(i, values[i]);
  ASSERT_TRUE(op->Execute({in.data, in.size}, {out.data, out.size}).ok());
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 3; ++c) EXPECT_EQ(out.At<T>(r * 3 + c), DocumentedSign(values[c])) << c;
  }
}

TEST(DirectMLClient, BroadcastSign) {
  CheckBroadcastSign<float>();
  CheckBroadcastSign<int8_t>();
  CheckBroadcastSign<int16_t>();
  CheckBroadcastSign<int32_t>();
  CheckBroadcastSign<int64_t>();
  CheckBroadcastSign<uint8_t>();
  CheckBroadcastSign<uint16_t>();
  CheckBroadcastSign<uint32_t>();
  CheckBroadcastSign<uint64_t>();
}

// Round through padded rows (a row pitch of 6 for rows of 4) and through a broadcast row, every
// mode, float32 and float16; input element p holds table input p % 9.
TEST(DirectMLClient, RoundPaddedAndBroadcastRowsEveryMode) {
  for (DML_TENSOR_DATA_TYPE type : {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_FLOAT16}) {
    for (int layout = 0; layout < 2; ++layout) {
      std::optional<ClientTensorDesc> input;
      if (layout == 0) {
        input.emplace(type, std::vector<uint32_t>{3, 4});
        input->SetStrides({0, 0, 6, 1});
      } else {
        input.emplace(type, std::vector<uint32_t>{1, 4}, std::vector<uint32_t>{3, 4});
      }
      ClientTensorDesc output(type, {3, 4});
      const bool f16 = type == DML_TENSOR_DATA_TYPE_FLOAT16;
      Buffer in(input->GetBufferSizeInBytes());
      const uint64_t in_elements = layout == 0 ? 16 : 4;
      for (uint64_t p = 0; p < in_elements; ++p) {
        if (f16) {
          in.Set<uint16_t>(p, kRoundInputsF16[p % 9]);
        } else {
          in.Set<float>(p, kRoundInputs[p % 9]);
        }
      }
      for (int mode = 0; mode < 3; ++mode) {
        DML_ELEMENT_WISE_ROUND_OPERATOR_DESC roundDesc = {input->GetDmlDesc(), output.GetDmlDesc(),
                                                          static_cast<DML_ROUNDING_MODE>(mode)};
        DML_OPERATOR_DESC opDesc = {DML_OPERATOR_ELEMENT_WISE_ROUND, &roundDesc};
        eltwise::Expected<eltwise::CompiledOperator> op =
            eltwise::CompileDirectML(DeviceAt(DML_FEATURE_LEVEL_2_1), opDesc);
        ASSERT_TRUE(op.ok()) << op.status().ToString();
        Buffer out(output.GetBufferSizeInBytes());
        ASSERT_TRUE(op->Execute({in.data, in.size}, {out.data, out.size}).ok());
        for (uint64_t r = 0; r < 3; ++r) {
          for (uint64_t c = 0; c < 4; ++c) {
            const uint64_t p = layout == 0 ? r * 6 + c : c;
            const float want = kRoundTable[mode][p % 9];
            if (f16) {
              EXPECT_EQ(out.At<uint16_t>(r * 4 + c), F16OfSmallInteger(want)) << r << "," << c;
            } else {
              EXPECT_EQ(out.At<float>(r * 4 + c), want) << r << "," << c;
            }
          }
        }
      }
    }
  }
}

// DML_TENSOR_DIMENSION_COUNT_MAX1 dimensions: a rank-8 tensor read in reversed dimension order
// (column-major strides), packed output. Rank 8 needs feature level 3_0; at 2_1 the same
// description is rejected (rank 4 only there).
TEST(DirectMLClient, RoundRankEightTransposed) {
  const std::vector<uint32_t> shape = {2, 1, 2, 1, 3, 1, 2, 2};
  ASSERT_EQ(shape.size(), DML_TENSOR_DIMENSION_COUNT_MAX1);
  ClientTensorDesc input(DML_TENSOR_DATA_TYPE_FLOAT32, shape);
  std::vector<uint32_t> strides(shape.size());
  uint32_t stride = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  input.SetStrides(strides);
  ClientTensorDesc output(DML_TENSOR_DATA_TYPE_FLOAT32, shape);
  const uint32_t count = stride;  // 48
  Buffer in(input.GetBufferSizeInBytes());
  for (uint32_t p = 0; p < count; ++p) in.Set<float>(p, kRoundInputs[p % 9]);
  for (int mode = 0; mode < 3; ++mode) {
    DML_ELEMENT_WISE_ROUND_OPERATOR_DESC roundDesc = {input.GetDmlDesc(), output.GetDmlDesc(),
                                                      static_cast<DML_ROUNDING_MODE>(mode)};
    DML_OPERATOR_DESC opDesc = {DML_OPERATOR_ELEMENT_WISE_ROUND, &roundDesc};
    EXPECT_EQ(eltwise::CompileDirectML(DeviceAt(DML_FEATURE_LEVEL_2_1), opDesc).status().message(),
              "input.sizes has 8 dimensions; Round at feature level 2_1 requires exactly 4");
    eltwise::Expected<eltwise::CompiledOperator> op =
        eltwise::CompileDirectML(DeviceAt(DML_FEATURE_LEVEL_3_0), opDesc);
    ASSERT_TRUE(op.ok()) << op.status().ToString();
    Buffer out(output.GetBufferSizeInBytes());
    ASSERT_TRUE(op->Execute({in.data, in.size}, {out.data, out.size}).ok());
    // Walk the output in row-major order; the input offset of each element is its index dotted
    // with the column-major strides.
    std::vector<uint32_t> index(shape.size(), 0);
    for (uint32_t k = 0; k < count; ++k) {
      uint64_t p = 0;
      for (size_t i = 0; i < shape.size(); ++i) p += uint64_t{index[i]} * strides[i];
      EXPECT_EQ(out.At<float>(k), kRoundTable[mode][p % 9]) << "mode " << mode << " element " << k;
      for (size_t i = shape.size(); i-- > 0;) {
        if (++index[i] < shape[i]) break;
        index[i] = 0;
      }
    }
  }
}

// A constant input flagged the way onnxruntime flags initializers. DirectML copies it at
// initialization: InitializeDirectML gives those results whatever the client then does with its
// upload buffer; CompileDirectML reads the buffer passed to each Execute.
TEST(DirectMLClient, OwnedByDmlConstantInput) {
  ClientTensorDesc weights(DML_TENSOR_DATA_TYPE_INT8, {2, 3});
  weights.MarkOwnedByDml();
  ClientTensorDesc output(DML_TENSOR_DATA_TYPE_INT8, {2, 3});
  DML_ELEMENT_WISE_SIGN_OPERATOR_DESC signDesc = {weights.GetDmlDesc(), output.GetDmlDesc()};
  DML_OPERATOR_DESC opDesc = {DML_OPERATOR_ELEMENT_WISE_SIGN, &signDesc};
  const eltwise::Device device = DeviceAt(DML_FEATURE_LEVEL_6_4);

  Buffer upload(weights.GetBufferSizeInBytes());
  const int8_t initial[6] = {-128, -1, 0, 1, 127, -7};
  for (int i = 0; i < 6; ++i) upload.Set<int8_t>(i, initial[i]);
  eltwise::Expected<eltwise::InitializedOperator> initialized =
      eltwise::InitializeDirectML(device, opDesc, {upload.data, upload.size});
  ASSERT_TRUE(initialized.ok()) << initialized.status().ToString();
  eltwise::Expected<eltwise::CompiledOperator> compiled = eltwise::CompileDirectML(device, opDesc);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();

  const int8_t later[6] = {5, 0, -3, -128, 0, 9};  // the upload buffer is reused
  for (int i = 0; i < 6; ++i) upload.Set<int8_t>(i, later[i]);
  Buffer out1(output.GetBufferSizeInBytes()), out2(output.GetBufferSizeInBytes());
  ASSERT_TRUE(initialized->Execute({out1.data, out1.size}).ok());
  ASSERT_TRUE(compiled->Execute({upload.data, upload.size}, {out2.data, out2.size}).ok());
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(out1.At<int8_t>(i), DocumentedSign(initial[i])) << i;
    EXPECT_EQ(out2.At<int8_t>(i), DocumentedSign(later[i])) << i;
  }
  EXPECT_EQ(out1.At<uint16_t>(3), 0xDEAD);  // bytes 6..7: padding to the 8-byte total
}

// A program that picks its feature level with DML_FEATURE_LEVEL: Sign exists from 2_0, Round from
// 2_1, 64-bit integer Sign from 4_1 (DirectML's availability and tensor support tables).
TEST(DirectMLClient, FeatureLevels) {
  const DML_FEATURE_LEVEL levels[] = {
      DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
      DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0,
      DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_5_2, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_1,
      DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_3, DML_FEATURE_LEVEL_6_4};
  ClientTensorDesc f32(DML_TENSOR_DATA_TYPE_FLOAT32, {2, 2});
  ClientTensorDesc i64(DML_TENSOR_DATA_TYPE_INT64, {2, 2});
  DML_ELEMENT_WISE_SIGN_OPERATOR_DESC sign = {f32.GetDmlDesc(), f32.GetDmlDesc()};
  DML_ELEMENT_WISE_SIGN_OPERATOR_DESC sign64 = {i64.GetDmlDesc(), i64.GetDmlDesc()};
  DML_ELEMENT_WISE_ROUND_OPERATOR_DESC round = {f32.GetDmlDesc(), f32.GetDmlDesc(),
                                                DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN};
  const DML_OPERATOR_DESC signOp = {DML_OPERATOR_ELEMENT_WISE_SIGN, &sign};
  const DML_OPERATOR_DESC sign64Op = {DML_OPERATOR_ELEMENT_WISE_SIGN, &sign64};
  const DML_OPERATOR_DESC roundOp = {DML_OPERATOR_ELEMENT_WISE_ROUND, &round};
  for (DML_FEATURE_LEVEL level : levels) {
    const eltwise::Device device = DeviceAt(level);
    EXPECT_EQ(eltwise::CompileDirectML(device, signOp).ok(), level >= DML_FEATURE_LEVEL_2_0)
        << std::hex << level;
    EXPECT_EQ(eltwise::CompileDirectML(device, roundOp).ok(), level >= DML_FEATURE_LEVEL_2_1)
        << std::hex << level;
    EXPECT_EQ(eltwise::CompileDirectML(device, sign64Op).ok(), level >= DML_FEATURE_LEVEL_4_1)
        << std::hex << level;
  }
}

}  // namespace
