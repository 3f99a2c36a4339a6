// Fuzzes descriptor validation, compilation and execution on the CPU device.
//
// Each input encodes a feature level, an operator (any of the registry's, with any option value),
// two tensor descriptions with arbitrary types, ranks, sizes, strides, total sizes and alignments,
// optionally passed through the DirectML descriptor structs, then bindings of arbitrary sizes,
// addresses and overlap. Checked:
//  * accept/reject agrees with an independent model of the rules of docs/semantics.md section 2
//    (written here from the text, not from src/core); every rejection is kInvalidArgument with a
//    message; Validate and Compile agree; whatever a DirectML level accepts, the extended level
//    accepts;
//  * an executed operator writes exactly the reference result (the scalar functors applied at
//    element addresses computed here from the layout contract of tensor.h), as if the whole input
//    were read first, and touches no other byte; a rejected execution writes nothing;
//  * no access outside the bound buffers: everything else in the arena is ASan-poisoned.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "eltwise/directml.h"
#include "eltwise/eltwise.h"
#include "fuzz_util.h"

namespace eltwise::fuzz {
namespace {

using u128 = unsigned __int128;
constexpr u128 kU64Max = ~uint64_t{0};
constexpr uint64_t kU32Max = 0xFFFFFFFFull;
// Execution limits that keep one input fast: elements and bytes per bound buffer.
constexpr uint64_t kMaxExecuteElements = uint64_t{1} << 18;
constexpr uint64_t kMaxBufferBytes = uint64_t{4} << 20;
// The model below decides output self-overlap exactly by enumeration up to this many elements.
constexpr uint64_t kMaxEnumeratedElements = uint64_t{1} << 14;

uint64_t ConsumeSize(FuzzedDataProvider& fdp) {
  switch (fdp.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
    case 1:
    case 2:
      return fdp.ConsumeIntegralInRange<uint64_t>(0, 4);
    case 3:
    case 4:
      return fdp.ConsumeIntegralInRange<uint64_t>(0, 64);
    case 5:
      return fdp.ConsumeIntegralInRange<uint64_t>(0, 5000);
    case 6:  // around 2^32
      return kU32Max - 2 + fdp.ConsumeIntegralInRange<uint64_t>(0, 4);
    default:
      return fdp.ConsumeIntegral<uint64_t>();
  }
}

int64_t ConsumeStride(FuzzedDataProvider& fdp, int64_t packed) {
  switch (fdp.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
    case 1:
      return packed;
    case 2:  // wrapping arithmetic: `packed` may be any value
      return static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(packed));
    case 3:
    case 4:
      return fdp.ConsumeIntegralInRange<int64_t>(-8, 8);
    case 5:
      return static_cast<int64_t>(
          static_cast<uint64_t>(packed) *
          static_cast<uint64_t>(fdp.ConsumeIntegralInRange<int64_t>(-3, 3)));
    case 6:
      return fdp.ConsumeIntegralInRange<int64_t>(-100000, 100000);
    default:
      return fdp.ConsumeIntegral<int64_t>();
  }
}

DataType ConsumeType(FuzzedDataProvider& fdp) {
  const uint8_t b = fdp.ConsumeIntegral<uint8_t>();
  return static_cast<DataType>(b < 240 ? b % kDataTypeCount : b);  // a few invalid values
}

uint64_t ElementSizeOrZero(DataType t) {
  return static_cast<int>(t) < kDataTypeCount ? ElementSize(t) : 0;
}

// Byte span of the addressed elements, exactly (0 with a zero size); nullopt past 2^64 - 1.
std::optional<u128> ModelSpan(const TensorDesc& t, uint64_t esize) {
  if (t.strides && t.strides->size() != t.sizes.size()) return std::nullopt;
  u128 last = 0;
  u128 packed = 1;
  for (uint64_t s : t.sizes) {
    if (s == 0) return u128{0};
  }
  for (size_t i = t.sizes.size(); i-- > 0;) {
    u128 stride;
    if (t.strides) {
      const int64_t s = (*t.strides)[i];
      stride = s < 0 ? u128(-(__int128)s) : u128(s);
    } else {
      stride = packed;
      packed *= t.sizes[i];
      if (packed > kU64Max) packed = kU64Max + 1;  // saturate; stays "too big"
    }
    last += u128(t.sizes[i] - 1) * stride;
    if (last > kU64Max) return std::nullopt;
  }
  const u128 bytes = (last + 1) * esize;
  if (bytes > kU64Max) return std::nullopt;
  return bytes;
}

// Strides in elements as unsigned 64-bit values; arithmetic on them wraps, which is exact for
// offsets of accepted tensors (they lie inside a span that fits in 64 bits).
std::vector<uint64_t> Strides(const TensorDesc& t) {
  std::vector<uint64_t> s(t.sizes.size());
  uint64_t packed = 1;
  for (size_t i = t.sizes.size(); i-- > 0;) {
    s[i] = t.strides ? static_cast<uint64_t>((*t.strides)[i]) : packed;
    packed *= t.sizes[i];
  }
  return s;
}

uint64_t ElementCount(const TensorDesc& t) {
  if (std::find(t.sizes.begin(), t.sizes.end(), uint64_t{0}) != t.sizes.end()) return 0;
  u128 n = 1;
  for (uint64_t s : t.sizes) {
    n *= s;
    if (n > kU64Max) n = kU64Max + 1;
  }
  return n > kU64Max ? kU64Max : static_cast<uint64_t>(n);
}

// Element offsets (in elements, from the lowest addressed element) in row-major index order.
std::vector<uint64_t> ElementOffsets(const TensorDesc& t) {
  const std::vector<uint64_t> strides = Strides(t);
  uint64_t first = 0;  // sum over negative strides of (size - 1) * |stride|
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    if (static_cast<int64_t>(strides[i]) < 0) first -= (t.sizes[i] - 1) * strides[i];
  }
  std::vector<uint64_t> offsets;
  const uint64_t n = ElementCount(t);
  offsets.reserve(n);
  std::vector<uint64_t> index(t.sizes.size(), 0);
  for (uint64_t k = 0; k < n; ++k) {
    uint64_t o = first;
    for (size_t i = 0; i < index.size(); ++i) o += index[i] * strides[i];
    offsets.push_back(o);
    for (size_t i = index.size(); i-- > 0;) {
      if (++index[i] < t.sizes[i]) break;
      index[i] = 0;
    }
  }
  return offsets;
}

