// `eltwise demo`: Sign on the ONNX example and DirectML's ELEMENT_WISE_ROUND table, computed by the
// library on the chosen device and printed as tables. The DirectML rows are also compared with the
// values DirectML documents; a mismatch is reported and exits with kExitFailure.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <memory>

#include "commands.h"
#include "staging/staging.h"

namespace eltwise::cli {
namespace {

std::string Format(float value) {
  if (std::isnan(value)) return "nan";
  if (value == 0) return std::signbit(value) ? "-0" : "0";
  // The shortest %g form that reads back as the same float.
  char buffer[32];
  for (int precision = 6; precision <= 9; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
    if (std::strtof(buffer, nullptr) == value) break;
  }
  return buffer;
}

// Runs `desc` (1-D float32 of values.size() elements) on `values`.
std::vector<float> Compute(const Device& device, const std::vector<float>& values,
                           const std::function<OperatorDesc(const TensorDesc&)>& desc_for) {
  const TensorDesc tensor = TensorDesc::Packed(DataType::kFloat32, {values.size()});
  std::vector<float> result = values;
  const std::span<std::byte> bytes(reinterpret_cast<std::byte*>(result.data()),
                                   result.size() * sizeof(float));
  if (Status s = staging::RunInPlace(device, desc_for(tensor), bytes); !s.ok()) Fail(s);
  return result;
}

struct Row {
  std::string label;
  std::vector<std::string> cells;
};

void PrintTable(const std::vector<Row>& rows) {
  size_t label_width = 0;
  std::vector<size_t> widths;
  for (const Row& row : rows) {
    label_width = std::max(label_width, row.label.size());
    widths.resize(std::max(widths.size(), row.cells.size()), 0);
    for (size_t i = 0; i < row.cells.size(); ++i) {
      widths[i] = std::max(widths[i], row.cells[i].size());
    }
  }
  for (const Row& row : rows) {
    std::string line = "  " + row.label + std::string(label_width - row.label.size(), ' ');
    for (size_t i = 0; i < row.cells.size(); ++i) {
      line += "  " + std::string(widths[i] - row.cells[i].size(), ' ') + row.cells[i];
    }
    std::cout << line << "\n";
  }
}

Row MakeRow(std::string label, const std::vector<float>& values) {
  Row row{std::move(label), {}};
  for (float v : values) row.cells.push_back(Format(v));
  return row;
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void RunDemo(const DeviceOptions& options) {
  const Device device = MakeDevice(options);
  bool all_match = true;
  std::cout << "eltwise " << Version() << " on " << device.description() << "\n\n";

  // ONNX Sign's example: np.sign(range(-5, 6)).
  std::vector<float> range;
  for (int i = -5; i <= 5; ++i) range.push_back(static_cast<float>(i));
  std::cout << "Sign: the ONNX example, x = range(-5, 6) as float32\n";
  PrintTable({MakeRow("x", range),
              MakeRow("sign(x)", Compute(device, range, [](const TensorDesc& t) -> OperatorDesc {
                        return SignDesc{t, t, NanPolicy::kZero};
                      }))});

  // Special values: NaN under both policies, signed zeros, infinities, subnormals.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float tiny = std::numeric_limits<float>::denorm_min();
  const std::vector<float> specials = {nan, -inf, -tiny, -0.0f, 0.0f, tiny, inf};
  std::cout << "\nSign: special values (--nan zero is the default; propagate is NumPy's)\n";
  std::vector<Row> sign_rows = {MakeRow("x", specials)};
  for (NanPolicy policy : {NanPolicy::kZero, NanPolicy::kPropagate}) {
    sign_rows.push_back(
        MakeRow("sign(x), nan=" + std::string(Name(policy)),
                Compute(device, specials, [policy](const TensorDesc& t) -> OperatorDesc {
                  return SignDesc{t, t, policy};
                })));
  }
  PrintTable(sign_rows);

  // DirectML's ELEMENT_WISE_ROUND documentation table, and what it documents for each mode.
  const std::vector<float> x = {-2.5f, -1.75f, -1.5f, -1.25f, 0.0f, 1.25f, 1.5f, 1.75f, 2.5f};
  const std::vector<std::vector<float>> documented = {
      {-2, -2, -2, -1, 0, 1, 2, 2, 2},   // HALVES_TO_NEAREST_EVEN
      {-2, -1, -1, -1, 0, 1, 1, 1, 2},   // TOWARD_ZERO
      {-3, -2, -2, -1, 0, 1, 2, 2, 3}};  // TOWARD_INFINITY (halves away from zero)
  std::cout << "\nRound: DirectML's ELEMENT_WISE_ROUND table (float32); down and up are eltwise's "
               "extended modes\n";
  std::vector<Row> round_rows = {MakeRow("x", x)};
  std::vector<std::string> notes;
  for (int m = 0; m < kRoundingModeCount; ++m) {
    const RoundingMode mode = static_cast<RoundingMode>(m);
    const std::vector<float> result =
        Compute(device, x, [mode](const TensorDesc& t) -> OperatorDesc {
          return RoundDesc{t, t, mode};
        });
    round_rows.push_back(MakeRow(std::string(Name(mode)), result));
    if (m < static_cast<int>(documented.size()) && !SameBits(result, documented[m])) {
      all_match = false;
      notes.push_back("MISMATCH: " + std::string(Name(mode)) +
                      " differs from DirectML's documented row");
    }
  }
  PrintTable(round_rows);
  if (all_match) {
    std::cout << "  (halves_to_nearest_even, toward_zero and toward_infinity match DirectML's "
                 "documentation)\n";
  }
  for (const std::string& note : notes) std::cout << "  " << note << "\n";

  // Cases the floor(x + 0.5) shortcut gets wrong, and the sign of zero.
  const std::vector<float> tricky = {-0.4f, -0.0f, 0.49999997f, 8388609.0f, -inf, nan};
  std::cout << "\nRound: zero keeps its sign, 0.49999997 -> 0, odd integers >= 2^23 pass through\n";
  PrintTable({MakeRow("x", tricky),
              MakeRow("halves_to_nearest_even",
                      Compute(device, tricky, [](const TensorDesc& t) -> OperatorDesc {
                        return RoundDesc{t, t, RoundingMode::kHalvesToNearestEven};
                      }))});
  if (!all_match) {
    throw CommandError(kExitFailure, "results differ from DirectML's documentation");
  }
}

void AddDemoCommand(CLI::App& app) {
  CLI::App* demo = app.add_subcommand(
      "demo", "Show Sign on ONNX's example and Round on DirectML's table, for every mode");
  auto options = std::make_shared<DeviceOptions>();
  AddDeviceOptions(*demo, *options, /*with_feature_level=*/false);
  demo->callback([options] { RunDemo(*options); });
}

}  // namespace

ELTWISE_CLI_COMMAND("demo", AddDemoCommand);

}  // namespace eltwise::cli
