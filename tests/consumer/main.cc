// Uses the installed eltwise: rounds DirectML's table through the public API.
#include <eltwise/directml.h>
#include <eltwise/eltwise.h>

#include <cstdio>

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
  std::printf("eltwise %s via find_package: ok\n", std::string(eltwise::Version()).c_str());
  return 0;
}
