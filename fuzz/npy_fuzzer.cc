// Fuzzes .npy parsing (eltwise::npy::Parse). Any input must either be rejected with
// kInvalidArgument and a message, or give an array that passes Check, survives
// Serialize -> Parse unchanged, and (when small enough) runs Sign through its own Desc() with the
// reference result for every element. The file bytes are exactly the bytes Parse may read (ASan).
#include <fuzzer/FuzzedDataProvider.h>

#include <cstring>
#include <vector>

#include "eltwise/eltwise.h"
#include "fuzz_util.h"
#include "npy/npy.h"

namespace eltwise::fuzz {
namespace {

constexpr uint64_t kMaxExecuteBytes = uint64_t{1} << 20;

void Run(const uint8_t* data, size_t size) {
  // A private copy of exactly `size` bytes, so a read past the end is a heap overflow.
  std::vector<std::byte> file(reinterpret_cast<const std::byte*>(data),
                              reinterpret_cast<const std::byte*>(data) + size);
  file.shrink_to_fit();
  Expected<npy::Array> parsed = npy::Parse(std::span<const std::byte>(file.data(), size));
  if (!parsed.ok()) {
    ELTWISE_FUZZ_CHECK(parsed.status().code() == StatusCode::kInvalidArgument);
    ELTWISE_FUZZ_CHECK(!parsed.status().message().empty());
    return;
  }
  const npy::Array& array = *parsed;
  ELTWISE_FUZZ_CHECK(npy::Check(array).ok());
  ELTWISE_FUZZ_CHECK(array.data.size() == array.element_count() * ElementSize(array.type));

  const std::vector<std::byte> written = npy::Serialize(array);
  Expected<npy::Array> again = npy::Parse(written);
  ELTWISE_FUZZ_CHECK(again.ok());
  ELTWISE_FUZZ_CHECK(again->type == array.type && again->shape == array.shape &&
                     again->fortran_order == array.fortran_order &&
                     again->big_endian == array.big_endian && again->version == array.version &&
                     again->data == array.data);

  // The array's own description must be valid and run Sign element by element in file order.
  if (array.shape.size() > kMaxRank || array.data.size() > kMaxExecuteBytes) return;
  const TensorDesc desc = array.Desc();
  const SignDesc sign{desc, desc, NanPolicy::kPropagate};
  ELTWISE_FUZZ_CHECK(Validate(FeatureLevel::kExtended, sign).ok());
  const uint64_t bytes = std::max<uint64_t>(array.data.size(), desc.total_tensor_size_in_bytes);
  std::vector<std::byte> in(bytes), out(bytes);
  if (!array.data.empty()) std::memcpy(in.data(), array.data.data(), array.data.size());
  Expected<Device> device = Device::Cpu({FeatureLevel::kExtended, 1});
  ELTWISE_FUZZ_CHECK(device.ok());
  const Status s =
      Execute(*device, sign, ConstBinding{in.data(), bytes}, Binding{out.data(), bytes});
  ELTWISE_FUZZ_CHECK(s.ok());
  const size_t esize = ElementSize(array.type);
  for (size_t k = 0; k < array.data.size(); k += esize) {
    std::byte want[8];
    ReferenceElement(Function::kSignNanPropagate, array.type, in.data() + k, want);
    ELTWISE_FUZZ_CHECK(SameResult(array.type, want, out.data() + k));
  }
}

}  // namespace
}  // namespace eltwise::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  eltwise::fuzz::Run(data, size);
  return 0;
}
