// The DLPack ABI (https://dmlc.github.io/dlpack), declared here so the module needs no DLPack
// headers. Only what eltwise consumes: the legacy "dltensor" capsule (DLManagedTensor) and the
// versioned "dltensor_versioned" capsule (DLManagedTensorVersioned, DLPack >= 1.0). The layouts are
// part of DLPack's stable C ABI.
#pragma once

#include <cstdint>

namespace eltwise::python::dlpack {

enum DeviceType : int32_t {
  kCPU = 1,
  kCUDA = 2,
  kCUDAHost = 3,  // pinned host memory: host-accessible
  kCUDAManaged = 13,
};

enum TypeCode : uint8_t {
  kInt = 0,
  kUInt = 1,
  kFloat = 2,
  kBfloat = 4,
};

struct Device {
  int32_t device_type;
  int32_t device_id;
};

struct DataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct Tensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; nullptr = compact row-major
  uint64_t byte_offset;
};

struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};

struct PackVersion {
  uint32_t major;
  uint32_t minor;
};

inline constexpr uint64_t kFlagReadOnly = uint64_t{1} << 0;

struct ManagedTensorVersioned {
  PackVersion version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  uint64_t flags;
  Tensor dl_tensor;
};

}  // namespace eltwise::python::dlpack
