// Validation of operator descriptions (docs/semantics.md section 2). Rules are checked in a fixed
// order and the first broken one is reported; every message names the field and the rule.
#include "core/validate.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/levels.h"
#include "core/op_registry.h"
#include "core/out_of_memory.h"
#include "eltwise/device.h"

namespace eltwise {
namespace {

constexpr uint64_t kDirectMLMaxElements = 0xFFFFFFFFull;  // 2^32 - 1
constexpr uint64_t kUint32Max = 0xFFFFFFFFull;
constexpr uint32_t kDirectMLBindingAlignment = 16;  // DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT
// Output self-overlap is decided exactly by enumerating offsets up to this many elements; beyond
// it, interleaved strides that the fast sufficient test cannot clear are rejected.
constexpr uint64_t kExactOverlapCheckLimit = uint64_t{1} << 22;

std::string LevelText(FeatureLevel level) {
  return level == FeatureLevel::kExtended ? "the extended feature level"
                                          : "feature level " + std::string(Name(level));
}

std::string OpText(Op op) { return std::string(Info(op).title); }

std::string TypeList(FeatureLevel level, Op op) {
  std::string list;
  for (int t = 0; t < kDataTypeCount; ++t) {
    const auto type = static_cast<DataType>(t);
    if (!SupportsType(level, op, type)) continue;
    if (!list.empty()) list += ", ";
    list += Name(type);
  }
  return list;
}

bool IsValidDataType(DataType type) { return static_cast<int>(type) < kDataTypeCount; }

// Checks one tensor on its own. `field` is "input" or "output".
Status ValidateTensor(FeatureLevel level, Op op, const TensorDesc& t, const char* field) {
  const std::string f = field;
  const bool directml = level != FeatureLevel::kExtended;
  if (!IsValidDataType(t.type)) {
    return InvalidArgument(f + ".type is " + std::to_string(static_cast<int>(t.type)) +
                           ", which is not a data type");
  }
  if (!SupportsType(level, op, t.type)) {
    return InvalidArgument(f + ".type is " + std::string(Name(t.type)) + "; " + OpText(op) +
                           " at " + LevelText(level) + " accepts " + TypeList(level, op));
  }
  const RankRange ranks = SupportedRanks(level, op);
  if (t.rank() < ranks.min || t.rank() > ranks.max) {
    const std::string allowed =
        ranks.min == ranks.max ? "exactly " + std::to_string(ranks.min)
                               : std::to_string(ranks.min) + " to " + std::to_string(ranks.max);
    return InvalidArgument(f + ".sizes has " + std::to_string(t.rank()) + " dimensions; " +
                           OpText(op) + " at " + LevelText(level) + " requires " + allowed);
  }
  if (t.strides && t.strides->size() != t.sizes.size()) {
    return InvalidArgument(f + ".strides has " + std::to_string(t.strides->size()) +
                           " entries; it must have one per dimension (" +
                           std::to_string(t.sizes.size()) + ")");
  }
  // A zero-sized dimension makes the count 0 whatever the other sizes (no overflow then).
  const bool empty = std::find(t.sizes.begin(), t.sizes.end(), uint64_t{0}) != t.sizes.end();
  uint64_t elements = empty ? 0 : 1;
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    const std::string at = f + ".sizes[" + std::to_string(i) + "] is " + std::to_string(t.sizes[i]);
    if (directml && t.sizes[i] == 0) {
      return InvalidArgument(at + "; DirectML requires every size >= 1");
    }
    if (directml && t.sizes[i] > kUint32Max) {
      return InvalidArgument(at + "; DirectML sizes are 32-bit (at most 4294967295)");
    }
    if (!empty && __builtin_mul_overflow(elements, t.sizes[i], &elements)) {
      return InvalidArgument(f + ".sizes multiply to more than 2^64 - 1 elements");
    }
  }
  if (directml && elements > kDirectMLMaxElements) {
    return InvalidArgument(f + " has " + std::to_string(elements) +
                           " elements; DirectML allows at most 4294967295");
  }
  if (t.strides) {
    for (size_t i = 0; i < t.strides->size(); ++i) {
      const int64_t s = (*t.strides)[i];
      const std::string at = f + ".strides[" + std::to_string(i) + "] is " + std::to_string(s);
      if (directml && s < 0) {
        return InvalidArgument(at + "; DirectML requires non-negative strides");
      }
      if (directml && static_cast<uint64_t>(s) > kUint32Max) {
        return InvalidArgument(at + "; DirectML strides are 32-bit (at most 4294967295)");
      }
    }
  }
  const std::optional<uint64_t> required = directml
                                               ? CalcBufferTensorSize(t.type, t.sizes, t.strides)
                                               : SpanInBytes(t.type, t.sizes, t.strides);
  if (!required) {
    return InvalidArgument(f + ": the bytes its sizes and strides address overflow 64 bits");
  }
  if (t.total_tensor_size_in_bytes < *required) {
    return InvalidArgument(f + ".total_tensor_size_in_bytes is " +
                           std::to_string(t.total_tensor_size_in_bytes) +
                           (directml ? "; DMLCalcBufferTensorSize requires at least "
                                     : "; the addressed elements require at least ") +
                           std::to_string(*required));
  }
  const uint32_t alignment = t.guaranteed_base_offset_alignment;
  if (alignment != 0 && ((alignment & (alignment - 1)) != 0 || alignment < ElementSize(t.type))) {
    return InvalidArgument(f + ".guaranteed_base_offset_alignment is " + std::to_string(alignment) +
                           "; it must be 0 or a power of two >= the element size (" +
                           std::to_string(ElementSize(t.type)) + ")");
  }
  return Status::Ok();
}

// Rejects an output whose strides map two elements to one address.
Status ValidateOutputDoesNotSelfOverlap(const TensorDesc& t) {
  if (!t.strides) return Status::Ok();  // packed
  struct Dim {
    uint64_t size;
    uint64_t stride;
    size_t index;
  };
  // No elements, nothing shared (checked before any stride, whatever the zero-sized dim's index).
  if (std::find(t.sizes.begin(), t.sizes.end(), uint64_t{0}) != t.sizes.end()) return Status::Ok();
  std::vector<Dim> dims;
  uint64_t elements = 1;
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    elements *= t.sizes[i];  // cannot overflow: checked by ValidateTensor
    if (t.sizes[i] == 1) continue;
    const uint64_t stride = StrideMagnitude((*t.strides)[i]);
    if (stride == 0) {
      return InvalidArgument("output.strides[" + std::to_string(i) + "] is 0 while output.sizes[" +
                             std::to_string(i) + "] is " + std::to_string(t.sizes[i]) +
                             "; output elements must not share an address");
    }
    dims.push_back({t.sizes[i], stride, i});
  }
  // Sufficient test: with dims sorted by stride, each stride must exceed the extent of all
  // smaller dims. Spans were checked to fit in 64 bits, so the sums cannot overflow.
  std::sort(dims.begin(), dims.end(),
            [](const Dim& a, const Dim& b) { return a.stride < b.stride; });
  uint64_t extent = 0;
  bool provably_disjoint = true;
  for (const Dim& d : dims) {
    if (d.stride <= extent) {
      provably_disjoint = false;
      break;
    }
    extent += (d.size - 1) * d.stride;
  }
  if (provably_disjoint) return Status::Ok();
  if (elements > kExactOverlapCheckLimit) {
    return InvalidArgument(
        "output.strides interleave dimensions and the output has more than 2^22 elements; "
        "eltwise cannot prove that no two output elements share an address");
  }
  std::vector<uint64_t> offsets{0};
  offsets.reserve(elements);
  for (const Dim& d : dims) {
    const size_t count = offsets.size();
    for (uint64_t k = 1; k < d.size; ++k) {
      for (size_t j = 0; j < count; ++j) offsets.push_back(offsets[j] + k * d.stride);
    }
  }
  std::sort(offsets.begin(), offsets.end());
  if (std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end()) {
    return InvalidArgument(
        "output.strides map two output elements to the same address; output elements must not "
        "share an address");
  }
  return Status::Ok();
}

