// Translation of DirectML descriptors into eltwise descriptors. Only structure is checked here
// (null pointers, tensor types, flags, data type values); every DirectML rule lives in validate.cc.
#include "eltwise/directml.h"

#include <string>

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
    case DML_TENSOR_DATA_TYPE_UNKNOWN:
      break;
  }
  return std::nullopt;
}

Expected<TensorDesc> FromDml(const DML_TENSOR_DESC* tensor, const std::string& field) {
  if (tensor == nullptr) return InvalidArgument(field + " is null");
  if (tensor->Type != DML_TENSOR_TYPE_BUFFER) {
    return InvalidArgument(field + "->Type is " + std::to_string(tensor->Type) +
                           "; it must be DML_TENSOR_TYPE_BUFFER (1)");
  }
  const auto* buffer = static_cast<const DML_BUFFER_TENSOR_DESC*>(tensor->Desc);
  if (buffer == nullptr) return InvalidArgument(field + "->Desc is null");
  const std::string f = field + "->Desc->";
  const std::optional<DataType> type = FromDml(buffer->DataType);
  if (!type) {
    return InvalidArgument(f + "DataType is " + std::to_string(buffer->DataType) +
                           ", which is not a DML_TENSOR_DATA_TYPE eltwise knows");
  }
  if (buffer->Flags != DML_TENSOR_FLAG_NONE) {
    return InvalidArgument(f + "Flags is " + std::to_string(buffer->Flags) +
                           "; eltwise binds every tensor at execution, so only "
                           "DML_TENSOR_FLAG_NONE is accepted");
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

}  // namespace

FeatureLevel ToFeatureLevel(DML_FEATURE_LEVEL level) { return static_cast<FeatureLevel>(level); }

Expected<OperatorDesc> FromDirectML(const DML_OPERATOR_DESC& desc) {
  if (desc.Desc == nullptr) return InvalidArgument("DML_OPERATOR_DESC.Desc is null");
  if (desc.Type == DML_OPERATOR_ELEMENT_WISE_SIGN) {
    const auto* sign = static_cast<const DML_ELEMENT_WISE_SIGN_OPERATOR_DESC*>(desc.Desc);
    Expected<TensorDesc> in = FromDml(sign->InputTensor, "InputTensor");
    if (!in.ok()) return in.status();
    Expected<TensorDesc> out = FromDml(sign->OutputTensor, "OutputTensor");
    if (!out.ok()) return out.status();
    return OperatorDesc(SignDesc{*in, *out, NanPolicy::kZero});
  }
  if (desc.Type == DML_OPERATOR_ELEMENT_WISE_ROUND) {
    const auto* round = static_cast<const DML_ELEMENT_WISE_ROUND_OPERATOR_DESC*>(desc.Desc);
    Expected<TensorDesc> in = FromDml(round->InputTensor, "InputTensor");
    if (!in.ok()) return in.status();
    Expected<TensorDesc> out = FromDml(round->OutputTensor, "OutputTensor");
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
}

Expected<CompiledOperator> CompileDirectML(const Device& device, const DML_OPERATOR_DESC& desc) {
  Expected<OperatorDesc> converted = FromDirectML(desc);
  if (!converted.ok()) return converted.status();
  return Compile(device, *converted);
}

}  // namespace eltwise

uint64_t DMLCalcBufferTensorSize(DML_TENSOR_DATA_TYPE dataType, uint32_t dimensionCount,
                                 const uint32_t* sizes, const uint32_t* stridesOpt) {
  const std::optional<eltwise::DataType> type = eltwise::FromDml(dataType);
  if (!type || (sizes == nullptr && dimensionCount != 0)) return 0;
  std::vector<uint64_t> sizes64(sizes, sizes + dimensionCount);
  std::optional<std::vector<int64_t>> strides64;
  if (stridesOpt != nullptr) strides64.emplace(stridesOpt, stridesOpt + dimensionCount);
  return eltwise::CalcBufferTensorSize(*type, sizes64, strides64).value_or(0);
}