bool IsKnownLevel(FeatureLevel level) {
  for (FeatureLevel l : AllFeatureLevels()) {
    if (l == level) return true;
  }
  return false;
}

// The per-op rules of docs/semantics.md section 2, written from its tables (not from the op
// registry), in ELTWISE_FOR_EACH_OP order: a new op does not compile until its row is written.
// Levels as DML_FEATURE_LEVEL values; kNever: not at any DirectML level.
constexpr uint32_t kNever = 0xFFFFFFFF;
struct OpRules {
  uint32_t first_level;        // the lowest DirectML level with the op
  uint32_t small_ints_since;   // int8-32 and uint8-32 at DirectML levels (float32/16 always)
  uint32_t wide_ints_since;    // int64 and uint64 at DirectML levels
  int directml_option_values;  // option values [0, n) at DirectML levels
  int extended_option_values;  // option values [0, n) at the extended level; 0: no option
};
constexpr OpRules kOpRules[] = {
    {.first_level = 0x2000,  // Sign: nan zero/propagate everywhere
     .small_ints_since = 0x2100,
     .wide_ints_since = 0x4100,
     .directml_option_values = 2,
     .extended_option_values = 2},
    {.first_level = 0x2100,  // Round: DML_ROUNDING_MODE 0-2, down and up extended
     .small_ints_since = kNever,
     .wide_ints_since = kNever,
     .directml_option_values = 3,
     .extended_option_values = 5},
};
static_assert(std::size(kOpRules) == kOpCount, "one row of rules per op");
const OpRules& RulesOf(Op op) { return kOpRules[static_cast<size_t>(op)]; }

