#include "determinism/planted_nondeterminism.h"

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace trickbench::testing {

torch::Tensor ScheduleNoise::operator()(const torch::Tensor& x) const {
  std::mutex mu;
  std::vector<std::pair<int, int64_t>> finished;  // (thread, time), in finishing order
  auto work = [&](int id) {
    const int64_t t = std::chrono::steady_clock::now().time_since_epoch().count();
    std::lock_guard<std::mutex> lock(mu);
    finished.emplace_back(id, t);
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  const int64_t gap = finished[1].second - finished[0].second;  // ns, never the same twice
  const double sign = finished[0].first == 0 ? 1.0 : -1.0;
  // The gap's low digits are noise; 101 levels 1e-6 apart, well above a float32 ulp of
  // the activations (~1e-7), so two runs agree on a step's offset about 1 time in 200.
  const double offset = sign * 1e-4 * (1.0 + static_cast<double>(gap % 101) / 101.0);
  return x + offset;
}

}  // namespace trickbench::testing
