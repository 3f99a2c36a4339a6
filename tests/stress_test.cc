// Concurrency: one compiled operator executed from many threads at once on different buffers,
// many different operators (and compilations) at once, and the one-call helpers from many
// threads. Every output element of every call is checked against the oracle. Inputs are large
// enough that each call also uses the CPU thread pool, so concurrent callers share the pool.
// Run it under ThreadSanitizer with the `tsan` preset.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "eltwise/eltwise.h"
#include "oracle.h"

namespace eltwise::testing {
namespace {

constexpr int kCallers = 8;
constexpr int kIterations = 3;

// A 2-D operator on rows x cols elements in one of several layouts.
enum class Layout2D { kPacked, kTransposedInput, kBroadcastInput, kReversedInput, kInPlace };

struct Case {
  std::string name;
  OperatorDesc desc;
  DataType type;
  Layout2D layout;
  uint64_t rows, cols;
};

TensorDesc Packed(DataType type, uint64_t rows, uint64_t cols) {
  return TensorDesc::Packed(type, {rows, cols});
}

TensorDesc InputFor(DataType type, Layout2D layout, uint64_t rows, uint64_t cols) {
  switch (layout) {
    case Layout2D::kTransposedInput:
      return TensorDesc::Strided(type, {rows, cols}, {1, static_cast<int64_t>(rows)});
    case Layout2D::kBroadcastInput:
      return TensorDesc::Strided(type, {rows, cols}, {0, 0});
    case Layout2D::kReversedInput:
      return TensorDesc::Strided(type, {rows, cols}, {-static_cast<int64_t>(cols), -1});
    default:
      return Packed(type, rows, cols);
  }
}

// Byte offset of input element (r, c) in the input buffer.
uint64_t InputOffset(const Case& c, uint64_t r, uint64_t col) {
  const uint64_t e = ElementSize(c.type);
  switch (c.layout) {
    case Layout2D::kTransposedInput:
      return (r + col * c.rows) * e;
    case Layout2D::kBroadcastInput:
      return 0;
    case Layout2D::kReversedInput:
      return ((c.rows - 1 - r) * c.cols + (c.cols - 1 - col)) * e;
    default:
      return (r * c.cols + col) * e;
  }
}

Case MakeCase(Op op, int param, DataType type, Layout2D layout, uint64_t rows, uint64_t cols) {
  Case c;
  c.type = type;
  c.layout = layout;
  c.rows = rows;
  c.cols = cols;
  const TensorDesc in = InputFor(type, layout, rows, cols);
  const TensorDesc out = Packed(type, rows, cols);
  if (op == Op::kSign) {
    c.desc = SignDesc{in, out, static_cast<NanPolicy>(param)};
  } else {
    c.desc = RoundDesc{in, out, static_cast<RoundingMode>(param)};
  }
  c.name = std::string(Name(op)) + "/" + std::to_string(param) + "/" + std::string(Name(type)) +
           "/layout" + std::to_string(static_cast<int>(layout));
  return c;
}

// Executes `op` on fresh buffers filled from `seed` and checks every element; returns the number
// of mismatches (reporting the first few).
int ExecuteAndCheck(const CompiledOperator& op, const Case& c, uint32_t seed) {
  const TensorDesc& in_desc =
      std::visit([](const auto& d) -> const TensorDesc& { return d.input; }, c.desc);
  const TensorDesc& out_desc =
      std::visit([](const auto& d) -> const TensorDesc& { return d.output; }, c.desc);
  const uint64_t esize = ElementSize(c.type);
  std::vector<std::byte> input(std::max<uint64_t>(in_desc.total_tensor_size_in_bytes, esize));
  std::mt19937 rng(seed);
  for (auto& b : input) b = static_cast<std::byte>(rng());
  std::vector<std::byte> output;
  std::byte* out_ptr;
  Status s;
  if (c.layout == Layout2D::kInPlace) {
    output = input;  // the operator rewrites `output` in place; `input` keeps the originals
    out_ptr = output.data();
    s = op.Execute(ConstBinding{out_ptr, output.size()}, Binding{out_ptr, output.size()});
  } else {
    output.assign(out_desc.total_tensor_size_in_bytes, std::byte{0});
    out_ptr = output.data();
    s = op.Execute(ConstBinding{input.data(), input.size()}, Binding{out_ptr, output.size()});
  }
  if (!s.ok()) {
    ADD_FAILURE() << c.name << ": " << s.ToString();
    return 1;
  }
  int mismatches = 0;
  for (uint64_t r = 0; r < c.rows; ++r) {
    for (uint64_t col = 0; col < c.cols; ++col) {
      const Decoded x = Decode(c.type, input.data() + InputOffset(c, r, col));
      const Decoded want = OracleFor(c.desc, c.type, x);
      const Decoded got = Decode(c.type, out_ptr + (r * c.cols + col) * esize);
      if (!SameValue(want, got) && ++mismatches <= 3) {
        ADD_FAILURE() << c.name << " seed " << seed << " at (" << r << "," << col
                      << "): x=" << ToString(c.type, x) << " want " << ToString(c.type, want)
                      << " got " << ToString(c.type, got);
      }
    }
  }
  return mismatches;
}

std::vector<Case> Cases() {
  // About 1.2 MB moved per call or more, so each call goes through the thread pool.
  return {
      MakeCase(Op::kRound, 0, DataType::kFloat32, Layout2D::kPacked, 300, 1024),
      MakeCase(Op::kSign, 1, DataType::kFloat16, Layout2D::kTransposedInput, 640, 520),
      MakeCase(Op::kRound, 2, DataType::kBFloat16, Layout2D::kReversedInput, 333, 1001),
      MakeCase(Op::kSign, 0, DataType::kInt8, Layout2D::kBroadcastInput, 1024, 1100),
      MakeCase(Op::kRound, 4, DataType::kFloat64, Layout2D::kInPlace, 170, 1000),
      MakeCase(Op::kSign, 0, DataType::kInt64, Layout2D::kPacked, 97, 1601),
      MakeCase(Op::kRound, 3, DataType::kFloat32, Layout2D::kTransposedInput, 512, 700),
      MakeCase(Op::kRound, 1, DataType::kFloat16, Layout2D::kInPlace, 7, 90001),
  };
}

TEST(Stress, OneCompiledOperatorFromManyThreads) {
  const Device device = *Device::Cpu();
  for (const Case& c : Cases()) {
    Expected<CompiledOperator> op = Compile(device, c.desc);
    ASSERT_TRUE(op.ok()) << c.name << ": " << op.status().ToString();
    std::atomic<int> failures{0};
    std::vector<std::thread> callers;
    for (int t = 0; t < kCallers; ++t) {
      callers.emplace_back([&, t] {
        for (int i = 0; i < kIterations; ++i) {
          failures += ExecuteAndCheck(*op, c, static_cast<uint32_t>(t * 1000 + i));
        }
      });
    }
    for (std::thread& t : callers) t.join();
    EXPECT_EQ(failures.load(), 0) << c.name;
  }
}

TEST(Stress, ManyOperatorsCompiledAndExecutedAtOnce) {
  const std::vector<Case> cases = Cases();
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&, t] {
      // Each caller has its own device (one of two thread counts) and compiles its own operators.
      const Device device = *Device::Cpu({FeatureLevel::kExtended, t % 2 == 0 ? 0 : 3});
      for (int i = 0; i < kIterations; ++i) {
        const Case& c = cases[(t + i) % cases.size()];
        Expected<CompiledOperator> op = Compile(device, c.desc);
        if (!op.ok()) {
          ADD_FAILURE() << c.name << ": " << op.status().ToString();
          ++failures;
          continue;
        }
        failures += ExecuteAndCheck(*op, c, static_cast<uint32_t>(100000 + t * 100 + i));
      }
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(Stress, OneCallHelpersFromManyThreads) {
  // Sign and Round on the default device, first used here from many threads at once.
  constexpr size_t kCount = 400000;
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&, t] {
      std::vector<float> input(kCount), output(kCount);
      std::mt19937 rng(static_cast<uint32_t>(t));
      std::uniform_real_distribution<float> dist(-8.0f, 8.0f);
      for (float& v : input) v = std::round(dist(rng) * 4) / 4;  // many exact halves
      const bool sign = t % 2 == 0;
      const Status s = sign ? Sign(DataType::kFloat32, kCount, input.data(), output.data())
                            : Round(DataType::kFloat32, kCount, input.data(), output.data(),
                                    RoundingMode::kTowardInfinity);
      if (!s.ok()) {
        ADD_FAILURE() << s.ToString();
        ++failures;
        return;
      }
      int bad = 0;
      for (size_t i = 0; i < kCount; ++i) {
        const Decoded x = Decode(DataType::kFloat32, &input[i]);
        const Decoded want =
            sign ? OracleSign(DataType::kFloat32, x, NanPolicy::kZero)
                 : OracleRound(DataType::kFloat32, x, RoundingMode::kTowardInfinity);
        if (!SameValue(want, Decode(DataType::kFloat32, &output[i])) && ++bad <= 3) {
          ADD_FAILURE() << "caller " << t << " element " << i << " x=" << input[i] << " got "
                        << output[i];
        }
      }
      failures += bad;
    });
  }
  for (std::thread& t : callers) t.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace eltwise::testing
