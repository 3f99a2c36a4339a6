// The op registry (op_registry.h).
#include "core/op_registry.h"

#include <utility>

namespace eltwise {

const TensorDesc& InputOf(const OperatorDesc& desc) {
  return std::visit([](const auto& d) -> const TensorDesc& { return d.input; }, desc);
}

const TensorDesc& OutputOf(const OperatorDesc& desc) {
  return std::visit([](const auto& d) -> const TensorDesc& { return d.output; }, desc);
}

OperatorDesc WithTensors(OperatorDesc prototype, TensorDesc input, TensorDesc output) {
  std::visit(
      [&](auto& d) {
        d.input = std::move(input);
        d.output = std::move(output);
      },
      prototype);
  return prototype;
}

}  // namespace eltwise
