// Translation of DirectML descriptors into eltwise descriptors. Only structure is checked here
// (null pointers, tensor types, flags, data type values); every DirectML rule lives in validate.cc.

// The translation needs every name, whatever target version a build pins for its clients.
#undef DML_TARGET_VERSION
#define DML_TARGET_VERSION 0x6400
#include "eltwise/directml.h"

#include <cstdio>
#include <string>

#include "core/out_of_memory.h"
#include "core/validate.h"

namespace eltwise {
namespace {

std::optional<DataType> FromDml(DML_TENSOR_DATA_TYPE type) {
  switch (type) {
    case DML_TENSOR_DATA_TYPE_FLOAT32:
      return DataType::kFloat32;
    case DML_TENSOR_DATA_TYPE_FLOAT16:
      return DataType::kFloat16;
    case DML_TENSOR_DATA_TYPE_FLOAT64:
      return DataType::kFloat64;
    case DML_TENSOR_DATA_TYPE_UINT32:
      return DataType::kUInt32;
    case DML_TENSOR_DATA_TYPE_UINT16:
      return DataType::kUInt16;
    case DML_TENSOR_DATA_TYPE_UINT8:
      return DataType::kUInt8;
    case DML_TENSOR_DATA_TYPE_UINT64:
      return DataType::kUInt64;
    case DML_TENSOR_DATA_TYPE_INT32:
      return DataType::kInt32;
    case DML_TENSOR_DATA_TYPE_INT16:
      return DataType::kInt16;
    case DML_TENSOR_DATA_TYPE_INT8:
      return DataType::kInt8;
    case DML_TENSOR_DATA_TYPE_INT64:
      return DataType::kInt64;
    case DML_TENSOR_DATA_TYPE_UINT4:  // DirectML data types without an eltwise counterpart
    case DML_TENSOR_DATA_TYPE_INT4:
    case DML_TENSOR_DATA_TYPE_UNKNOWN:
      break;
  }
  return std::nullopt;
}

bool IsFourBit(DML_TENSOR_DATA_TYPE type) {
  return type == DML_TENSOR_DATA_TYPE_UINT4 || type == DML_TENSOR_DATA_TYPE_INT4;
}

// `op` names the operator in messages ("Sign", "Round"); `input` says which tensor this is.
Expected<TensorDesc> FromDml(const DML_TENSOR_DESC* tensor, const std::string& field,
                             const char* op, bool input) {
  if (tensor == nullptr) return InvalidArgument(field + " is null");
  if (tensor->Type != DML_TENSOR_TYPE_BUFFER) {
    return InvalidArgument(field + "->Type is " + std::to_string(tensor->Type) +
                           "; it must be DML_TENSOR_TYPE_BUFFER (1)");
  }
  const auto* buffer = static_cast<const DML_BUFFER_TENSOR_DESC*>(tensor->Desc);
  if (buffer == nullptr) return InvalidArgument(field + "->Desc is null");
  const std::string f = field + "->Desc->";
  const std::optional<DataType> type = FromDml(buffer->DataType);
  if (IsFourBit(buffer->DataType)) {
    return InvalidArgument(f + "DataType is " +
                           (buffer->DataType == DML_TENSOR_DATA_TYPE_UINT4
                                ? "DML_TENSOR_DATA_TYPE_UINT4 (12)"
                                : "DML_TENSOR_DATA_TYPE_INT4 (13)") +
                           "; " + op + " accepts no 4-bit data type at any feature level");
  }
  if (!type) {
    return InvalidArgument(f + "DataType is " + std::to_string(buffer->DataType) +
                           ", which is not a DML_TENSOR_DATA_TYPE eltwise knows");
  }
  const int flags = static_cast<int>(buffer->Flags);
  if ((flags & ~static_cast<int>(DML_TENSOR_FLAG_OWNED_BY_DML)) != 0) {
    return InvalidArgument(f + "Flags is " + std::to_string(flags) +
                           "; DML_TENSOR_FLAGS has DML_TENSOR_FLAG_NONE (0) and "
                           "DML_TENSOR_FLAG_OWNED_BY_DML (1) only");
  }
  if (!input && flags != DML_TENSOR_FLAG_NONE) {
    return InvalidArgument(f + "Flags is " + std::to_string(flags) +
                           "; DML_TENSOR_FLAG_OWNED_BY_DML is for input tensors only");
  }
  if (buffer->DimensionCount > kMaxRank) {
    return InvalidArgument(f + "DimensionCount is " + std::to_string(buffer->DimensionCount) +
                           "; DirectML allows at most 8 dimensions");
  }
  if (buffer->DimensionCount != 0 && buffer->Sizes == nullptr) {
    return InvalidArgument(f + "Sizes is null with DimensionCount " +
                           std::to_string(buffer->DimensionCount));
  }
  TensorDesc desc;
  desc.type = *type;
  desc.sizes.assign(buffer->Sizes, buffer->Sizes + buffer->DimensionCount);
  if (buffer->Strides != nullptr) {
    desc.strides.emplace(buffer->Strides, buffer->Strides + buffer->DimensionCount);
  }
  desc.total_tensor_size_in_bytes = buffer->TotalTensorSizeInBytes;
  desc.guaranteed_base_offset_alignment = buffer->GuaranteedBaseOffsetAlignment;
  return desc;
}

// The input tensor of a description FromDirectML accepted.
const DML_BUFFER_TENSOR_DESC& InputBuffer(const DML_OPERATOR_DESC& desc) {
  const DML_TENSOR_DESC* input =
      desc.Type == DML_OPERATOR_ELEMENT_WISE_SIGN
          ? static_cast<const DML_ELEMENT_WISE_SIGN_OPERATOR_DESC*>(desc.Desc)->InputTensor
          : static_cast<const DML_ELEMENT_WISE_ROUND_OPERATOR_DESC*>(desc.Desc)->InputTensor;
  return *static_cast<const DML_BUFFER_TENSOR_DESC*>(input->Desc);
}

uint64_t ElementCount(const TensorDesc& t) {
  uint64_t n = 1;
  for (uint64_t s : t.sizes) n *= s;  // validated: fits in 64 bits
  return n;
}

// DirectML's binding rules for the buffer bound at initialization (as CompiledOperator::Execute
// applies them at execution).
Status CheckInitializationBinding(FeatureLevel level, const TensorDesc& t, ConstBinding input) {
  if (input.data == nullptr) return InvalidArgument("initialization input binding is null");
  if (input.size_in_bytes < t.total_tensor_size_in_bytes) {
    return InvalidArgument("initialization input binding has " +
                           std::to_string(input.size_in_bytes) +
                           " bytes; InputTensor->Desc->TotalTensorSizeInBytes requires at least " +
                           std::to_string(t.total_tensor_size_in_bytes));
  }
  const uint32_t alignment = RequiredBindingAlignment(level, t);
  if ((reinterpret_cast<uintptr_t>(input.data) & (alignment - 1)) != 0) {
    char address[32];
    std::snprintf(address, sizeof address, "%p", input.data);
    return InvalidArgument("initialization input binding address " + std::string(address) +
                           " is not aligned to " + std::to_string(alignment) +
                           " bytes (InputTensor->Desc->GuaranteedBaseOffsetAlignment, or 16 at "
                           "DirectML feature levels)");
  }
  return Status::Ok();
}

}  // namespace

FeatureLevel ToFeatureLevel(DML_FEATURE_LEVEL level) { return static_cast<FeatureLevel>(level); }

Expected<OperatorDesc> FromDirectML(const DML_OPERATOR_DESC& desc) {
  return GuardAllocation("FromDirectML", [&]() -> Expected<OperatorDesc> {
    if (desc.Desc == nullptr) return InvalidArgument("DML_OPERATOR_DESC.Desc is null");
    if (desc.Type == DML_OPERATOR_ELEMENT_WISE_SIGN) {
      const auto* sign = static_cast<const DML_ELEMENT_WISE_SIGN_OPERATOR_DESC*>(desc.Desc);
      Expected<TensorDesc> in = FromDml(sign->InputTensor, "InputTensor", "Sign", true);
      if (!in.ok()) return in.status();
      Expected<TensorDesc> out = FromDml(sign->OutputTensor, "OutputTensor", "Sign", false);
      if (!out.ok()) return out.status();
      return OperatorDesc(SignDesc{*in, *out, NanPolicy::kZero});
    }
    if (desc.Type == DML_OPERATOR_ELEMENT_WISE_ROUND) {
      const auto* round = static_cast<const DML_ELEMENT_WISE_ROUND_OPERATOR_DESC*>(desc.Desc);
      Expected<TensorDesc> in = FromDml(round->InputTensor, "InputTensor", "Round", true);
      if (!in.ok()) return in.status();
      Expected<TensorDesc> out = FromDml(round->OutputTensor, "OutputTensor", "Round", false);
      if (!out.ok()) return out.status();
      if (round->RoundingMode < 0 || round->RoundingMode > DML_ROUNDING_MODE_TOWARD_INFINITY) {
        return InvalidArgument("RoundingMode is " + std::to_string(round->RoundingMode) +
                               "; DML_ROUNDING_MODE values are 0, 1 and 2");
      }
      return OperatorDesc(RoundDesc{*in, *out, static_cast<RoundingMode>(round->RoundingMode)});
    }
    return InvalidArgument("DML_OPERATOR_DESC.Type is " + std::to_string(desc.Type) +
                           "; eltwise implements DML_OPERATOR_ELEMENT_WISE_SIGN (79) and "
                           "DML_OPERATOR_ELEMENT_WISE_ROUND (99)");
  });
}

Expected<CompiledOperator> CompileDirectML(const Device& device, const DML_OPERATOR_DESC& desc) {
  return GuardAllocation("CompileDirectML", [&]() -> Expected<CompiledOperator> {
    Expected<OperatorDesc> converted = FromDirectML(desc);
    if (!converted.ok()) return converted.status();
    return Compile(device, *converted);
  });
}

Status InitializedOperator::Execute(Binding output) const {
  return compiled_.Execute({input_.get(), bytes_}, output);
}

Expected<InitializedOperator> InitializeDirectML(const Device& device,
                                                 const DML_OPERATOR_DESC& desc,
                                                 ConstBinding input) {
  return GuardAllocation("InitializeDirectML", [&]() -> Expected<InitializedOperator> {
    Expected<OperatorDesc> converted = FromDirectML(desc);
    if (!converted.ok()) return converted.status();
    if (InputBuffer(desc).Flags != DML_TENSOR_FLAG_OWNED_BY_DML) {
      return InvalidArgument("InputTensor->Desc->Flags is " +
                             std::to_string(InputBuffer(desc).Flags) +
                             "; only an input flagged DML_TENSOR_FLAG_OWNED_BY_DML is bound at "
                             "initialization (CompileDirectML binds it at execution)");
    }
    if (Status s = Validate(device.feature_level(), *converted); !s.ok()) return s;
    TensorDesc& in = std::visit([](auto& d) -> TensorDesc& { return d.input; }, *converted);
    const uint64_t bytes = in.total_tensor_size_in_bytes;
    std::shared_ptr<void> copy;
    if (ElementCount(in) != 0) {  // like Execute: no elements, no binding
      if (Status s = CheckInitializationBinding(device.feature_level(), in, input); !s.ok())
        return s;
      Expected<void*> memory = Allocate(device, bytes);
      if (!memory.ok()) return memory.status();
      copy = std::shared_ptr<void>(*memory, [device](void* p) { Free(device, p); });
      if (Status s = CopyOnDevice(device, copy.get(), input.data, bytes); !s.ok()) return s;
      if (Status s = Synchronize(device); !s.ok()) return s;  // the copy is complete on return
    }
    // The copy is eltwise's own allocation (aligned for every element type and for DirectML's 16
    // bytes), so the caller's alignment promise no longer applies to the bound input.
    in.guaranteed_base_offset_alignment = 0;
    Expected<CompiledOperator> compiled = Compile(device, *converted);
    if (!compiled.ok()) return compiled.status();
    return InitializedOperator(std::move(*compiled), std::move(copy), bytes);
  });
}

}  // namespace eltwise

uint64_t DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, uint32_t dimensionCount,
                                 const uint32_t* sizes, const uint32_t* stridesOpt) {
  if (sizes == nullptr && dimensionCount != 0) return 0;
  const bool four_bit = eltwise::IsFourBit(dataType);
  // A 4-bit tensor is sized as a byte tensor of the same elements, then halved (rounded up).
  const std::optional<eltwise::DataType> type =
      four_bit ? eltwise::DataType::kUInt8 : eltwise::FromDml(dataType);
  if (!type) return 0;
  std::vector<uint64_t> sizes64(sizes, sizes + dimensionCount);
  std::optional<std::vector<int64_t>> strides64;
  if (stridesOpt != nullptr) strides64.emplace(stridesOpt, stridesOpt + dimensionCount);
  if (!four_bit) return eltwise::CalcBufferTensorSize(*type, sizes64, strides64).value_or(0);
  const std::optional<uint64_t> elements = eltwise::SpanInBytes(*type, sizes64, strides64);
  if (!elements) return 0;
  const uint64_t bytes = *elements / 2 + *elements % 2;  // cannot overflow
  return (bytes + 3) & ~uint64_t{3};                     // bytes <= 2^63: cannot overflow
}
