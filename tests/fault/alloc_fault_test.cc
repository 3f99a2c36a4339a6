// Allocation faults through the library's entry points: for every scenario, the n-th allocation
// (any operator new form, any thread; fault.h) fails for n = 1, 2, ... until a run reaches no
// failing allocation. Each failing run must return kOutOfMemory (or absorb the failure and still
// give the exact result) and leave every byte of the bound buffers, or the target file, as it
// was; the run that allocates no more must give the oracle's result bit for bit. Under
// AddressSanitizer (the `asan` preset) every failure path is also checked for leaks.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "eltwise/directml.h"
#include "eltwise/eltwise.h"
#include "fault/until_success.h"
#include "oracle.h"
#include "overlap_limits.h"
#include "scratch_files.h"
#include "staging/staging.h"

#if ELTWISE_FAULT_NPY
#include "npy/npy.h"
#endif

namespace eltwise::testing {
namespace {

// ---- Layouts: float32 Round (halves to even) between two tensors placed in one buffer.

// A value with a fractional part (.25 or .75) for every 4-byte slot: every result differs from
// its input, so an output element written by a failing run cannot go unnoticed.
float SlotValue(size_t slot) { return static_cast<float>(slot % 37) * 0.5f - 8.75f; }

struct Layout {
  const char* name;
  std::vector<uint64_t> sizes;
  std::vector<int64_t> in_strides, out_strides;  // elements, >= 0
  uint64_t in_offset, out_offset;                // bytes into the buffer, multiples of 4
};

uint64_t SpanBytes(const Layout& l, const std::vector<int64_t>& strides) {
  uint64_t last = 0;
  for (size_t d = 0; d < l.sizes.size(); ++d) {
    last += (l.sizes[d] - 1) * static_cast<uint64_t>(strides[d]);
  }
  return (last + 1) * 4;
}

// The buffer after the operator: the initial one with every output element replaced by the
// oracle's result for its input element.
std::vector<std::byte> ExpectedBuffer(const Layout& l, const OperatorDesc& desc,
                                      const std::vector<std::byte>& initial) {
  std::vector<std::byte> expected = initial;
  std::vector<uint64_t> index(l.sizes.size(), 0);
  for (;;) {
    uint64_t in = l.in_offset, out = l.out_offset;
    for (size_t d = 0; d < index.size(); ++d) {
      in += index[d] * static_cast<uint64_t>(l.in_strides[d]) * 4;
      out += index[d] * static_cast<uint64_t>(l.out_strides[d]) * 4;
    }
    const Decoded result =
        OracleFor(desc, DataType::kFloat32, Decode(DataType::kFloat32, initial.data() + in));
    const float value = static_cast<float>(result.real);
    std::memcpy(expected.data() + out, &value, 4);
    size_t d = index.size();
    while (d > 0 && ++index[d - 1] == l.sizes[d - 1]) index[--d] = 0;
    if (d == 0) return expected;
  }
}

Checks BufferChecks(std::vector<std::byte>& buffer, const std::vector<std::byte>& initial,
                    const std::vector<std::byte>& expected) {
  return Checks{
      [&buffer, &initial] { buffer = initial; },
      [&buffer, &initial] {
        EXPECT_TRUE(buffer == initial) << "a failing run wrote to the buffers";
      },
      [&buffer, &expected] { EXPECT_TRUE(buffer == expected) << "the result is not the oracle's"; },
  };
}

const std::vector<Layout>& Layouts() {
  static const std::vector<Layout> layouts = {
      {"contiguous", {4099}, {1}, {1}, 0, 4 * 4100},
      {"contiguous in place", {4099}, {1}, {1}, 0, 0},
      {"broadcast", {64, 33}, {0, 0}, {33, 1}, 0, 64},
      {"rows", {64, 100}, {128, 1}, {100, 1}, 0, 4 * 64 * 128},
      {"gathered", {1000, 3}, {6, 2}, {3, 1}, 0, 4 * 6000},
      {"transposed", {64, 48}, {1, 64}, {48, 1}, 0, 4 * 64 * 48},
      {"transposed, large (worker threads)", {512, 512}, {1, 512}, {512, 1}, 0, 4 * 512 * 512},
      {"transposed, gathered tiles", {300, 200}, {2, 600}, {200, 1}, 0, 4 * 120000},
      {"partial overlap, chunked", {100000}, {1}, {1}, 0, 4},
      {"partial overlap, chunked rows", {3, 70001}, {70001, 1}, {70003, 1}, 8, 0},
      {"partial overlap, swapped tiles", {16, 16}, {1, 16}, {16, 1}, 0, 0},
      {"partial overlap, whole input", {10, 20}, {1, 10}, {20, 1}, 4, 0},
      {"partial overlap, broadcast", {1000}, {0}, {1}, 40, 0},
  };
  return layouts;
}

// Buffer large enough for both tensors of `l`, holding SlotValue everywhere.
std::vector<std::byte> InitialBuffer(const Layout& l) {
  const uint64_t bytes = std::max(l.in_offset + SpanBytes(l, l.in_strides),
                                  l.out_offset + SpanBytes(l, l.out_strides));
  std::vector<std::byte> buffer(bytes);
  for (size_t slot = 0; slot < bytes / 4; ++slot) {
    const float v = SlotValue(slot);
    std::memcpy(buffer.data() + slot * 4, &v, 4);
  }
  return buffer;
}

RoundDesc RoundOf(const Layout& l) {
  return RoundDesc{TensorDesc::Strided(DataType::kFloat32, l.sizes, l.in_strides),
                   TensorDesc::Strided(DataType::kFloat32, l.sizes, l.out_strides),
                   RoundingMode::kHalvesToNearestEven};
}

Device CpuDevice(int threads) {
  Expected<Device> device = Device::Cpu(CpuOptions{.threads = threads});
  EXPECT_TRUE(device.ok()) << device.status().ToString();
  return *device;
}

// Compile and Execute of `l` on `device`, each allocation failing in turn (UntilSuccess).
void CompileAndExecuteUntilSuccess(const std::string& name, const Device& device, const Layout& l) {
  const OperatorDesc desc = RoundOf(l);
  const std::vector<std::byte> initial = InitialBuffer(l);
  const std::vector<std::byte> expected = ExpectedBuffer(l, desc, initial);
  std::vector<std::byte> buffer;
  const auto call = [&]() -> Status {
    Expected<CompiledOperator> op = Compile(device, desc);
    if (!op.ok()) return op.status();
    return op->Execute(ConstBinding{buffer.data() + l.in_offset, buffer.size() - l.in_offset},
                       Binding{buffer.data() + l.out_offset, buffer.size() - l.out_offset});
  };
  UntilSuccess(name, call, BufferChecks(buffer, initial, expected));
}

TEST(AllocationFaults, CompileAndExecuteEveryLayout) {
  const Device device = CpuDevice(4);
  for (const Layout& l : Layouts()) {
    CompileAndExecuteUntilSuccess(std::string("Compile+Execute ") + l.name, device, l);
  }
}

// Partial overlaps past the whole-copy limit, lowered here so that small tensors take the bounded
// schemes large ones take (partial_overlap.cc): a non-square transpose onto itself and a 3-d
// permutation onto itself (cycle-following transposes through a staging buffer), the same
// transpose one element further on (moved through the output's bytes, then permuted), and inputs
// broadcast along a dim (their slice first, by one of those schemes, then copied on).
TEST(AllocationFaults, BoundedPartialOverlaps) {
  const OverlapLimits limits(64, 4096);
  const std::vector<Layout> layouts = {
      {"non-square transpose onto itself", {10, 20}, {1, 10}, {20, 1}, 0, 0},
      {"3-d permutation onto itself", {4, 6, 8}, {8, 32, 1}, {48, 8, 1}, 0, 0},
      {"transpose one element further on", {10, 20}, {1, 10}, {20, 1}, 4, 0},
      {"row broadcast half a row further on", {6, 40}, {0, 1}, {40, 1}, 0, 80},
      {"broadcast transpose onto itself", {3, 10, 20}, {0, 1, 10}, {200, 20, 1}, 0, 0},
  };
  for (int threads : {1, 4}) {
    const Device device = CpuDevice(threads);
    for (const Layout& l : layouts) {
      CompileAndExecuteUntilSuccess(
          std::string("bounded overlap, ") + l.name + ", " + std::to_string(threads) + " threads",
          device, l);
    }
  }
}

// The transposed walk allocates a tile buffer on each thread's first tile, while other tiles may
// already be written: without it the tile must still be computed (row by row). Each run is on a
// fresh thread (with a device of one thread, so every tile runs there), whose buffer is not yet
// allocated, with `arm(n)` arming the faults; returns the failures recovered from.
uint64_t TransposedTilesUnderFaults(void (*arm)(uint64_t)) {
  const Device device = CpuDevice(1);
  // Transposed with an input not packed along its fastest dim: gathered tile by tile, two column
  // tiles (128 + 72 columns).
  const Layout l = {"transposed", {300, 200}, {2, 600}, {200, 1}, 0, 4 * 120000};
  const OperatorDesc desc = RoundOf(l);
  const std::vector<std::byte> initial = InitialBuffer(l);
  const std::vector<std::byte> expected = ExpectedBuffer(l, desc, initial);
  Expected<CompiledOperator> op = Compile(device, desc);
  EXPECT_TRUE(op.ok()) << op.status().ToString();
  if (!op.ok()) return 0;
  std::vector<std::byte> buffer;
  uint64_t recovered = 0;
  for (uint64_t n = 1; n <= kMaxAttempts; ++n) {
    buffer = initial;
    Status status;
    bool fired = false;
    std::thread run([&] {
      arm(n);
      status = op->Execute(ConstBinding{buffer.data(), buffer.size()},
                           Binding{buffer.data() + l.out_offset, buffer.size() - l.out_offset});
      fired = eltwise_fault_allocation_fired() != 0;
      eltwise_fault_arm_allocation(0);
    });
    run.join();
    SCOPED_TRACE("armed at allocation " + std::to_string(n));
    if (!status.ok()) {
      EXPECT_EQ(status.code(), StatusCode::kOutOfMemory) << status.ToString();
      EXPECT_TRUE(buffer == initial) << "a failing run wrote to the buffers";
      continue;
    }
    EXPECT_TRUE(buffer == expected) << "the result is not the oracle's";
    if (!fired) break;
    ++recovered;
  }
  EXPECT_GE(recovered, 1u) << "no allocation of the tile walk failed";
  return recovered;
}

// The n-th allocation fails: the first tile of the thread is computed row by row, the next one
// allocates the buffer.
TEST(AllocationFaults, TransposedTileBufferOnAFreshThread) {
  const uint64_t recovered = TransposedTilesUnderFaults(&eltwise_fault_arm_allocation);
  std::printf("[fault] Execute transposed on a fresh thread: %llu allocation failures recovered\n",
              static_cast<unsigned long long>(recovered));
}

// Every allocation from the n-th on fails, so that the tile buffer is never allocated: every tile,
// the second column tile (columns 128-199) included, is computed row by row.
TEST(AllocationFaults, TransposedTilesWithoutATileBuffer) {
  TransposedTilesUnderFaults(&eltwise_fault_arm_allocations_from);
}

TEST(AllocationFaults, DeviceAndOneCallHelpers) {
  const Layout l = {"packed", {1000}, {1}, {1}, 0, 0};
  const OperatorDesc desc = RoundOf(l);
  const std::vector<std::byte> initial = InitialBuffer(l);
  const std::vector<std::byte> expected = ExpectedBuffer(l, desc, initial);
  std::vector<std::byte> buffer;
  UntilSuccess(
      "Device::Cpu+Execute",
      [&]() -> Status {
        Expected<Device> device = Device::Cpu(CpuOptions{.threads = 2});
        if (!device.ok()) return device.status();
        return Execute(*device, desc, ConstBinding{buffer.data(), buffer.size()},
                       Binding{buffer.data(), buffer.size()});
      },
      BufferChecks(buffer, initial, expected));
  UntilSuccess(
      "Round (one-call helper)",
      [&]() -> Status { return Round(DataType::kFloat32, 1000, buffer.data(), buffer.data()); },
      BufferChecks(buffer, initial, expected));
}

// The staging of a host call at a DirectML level (what the Python binding runs): an input and an
// output 4 bytes off DirectML's 16-byte binding alignment are copied through aligned buffers.
TEST(AllocationFaults, StagedCallAtADirectMLLevel) {
  const Expected<Device> device =
      Device::Cpu(CpuOptions{.feature_level = FeatureLevel::k6_4, .threads = 1});
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  const Layout l = {"staged", {3, 5}, {5, 1}, {5, 1}, 4, 4 + 4 * 16};
  const std::vector<std::byte> initial = InitialBuffer(l);
  const std::vector<std::byte> expected = ExpectedBuffer(l, RoundOf(l), initial);
  std::vector<std::byte> buffer;
  staging::StridedCall call;  // made here: the test's own allocations are not the library's
  call.op = RoundDesc{{}, {}, RoundingMode::kHalvesToNearestEven};
  call.type = DataType::kFloat32;
  call.geometry = {l.sizes, l.in_strides, l.out_strides};
  UntilSuccess(
      "staging::RunStrided at level 6_4, unaligned",
      [&]() -> Status {
        EXPECT_NE(reinterpret_cast<uintptr_t>(buffer.data() + l.in_offset) % 16, 0u);
        call.input = buffer.data() + l.in_offset;
        call.output = buffer.data() + l.out_offset;
        return staging::RunStrided(*device, call);
      },
      BufferChecks(buffer, initial, expected));
}

// ---- DirectML: CompileDirectML + Execute, InitializeDirectML + Execute.

TEST(AllocationFaults, DirectML) {
  const Device device = CpuDevice(2);
  uint32_t sizes[4] = {1, 2, 30, 40};
  DML_BUFFER_TENSOR_DESC tensor = {};
  tensor.DataType = DML_TENSOR_DATA_TYPE_FLOAT32;
  tensor.DimensionCount = 4;
  tensor.Sizes = sizes;
  tensor.TotalTensorSizeInBytes = DMLCalcBufferTensorSize(tensor.DataType, 4, sizes, nullptr);
  DML_TENSOR_DESC t = {DML_TENSOR_TYPE_BUFFER, &tensor};
  DML_ELEMENT_WISE_ROUND_OPERATOR_DESC round = {&t, &t, DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN};
  const DML_OPERATOR_DESC op_desc = {DML_OPERATOR_ELEMENT_WISE_ROUND, &round};

  const Layout l = {"packed", {2400}, {1}, {1}, 0, 4 * 2400};
  const RoundDesc desc = RoundOf(l);
  const std::vector<std::byte> initial = InitialBuffer(l);
  const std::vector<std::byte> expected = ExpectedBuffer(l, desc, initial);
  std::vector<std::byte> buffer;
  const uint64_t bytes = 4 * 2400;
  UntilSuccess(
      "CompileDirectML+Execute",
      [&]() -> Status {
        Expected<CompiledOperator> op = CompileDirectML(device, op_desc);
        if (!op.ok()) return op.status();
        return op->Execute(ConstBinding{buffer.data(), bytes},
                           Binding{buffer.data() + bytes, bytes});
      },
      BufferChecks(buffer, initial, expected));

  DML_BUFFER_TENSOR_DESC owned = tensor;
  owned.Flags = DML_TENSOR_FLAG_OWNED_BY_DML;
  DML_TENSOR_DESC owned_t = {DML_TENSOR_TYPE_BUFFER, &owned};
  DML_ELEMENT_WISE_ROUND_OPERATOR_DESC owned_round = round;
  owned_round.InputTensor = &owned_t;
  const DML_OPERATOR_DESC owned_desc = {DML_OPERATOR_ELEMENT_WISE_ROUND, &owned_round};
  UntilSuccess(
      "InitializeDirectML+Execute",
      [&]() -> Status {
        Expected<InitializedOperator> op =
            InitializeDirectML(device, owned_desc, ConstBinding{buffer.data(), bytes});
        if (!op.ok()) return op.status();
        return op->Execute(Binding{buffer.data() + bytes, bytes});
      },
      BufferChecks(buffer, initial, expected));
}

#if ELTWISE_FAULT_NPY
// ---- .npy files: Write replaces its target only when complete; Read returns an array or fails.

class NpyAllocationFaults : public ScratchDirTest {};

TEST_F(NpyAllocationFaults, WriteAndRead) {
  const std::string path = (dir_ / "a.npy").string();
  npy::Array array;
  array.type = DataType::kFloat32;
  array.shape = {3, 500};
  array.data.resize(4 * 1500);
  for (size_t i = 0; i < 1500; ++i) {
    const float v = SlotValue(i);
    std::memcpy(array.data.data() + 4 * i, &v, 4);
  }
  const std::string old_bytes = "previous contents";
  const auto file_bytes = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const auto only_target = [&] {
    size_t entries = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      ++entries;
      EXPECT_EQ(entry.path().filename(), "a.npy") << "a temporary was left behind";
    }
    EXPECT_EQ(entries, 1u);
  };
  UntilSuccess(
      "npy::Write", [&] { return npy::Write(path, array); },
      Checks{[&] { std::ofstream(path, std::ios::binary | std::ios::trunc) << old_bytes; },
             [&] {
               EXPECT_EQ(file_bytes(), old_bytes);
               only_target();
             },
             [&] {
               Expected<npy::Array> back = npy::Read(path);
               ASSERT_TRUE(back.ok()) << back.status().ToString();
               EXPECT_TRUE(back->data == array.data);
               only_target();
             }});
  Expected<npy::Array> read = Status(StatusCode::kInternal, "not read");
  UntilSuccess(
      "npy::Read",
      [&]() -> Status {
        Expected<npy::Array> r = npy::Read(path);
        if (!r.ok()) return r.status();
        read = std::move(r);
        return Status::Ok();
      },
      Checks{[] {}, [] {},
             [&] {
               ASSERT_TRUE(read.ok());
               EXPECT_EQ(read->shape, array.shape);
               EXPECT_TRUE(read->data == array.data);
             }});
}
#endif

}  // namespace
}  // namespace eltwise::testing