// The answer of docs/semantics.md section 2 for one tensor. nullopt: "the model cannot decide"
// (output self-overlap of a large interleaved tensor, which eltwise may reject conservatively).
bool ModelTensorOk(FeatureLevel level, Op op, const TensorDesc& t) {
  const bool extended = level == FeatureLevel::kExtended;
  const auto v = static_cast<uint32_t>(level);
  const int ti = static_cast<int>(t.type);
  if (ti >= kDataTypeCount) return false;
  const DataType type = t.type;
  if (!extended) {
    const bool f = type == DataType::kFloat32 || type == DataType::kFloat16;
    const bool small_int = type == DataType::kInt8 || type == DataType::kInt16 ||
                           type == DataType::kInt32 || type == DataType::kUInt8 ||
                           type == DataType::kUInt16 || type == DataType::kUInt32;
    const bool wide_int = type == DataType::kInt64 || type == DataType::kUInt64;
    const OpRules& rules = RulesOf(op);
    if (!f && !(small_int && v >= rules.small_ints_since) &&
        !(wide_int && v >= rules.wide_ints_since)) {
      return false;
    }
    const int rank = t.rank();
    if (v < 0x3000 ? rank != 4 : (rank < 1 || rank > 8)) return false;
  } else if (t.rank() > 8) {
    return false;
  }
  if (t.strides && t.strides->size() != t.sizes.size()) return false;
  // The count is the product of the sizes (0 with any zero size, even after huge ones).
  const bool empty = std::find(t.sizes.begin(), t.sizes.end(), uint64_t{0}) != t.sizes.end();
  u128 elements = empty ? 0 : 1;
  for (uint64_t s : t.sizes) {
    if (!extended && (s == 0 || s > kU32Max)) return false;
    if (empty) continue;
    elements *= s;
    if (elements > kU64Max) return false;
  }
  if (!extended && elements > kU32Max) return false;
  if (t.strides) {
    for (int64_t s : *t.strides) {
      if (!extended && (s < 0 || static_cast<uint64_t>(s) > kU32Max)) return false;
    }
  }
  const uint64_t esize = ElementSize(type);
  std::optional<u128> span = ModelSpan(t, esize);
  if (!span) return false;
  u128 required = *span;
  if (!extended) {
    required = (required + 3) / 4 * 4;
    if (required > kU64Max) return false;
  }
  if (t.total_tensor_size_in_bytes < required) return false;
  const uint32_t a = t.guaranteed_base_offset_alignment;
  if (a != 0 && ((a & (a - 1)) != 0 || a < esize)) return false;
  return true;
}

// Whether two output elements share an address; nullopt when too large to enumerate.
std::optional<bool> ModelSelfOverlap(const TensorDesc& t) {
  if (!t.strides) return false;
  const uint64_t n = ElementCount(t);
  if (n == 0) return false;
  if (n > kMaxEnumeratedElements) return std::nullopt;
  std::vector<uint64_t> offsets = ElementOffsets(t);
  std::sort(offsets.begin(), offsets.end());
  return std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end();
}

// nullopt: undecided by the model (only output self-overlap of a large tensor).
std::optional<bool> ModelAccepts(FeatureLevel level, Op op, int param, const TensorDesc& in,
                                 const TensorDesc& out) {
  if (!IsKnownLevel(level)) return false;
  const bool extended = level == FeatureLevel::kExtended;
  const auto v = static_cast<uint32_t>(level);
  const OpRules& rules = RulesOf(op);
  if (!extended && v < rules.first_level) return false;
  // An op without an option ignores the value (its description has no field for it).
  if (rules.extended_option_values > 0 &&
      param >= (extended ? rules.extended_option_values : rules.directml_option_values)) {
    return false;
  }
  if (!ModelTensorOk(level, op, in) || !ModelTensorOk(level, op, out)) return false;
  if (in.type != out.type || in.sizes != out.sizes) return false;
  const std::optional<bool> overlap = ModelSelfOverlap(out);
  if (!overlap) return std::nullopt;
  return !*overlap;
}

TensorDesc ConsumeTensor(FuzzedDataProvider& fdp) {
  TensorDesc t;
  t.type = ConsumeType(fdp);
  const int rank = fdp.ConsumeIntegralInRange<int>(0, 9);
  for (int i = 0; i < rank; ++i) t.sizes.push_back(ConsumeSize(fdp));
  if (fdp.ConsumeBool()) {
    std::vector<int64_t> strides(t.sizes.size());
    int64_t packed = 1;
    for (size_t i = t.sizes.size(); i-- > 0;) {
      strides[i] = ConsumeStride(fdp, packed);
      packed =
          static_cast<int64_t>(static_cast<uint64_t>(packed) * std::max<uint64_t>(1, t.sizes[i]));
    }
    if (!strides.empty() && fdp.ConsumeIntegralInRange<int>(0, 15) == 0) {
      strides.pop_back();  // a wrong count
    }
    t.strides = std::move(strides);
  }
  return t;
}

