#include "common/speed_probe.h"

#include <chrono>

namespace trickbench {

SpeedProbe RunSpeedProbe(int steps) {
  const auto start = std::chrono::steady_clock::now();
  // Collatz steps with the counter mixed in: each branch depends on the last result, so
  // neither the branch predictor nor vector units can run ahead.
  uint64_t h = 1;
  for (int k = 0; k < steps; ++k) {
    h = (h & 1) ? h * 3 + 1 : h >> 1;
    h ^= static_cast<uint64_t>(k);
  }
  const auto end = std::chrono::steady_clock::now();
  SpeedProbe p;
  p.ns = std::chrono::duration<double, std::nano>(end - start).count();
  p.checksum = h;
  return p;
}

}  // namespace trickbench
