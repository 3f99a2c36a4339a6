// Uses eltwise as a user would (tests/consumer/CMakeLists.txt, check_install.sh): rounds
// DirectML's table through the public API, and takes the address of every exported function, so
// that linking fails if a shared libeltwise lacks one (a declaration without ELTWISE_API).
#include <eltwise/directml.h>
#include <eltwise/eltwise.h>

#include <cstdio>
#include <string>

#ifndef ELTWISE_CONSUMER_VIA
#define ELTWISE_CONSUMER_VIA "pkg-config"
#endif

namespace {

// A volatile store cannot be optimised away, so `function` must be resolved by the linker.
template <class F>
void Keep(F function) {
  static volatile F kept;
  kept = function;
}
template <class... F>
int CountLinked(F... functions) {
  (Keep(functions), ...);
  return static_cast<int>(sizeof...(functions));
}

// Every function declared in include/eltwise.
int LinkEveryApiFunction() {
  using namespace eltwise;
  return CountLinked(
      // device.h
      &Device::Cpu, &Device::Cuda, &Device::kind, &Device::feature_level, &Device::threads,
      &Device::description, &CompiledOperator::Execute, &CompiledOperator::desc,
      &CompiledOperator::device, &Compile, &Validate, &Sign, &Round,
      static_cast<Status (*)(const Device&, const OperatorDesc&, ConstBinding, Binding)>(&Execute),
      &Allocate, &Free, &CopyToDevice, &CopyToHost, &CopyOnDevice, &Synchronize, &Version,
      // directml.h
      &DMLCalcBufferTensorSize, &ToFeatureLevel, &FromDirectML, &CompileDirectML,
      &InitializeDirectML, &InitializedOperator::Execute,
      // feature_level.h
      &AllFeatureLevels, static_cast<std::string_view (*)(FeatureLevel)>(&Name), &ParseFeatureLevel,
      static_cast<bool (*)(FeatureLevel, Op, DataType, int)>(&Supports),
      static_cast<bool (*)(FeatureLevel, RoundingMode)>(&Supports), &HighestSupported,
      // info.h
      &GetSystemInfo,
      // operators.h
      static_cast<std::string_view (*)(Op)>(&Name),
      static_cast<std::string_view (*)(NanPolicy)>(&Name),
      static_cast<std::string_view (*)(RoundingMode)>(&Name), &ParseOp, &ParseNanPolicy,
      &ParseRoundingMode,
      // status.h
      static_cast<std::string_view (*)(StatusCode)>(&Name), &Status::ToString,
      // tensor.h
      &TensorDesc::Packed, &TensorDesc::Strided, &PackedStrides, &CalcBufferTensorSize,
      &SpanInBytes,
      // types.h
      &ElementSize, static_cast<std::string_view (*)(DataType)>(&Name), &ParseDataType,
      &IsFloatingPoint, &IsSignedInteger);
}

}  // namespace

int main() {
  const float in[9] = {-2.5f, -1.75f, -1.5f, -1.25f, 0.0f, 1.25f, 1.5f, 1.75f, 2.5f};
  const float want[9] = {-3, -2, -2, -1, 0, 1, 2, 2, 3};
  float out[9];
  const eltwise::Status s = eltwise::Round(eltwise::DataType::kFloat32, 9, in, out,
                                           eltwise::RoundingMode::kTowardInfinity);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  for (int i = 0; i < 9; ++i) {
    if (out[i] != want[i]) {
      std::fprintf(stderr, "element %d: got %g, want %g\n", i, out[i], want[i]);
      return 1;
    }
  }
  std::printf("eltwise %s via %s: ok (%d API functions linked)\n",
              std::string(eltwise::Version()).c_str(), ELTWISE_CONSUMER_VIA,
              LinkEveryApiFunction());
  return 0;
}
