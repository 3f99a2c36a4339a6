// PyTorch tensors in host memory, read through their own accessors (data_ptr, shape, stride,
// dtype) instead of a DLPack export: each __dlpack__ and __dlpack_device__ costs torch 2-3 us, so
// a call on a small CPU tensor took 15 times torch.sign's time. Only an exact torch.Tensor whose
// bytes mean what they say is read this way; the rest (a subclass, a CUDA tensor, one that
// requires grad, a nested or sparse tensor) takes the DLPack route, with its checks and messages.
// A negative view (is_neg()) is refused on any device, as out or as a CUDA x, and read through a
// copy of its values as a CPU x: its memory holds the negated values, which PyTorch's __dlpack__
// exports as they lie. torch is never imported here: it is looked up in sys.modules the first
// time an object of a type named "Tensor" is seen.
#pragma once

#include <optional>

#include "operands.h"

namespace eltwise::python {

// Whether x's type is exactly torch.Tensor.
bool IsTorchTensor(PyObject* x);

// x (the operand `name`, "x" or "out") as the library sees it, when it is an exact torch.Tensor
// on the CPU with a strided layout and an eltwise type that does not require grad and is not
// nested; nullopt otherwise. ValueError for a negative view other than a CPU x.
std::optional<Operand> FromTorchHost(PyObject* x, const char* name);

// torch.empty_like(x) (shape, dtype, device and, for dense tensors, strides like x).
nb::object TorchEmptyLike(nb::handle x);

// tensor.data_ptr() of a tensor IsTorchTensor accepted.
std::byte* TorchDataPointer(nb::handle tensor);

}  // namespace eltwise::python