// A total size near what the rules require (or arbitrary), and an alignment.
void ConsumeTotalAndAlignment(FuzzedDataProvider& fdp, TensorDesc& t) {
  const uint64_t esize = ElementSizeOrZero(t.type);
  const std::optional<u128> span = esize ? ModelSpan(t, esize) : std::nullopt;
  const uint64_t base = span ? static_cast<uint64_t>(std::min<u128>(*span, kU64Max)) : 0;
  const uint64_t rounded = base > kU64Max - 3 ? base : (base + 3) & ~uint64_t{3};
  switch (fdp.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
    case 1:
      t.total_tensor_size_in_bytes = rounded;
      break;
    case 2:
      t.total_tensor_size_in_bytes = base;
      break;
    case 3:
      t.total_tensor_size_in_bytes =
          base - std::min<uint64_t>(base, fdp.ConsumeIntegralInRange<uint64_t>(1, 8));
      break;
    case 4:
      t.total_tensor_size_in_bytes = rounded + fdp.ConsumeIntegralInRange<uint64_t>(0, 64);
      break;
    default:
      t.total_tensor_size_in_bytes = fdp.ConsumeIntegral<uint64_t>();
  }
  switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
    case 1:
      t.guaranteed_base_offset_alignment = 0;
      break;
    case 2:
      t.guaranteed_base_offset_alignment = uint32_t{1} << fdp.ConsumeIntegralInRange<int>(0, 8);
      break;
    default:
      t.guaranteed_base_offset_alignment = fdp.ConsumeIntegral<uint32_t>();
  }
}

// DirectML structs for a tensor; false if eltwise values do not fit DirectML's types.
struct DmlTensor {
  std::vector<uint32_t> sizes;
  std::vector<uint32_t> strides;
  DML_BUFFER_TENSOR_DESC buffer{};
  DML_TENSOR_DESC tensor{};
};

std::optional<DML_TENSOR_DATA_TYPE> ToDml(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return DML_TENSOR_DATA_TYPE_FLOAT32;
    case DataType::kFloat16:
      return DML_TENSOR_DATA_TYPE_FLOAT16;
    case DataType::kFloat64:
      return DML_TENSOR_DATA_TYPE_FLOAT64;
    case DataType::kInt8:
      return DML_TENSOR_DATA_TYPE_INT8;
    case DataType::kInt16:
      return DML_TENSOR_DATA_TYPE_INT16;
    case DataType::kInt32:
      return DML_TENSOR_DATA_TYPE_INT32;
    case DataType::kInt64:
      return DML_TENSOR_DATA_TYPE_INT64;
    case DataType::kUInt8:
      return DML_TENSOR_DATA_TYPE_UINT8;
    case DataType::kUInt16:
      return DML_TENSOR_DATA_TYPE_UINT16;
    case DataType::kUInt32:
      return DML_TENSOR_DATA_TYPE_UINT32;
    case DataType::kUInt64:
      return DML_TENSOR_DATA_TYPE_UINT64;
    default:
      return std::nullopt;
  }
}

bool MakeDml(const TensorDesc& t, DmlTensor& d) {
  const std::optional<DML_TENSOR_DATA_TYPE> type = ToDml(t.type);
  if (!type || t.sizes.size() > 8) return false;
  for (uint64_t s : t.sizes) {
    if (s > kU32Max) return false;
    d.sizes.push_back(static_cast<uint32_t>(s));
  }
  if (t.strides) {
    if (t.strides->size() != t.sizes.size()) return false;
    for (int64_t s : *t.strides) {
      if (s < 0 || static_cast<uint64_t>(s) > kU32Max) return false;
      d.strides.push_back(static_cast<uint32_t>(s));
    }
  }
  d.buffer.DataType = *type;
  d.buffer.Flags = DML_TENSOR_FLAG_NONE;
  d.buffer.DimensionCount = static_cast<uint32_t>(d.sizes.size());
  d.buffer.Sizes = d.sizes.data();
  d.buffer.Strides = t.strides ? d.strides.data() : nullptr;
  d.buffer.TotalTensorSizeInBytes = t.total_tensor_size_in_bytes;
  d.buffer.GuaranteedBaseOffsetAlignment = t.guaranteed_base_offset_alignment;
  d.tensor.Type = DML_TENSOR_TYPE_BUFFER;
  d.tensor.Desc = &d.buffer;
  return true;
}