Status ValidatePair(const TensorDesc& in, const TensorDesc& out) {
  if (out.type != in.type) {
    return InvalidArgument("output.type is " + std::string(Name(out.type)) + " but input.type is " +
                           std::string(Name(in.type)) +
                           "; input and output must have the same type");
  }
  if (out.rank() != in.rank()) {
    return InvalidArgument("output.sizes has " + std::to_string(out.rank()) +
                           " dimensions but input.sizes has " + std::to_string(in.rank()) +
                           "; input and output must have the same rank");
  }
  for (size_t i = 0; i < in.sizes.size(); ++i) {
    if (out.sizes[i] != in.sizes[i]) {
      return InvalidArgument("output.sizes[" + std::to_string(i) + "] is " +
                             std::to_string(out.sizes[i]) + " but input.sizes[" +
                             std::to_string(i) + "] is " + std::to_string(in.sizes[i]) +
                             "; input and output must have the same sizes");
    }
  }
  return Status::Ok();
}

Status ValidateOperands(FeatureLevel level, Op op, const TensorDesc& in, const TensorDesc& out) {
  if (Status s = ValidateTensor(level, op, in, "input"); !s.ok()) return s;
  if (Status s = ValidateTensor(level, op, out, "output"); !s.ok()) return s;
  if (Status s = ValidatePair(in, out); !s.ok()) return s;
  return ValidateOutputDoesNotSelfOverlap(out);
}