std::string Describe(const TensorDesc& t) {
  std::string s = "type " + std::to_string(static_cast<int>(t.type)) + " sizes [";
  for (uint64_t v : t.sizes) s += std::to_string(v) + " ";
  s += "]";
  if (t.strides) {
    s += " strides [";
    for (int64_t v : *t.strides) s += std::to_string(v) + " ";
    s += "]";
  }
  return s + " total " + std::to_string(t.total_tensor_size_in_bytes) + " align " +
         std::to_string(t.guaranteed_base_offset_alignment);
}

bool SameBytes(const std::byte* a, const std::byte* b, size_t n) {
  return n == 0 || std::memcmp(a, b, n) == 0;
}

// An aligned heap block; bytes outside the bindings are poisoned while the library runs.
struct Arena {
  explicit Arena(size_t n) : size(n), block(new std::byte[n + 64]) {
    base = block.get() + (64 - reinterpret_cast<uintptr_t>(block.get()) % 64) % 64;
  }
  size_t size;
  std::unique_ptr<std::byte[]> block;
  std::byte* base;
};

void Run(FuzzedDataProvider& fdp) {
  // Level, operator and its parameter.
  const std::span<const FeatureLevel> levels = AllFeatureLevels();
  FeatureLevel level;
  if (fdp.ConsumeIntegralInRange<int>(0, 63) == 0) {
    level = static_cast<FeatureLevel>(fdp.ConsumeIntegral<uint32_t>());
  } else {
    level = levels[fdp.ConsumeIntegralInRange<size_t>(0, levels.size() - 1)];
  }
  const Op op = static_cast<Op>(fdp.ConsumeIntegralInRange<int>(0, kOpCount - 1));
  int param = fdp.ConsumeIntegralInRange<int>(0, 5);
  if (fdp.ConsumeIntegralInRange<int>(0, 31) == 0) param = fdp.ConsumeIntegral<uint8_t>();

  // Tensors: the output mostly shares the input's type and sizes.
  TensorDesc in = ConsumeTensor(fdp);
  TensorDesc out;
  switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      out = in;
      break;
    case 1:
    case 2: {
      out = in;
      out.strides.reset();
      if (fdp.ConsumeBool()) {
        TensorDesc other = ConsumeTensor(fdp);
        if (other.strides) {
          other.strides->resize(in.sizes.size(), 1);
          out.strides = other.strides;
        }
      }
      break;
    }
    default:
      out = ConsumeTensor(fdp);
  }
  ConsumeTotalAndAlignment(fdp, in);
  ConsumeTotalAndAlignment(fdp, out);

  const OperatorDesc desc = MakeDesc(op, param, in, out);

  // eltwise decides self-overlap of an interleaved strided output exactly by sorting its offsets
  // up to 2^22 elements; that costs seconds per call under the sanitizers, so such outputs are
  // fuzzed up to 2^16 elements (the same code path).
  const uint64_t out_count = ElementCount(out);
  if (out.strides && out_count > (uint64_t{1} << 16) && out_count <= (uint64_t{1} << 22)) return;

  // Validation: the model, Validate and Compile must agree.
  const std::optional<bool> model = ModelAccepts(level, op, param, in, out);
  const Status validated = Validate(level, desc);
  if (!validated.ok()) {
    ELTWISE_FUZZ_CHECK(validated.code() == StatusCode::kInvalidArgument);
    ELTWISE_FUZZ_CHECK(!validated.message().empty());
  }
  if (model && *model != validated.ok()) {
    std::fprintf(stderr, "level 0x%x op %d param %d\n  input  %s\n  output %s\n  eltwise: %s\n",
                 static_cast<unsigned>(level), static_cast<int>(op), param, Describe(in).c_str(),
                 Describe(out).c_str(), validated.ToString().c_str());
    Fail("the rules model and Validate disagree");
  }
  if (validated.ok() && level != FeatureLevel::kExtended) {
    ELTWISE_FUZZ_CHECK(Validate(FeatureLevel::kExtended, desc).ok());
  }

  const int threads = fdp.ConsumeIntegralInRange<int>(1, 3);
  Expected<Device> device = Device::Cpu({level, threads});
  if (!device.ok()) {
    ELTWISE_FUZZ_CHECK(!IsKnownLevel(level));
    return;
  }
  ELTWISE_FUZZ_CHECK(IsKnownLevel(level));

  // Optionally the same request through the DirectML structs (only where DirectML can express it),
  // sometimes with one structural defect that FromDirectML must reject.
  Expected<CompiledOperator> compiled = Status(StatusCode::kInternal, "not compiled");
  DmlTensor dml_in, dml_out;
  // Sign and Round have DirectML structs; Sign's nan policy is an eltwise option (zero:
  // DirectML's).
  const bool has_dml_struct = op == Op::kSign || op == Op::kRound;
  if (fdp.ConsumeBool() && has_dml_struct && param <= 2 && (op == Op::kRound || param == 0) &&
      MakeDml(in, dml_in) && MakeDml(out, dml_out)) {
    DML_ELEMENT_WISE_SIGN_OPERATOR_DESC sign{&dml_in.tensor, &dml_out.tensor};
    DML_ELEMENT_WISE_ROUND_OPERATOR_DESC round{&dml_in.tensor, &dml_out.tensor,
                                               static_cast<DML_ROUNDING_MODE>(param)};
    DML_OPERATOR_DESC op_desc{
        op == Op::kSign ? DML_OPERATOR_ELEMENT_WISE_SIGN : DML_OPERATOR_ELEMENT_WISE_ROUND,
        op == Op::kSign ? static_cast<const void*>(&sign) : &round};
    // DirectML's size helper: roundup4 of the span, 0 when it does not fit in 64 bits.
    const std::optional<u128> span = ModelSpan(in, ElementSize(in.type));
    const u128 rounded = span ? (*span + 3) / 4 * 4 : 0;
    ELTWISE_FUZZ_CHECK(DMLCalcBufferTensorSize(dml_in.buffer.DataType, dml_in.buffer.DimensionCount,
                                               dml_in.buffer.Sizes, dml_in.buffer.Strides) ==
                       (rounded > kU64Max ? 0 : static_cast<uint64_t>(rounded)));
    const int defect = fdp.ConsumeIntegralInRange<int>(0, 15);
    switch (defect) {
      case 1:
        op_desc.Desc = nullptr;
        break;
      case 2:
        op_desc.Type = static_cast<DML_OPERATOR_TYPE>(fdp.ConsumeIntegral<uint8_t>() & ~1);
        break;
      case 3:
        dml_out.tensor.Type = DML_TENSOR_TYPE_INVALID;
        break;
      case 4:
        dml_in.tensor.Desc = nullptr;
        break;
      case 5:  // DirectML accepts DML_TENSOR_FLAG_OWNED_BY_DML on inputs only
        dml_out.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
        break;
      case 6:
        dml_out.buffer.DataType =
            static_cast<DML_TENSOR_DATA_TYPE>(12 + fdp.ConsumeIntegral<uint8_t>());
        break;
      case 7:
        dml_in.buffer.DimensionCount = 9 + fdp.ConsumeIntegral<uint8_t>();
        break;
      case 8:
        dml_out.buffer.Sizes = nullptr;
        break;
      case 9:
        round.RoundingMode = static_cast<DML_ROUNDING_MODE>(3 + fdp.ConsumeIntegral<uint8_t>());
        break;
      case 10:
        sign.InputTensor = nullptr;
        round.InputTensor = nullptr;
        break;
      case 11:  // not a defect: an owned input is accepted and bound at execution
        dml_in.buffer.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
        break;
      default:
        break;
    }
    // Defects that make the description unusable (a Sizes-null tensor with rank 0 is still fine,
    // as is an invalid operator type that happens to be Sign or Round).
    bool must_reject = defect >= 1 && defect <= 10 && defect != 9;
    if (defect == 9) must_reject = op == Op::kRound;
    if (defect == 8) must_reject = dml_out.buffer.DimensionCount != 0;
    if (defect == 2) {
      must_reject = op_desc.Type != DML_OPERATOR_ELEMENT_WISE_SIGN &&
                    op_desc.Type != DML_OPERATOR_ELEMENT_WISE_ROUND;
    }
    if (must_reject) {
      Expected<OperatorDesc> converted = FromDirectML(op_desc);
      ELTWISE_FUZZ_CHECK(!converted.ok());
      ELTWISE_FUZZ_CHECK(converted.status().code() == StatusCode::kInvalidArgument);
      ELTWISE_FUZZ_CHECK(!converted.status().message().empty());
      return;
    }
    if (defect != 0 && defect != 11) return;  // harmless (e.g. op type rewritten to a valid one)
    compiled = CompileDirectML(*device, op_desc);
  } else {
    compiled = Compile(*device, desc);
  }
  ELTWISE_FUZZ_CHECK(compiled.ok() == validated.ok());
  if (!compiled.ok()) {
    ELTWISE_FUZZ_CHECK(compiled.status().message() == validated.message());
    return;
  }

  // Bindings: sizes around the promised totals, placed at chosen offsets, disjoint, in place or
  // overlapping.
  const uint64_t esize = ElementSize(in.type);
  const uint64_t count = ElementCount(in);
  auto binding_size = [&](uint64_t total) -> uint64_t {
    switch (fdp.ConsumeIntegralInRange<int>(0, 7)) {
      case 0:
        return total - std::min<uint64_t>(total, fdp.ConsumeIntegralInRange<uint64_t>(1, 8));
      case 1:
        return total + fdp.ConsumeIntegralInRange<uint64_t>(1, 64);
      case 2:
        return fdp.ConsumeIntegral<uint64_t>();
      default:
        return total;
    }
  };
  const uint64_t in_size = binding_size(in.total_tensor_size_in_bytes);
  const uint64_t out_size = binding_size(out.total_tensor_size_in_bytes);
  const int placement = fdp.ConsumeIntegralInRange<int>(0, 3);  // 0-1 disjoint, 2 same, 3 shifted
  const uint64_t in_misalign = fdp.ConsumeBool() ? 0 : fdp.ConsumeIntegralInRange<uint64_t>(0, 63);
  uint64_t out_misalign = fdp.ConsumeBool() ? 0 : fdp.ConsumeIntegralInRange<uint64_t>(0, 63);
  const int64_t shift = fdp.ConsumeIntegralInRange<int64_t>(-256, 256);
  const bool null_in = fdp.ConsumeIntegralInRange<int>(0, 63) == 0;
  const bool null_out = fdp.ConsumeIntegralInRange<int>(0, 63) == 0;

  // A binding that claims more bytes than we can provide is backed by a small real buffer: the
  // library must reject it (size < total) before touching anything, or it is not executed.
  const bool in_real = in_size <= kMaxBufferBytes;
  const bool out_real = out_size <= kMaxBufferBytes;
  const uint64_t in_bytes = in_real ? in_size : 64;
  const uint64_t out_bytes = out_real ? out_size : 64;

  std::unique_ptr<Arena> in_arena, out_arena;
  std::byte* in_ptr;
  std::byte* out_ptr;
  if (placement <= 1) {
    in_arena = std::make_unique<Arena>(in_misalign + in_bytes);
    out_arena = std::make_unique<Arena>(out_misalign + out_bytes);
    in_ptr = in_arena->base + in_misalign;
    out_ptr = out_arena->base + out_misalign;
  } else {
    // One arena; the output starts `shift` bytes from the input (0 for the same start).
    const int64_t delta = placement == 2 ? 0 : shift;
    const uint64_t lead = delta < 0 ? static_cast<uint64_t>(-delta) : 0;
    const uint64_t in_start = 64 + in_misalign + lead;
    const uint64_t out_start = static_cast<uint64_t>(static_cast<int64_t>(in_start) + delta);
    out_misalign = out_start % 64;
    in_arena = std::make_unique<Arena>(std::max(in_start + in_bytes, out_start + out_bytes));
    in_ptr = in_arena->base + in_start;
    out_ptr = in_arena->base + out_start;
  }
  for (Arena* a : {in_arena.get(), out_arena.get()}) {
    if (a == nullptr) continue;
    for (size_t i = 0; i < a->size; ++i)
      a->base[i] = static_cast<std::byte>(fdp.ConsumeIntegral<uint8_t>());
  }
  const std::vector<std::byte> in_before(in_arena->base, in_arena->base + in_arena->size);
  std::vector<std::byte> out_before;
  if (out_arena) out_before.assign(out_arena->base, out_arena->base + out_arena->size);

  const ConstBinding in_binding{null_in ? nullptr : in_ptr, in_size};
  const Binding out_binding{null_out ? nullptr : out_ptr, out_size};

  // What Execute must answer.
  const bool extended = level == FeatureLevel::kExtended;
  auto required_alignment = [&](const TensorDesc& t) -> uint64_t {
    const uint64_t g = t.guaranteed_base_offset_alignment;
    return extended ? (g == 0 ? 1 : g) : std::max<uint64_t>(16, g);
  };
  bool must_succeed = count == 0;
  if (count != 0) {
    must_succeed = !null_in && !null_out && in_size >= in.total_tensor_size_in_bytes &&
                   out_size >= out.total_tensor_size_in_bytes &&
                   reinterpret_cast<uintptr_t>(in_ptr) % required_alignment(in) == 0 &&
                   reinterpret_cast<uintptr_t>(out_ptr) % required_alignment(out) == 0;
  }
  // Too large to execute here: only a call that must be rejected is made.
  if (must_succeed && count != 0 && (!in_real || !out_real || count > kMaxExecuteElements)) {
    return;
  }

  // Everything but the bound bytes is poisoned while the library runs.
  for (Arena* a : {in_arena.get(), out_arena.get()}) {
    if (a != nullptr) Poison(a->block.get(), a->size + 64);
  }
  if (in_real) Unpoison(in_ptr, in_size);
  if (out_real) Unpoison(out_ptr, out_size);
  const Status executed = compiled->Execute(in_binding, out_binding);
  for (Arena* a : {in_arena.get(), out_arena.get()}) {
    if (a != nullptr) Unpoison(a->block.get(), a->size + 64);
  }

  if (!must_succeed) {
    ELTWISE_FUZZ_CHECK(!executed.ok());
    ELTWISE_FUZZ_CHECK(executed.code() == StatusCode::kInvalidArgument);
    ELTWISE_FUZZ_CHECK(!executed.message().empty());
    ELTWISE_FUZZ_CHECK(SameBytes(in_arena->base, in_before.data(), in_before.size()));
    if (out_arena) {
      ELTWISE_FUZZ_CHECK(SameBytes(out_arena->base, out_before.data(), out_before.size()));
    }
    return;
  }
  ELTWISE_FUZZ_CHECK(executed.ok());

  // The expected bytes: every output element = f(its input element, read before any write).
  std::vector<std::byte> want_in = in_before;
  std::vector<std::byte> want_out = out_before;
  std::vector<std::byte>& target = out_arena ? want_out : want_in;
  const std::byte* target_base = out_arena ? out_arena->base : in_arena->base;
  std::byte* actual_out_base = out_arena ? out_arena->base : in_arena->base;
  const uint64_t in_index = static_cast<uint64_t>(in_ptr - in_arena->base);
  const uint64_t out_index = static_cast<uint64_t>(out_ptr - target_base);
  if (count != 0) {
    const Function function =
        FunctionOfEntry(op, RulesOf(op).extended_option_values > 0 ? param : 0);
    const std::vector<uint64_t> in_offsets = ElementOffsets(in);
    const std::vector<uint64_t> out_offsets = ElementOffsets(out);
    for (uint64_t k = 0; k < count; ++k) {
      const std::byte* x = in_before.data() + in_index + in_offsets[k] * esize;
      std::byte* y = target.data() + out_index + out_offsets[k] * esize;
      ReferenceElement(function, in.type, x, y);
      std::byte* got = actual_out_base + out_index + out_offsets[k] * esize;
      if (IsNanElement(in.type, y) && IsNanElement(in.type, got)) std::memcpy(y, got, esize);
    }
  }
  ELTWISE_FUZZ_CHECK(SameBytes(in_arena->base, want_in.data(), want_in.size()));
  if (out_arena) {
    ELTWISE_FUZZ_CHECK(SameBytes(out_arena->base, want_out.data(), want_out.size()));
  }
}

}  // namespace
}  // namespace eltwise::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  eltwise::fuzz::Run(fdp);
  return 0;
}