Status ValidateLevelHasOp(FeatureLevel level, Op op) {
  if (!IsKnownFeatureLevel(level)) {
    return InvalidArgument("feature level " + std::to_string(static_cast<uint32_t>(level)) +
                           " is not a DirectML feature level (DML_FEATURE_LEVEL) nor extended");
  }
  if (static_cast<uint32_t>(level) < static_cast<uint32_t>(*MinimumLevel(op))) {
    return InvalidArgument(OpText(op) + " is not available at " + LevelText(level) +
                           "; it requires feature level " + std::string(Name(*MinimumLevel(op))) +
                           " or higher");
  }
  return Status::Ok();
}

// The checks of each op's options: one overload per description type with an option, chosen by
// std::visit (an op with an option but without its overload does not compile). An op without an
// option has nothing to check.
template <class Desc>
requires(!HasOptionField<Desc>) Status
    ValidateOptions(FeatureLevel /*level*/, const Desc& /*desc*/) {
  return Status::Ok();
}

Status ValidateOptions(FeatureLevel /*level*/, const SignDesc& sign) {
  if (sign.nan != NanPolicy::kZero && sign.nan != NanPolicy::kPropagate) {
    return InvalidArgument("nan is " + std::to_string(static_cast<int>(sign.nan)) +
                           "; it must be zero (0) or propagate (1)");
  }
  return Status::Ok();
}

Status ValidateOptions(FeatureLevel level, const RoundDesc& round) {
  const int mode = static_cast<int>(round.mode);
  if (mode >= kRoundingModeCount) {
    return InvalidArgument("mode is " + std::to_string(mode) +
                           "; rounding modes are 0 (halves_to_nearest_even), 1 (toward_zero), 2 "
                           "(toward_infinity), 3 (down), 4 (up)");
  }
  if (!Supports(level, round.mode)) {
    return InvalidArgument("mode is " + std::string(Name(round.mode)) + " (" +
                           std::to_string(mode) + "); " + LevelText(level) +
                           " accepts DML_ROUNDING_MODE 0-2 only (down and up are extended)");
  }
  return Status::Ok();
}

}  // namespace

uint32_t RequiredBindingAlignment(FeatureLevel level, const TensorDesc& tensor) {
  const uint32_t guaranteed = tensor.guaranteed_base_offset_alignment;
  if (level == FeatureLevel::kExtended) return guaranteed == 0 ? 1 : guaranteed;
  return std::max(kDirectMLBindingAlignment, guaranteed);
}

Status Validate(FeatureLevel level, const OperatorDesc& desc) {
  return GuardAllocation("Validate", [&]() -> Status {
    const Op op = OpOf(desc);
    if (Status s = ValidateLevelHasOp(level, op); !s.ok()) return s;
    if (Status s = std::visit([level](const auto& d) { return ValidateOptions(level, d); }, desc);
        !s.ok()) {
      return s;
    }
    return ValidateOperands(level, op, InputOf(desc), OutputOf(desc));
  });
}

}  // namespace eltwise
