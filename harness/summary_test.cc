#include "harness/summary.h"

#include <gtest/gtest.h>

#include <sstream>

namespace trickbench {
namespace {

results::ResultFile Measured() {
  results::ResultFile r;
  results::TrickResult& t = r.trickbench;
  t.id = "demo";
  t.claim = "faster";
  t.checks.emplace();
  results::CaseChecks cc{"big", {}};
  for (const auto& [name, peak] : {std::pair<std::string, int64_t>{"base", 1000}, {"fast", 500}}) {
    results::VariantCheck v;
    v.name = name;
    v.benchmark = "BM_demo/big/" + name;
    v.peak_bytes = peak;
    v.counters = {{"cuda_peak_allocated_bytes", static_cast<double>(peak * 2)}};
    cc.variants.push_back(v);
  }
  t.checks->push_back(cc);
  for (const auto& [name, median] : {std::pair<std::string, double>{"base", 30.0}, {"fast", 10.0}}) {
    r.benchmarks.push_back({{"name", "BM_demo/big/" + name + "_median"},
                            {"run_name", "BM_demo/big/" + name},
                            {"run_type", "aggregate"},
                            {"aggregate_name", "median"},
                            {"real_time", median}});
  }
  results::Reproducibility rep;
  rep.checked = true;
  rep.variant = "fast";
  rep.bitwise_reproducible = true;
  t.reproducibility = rep;
  return r;
}

// A backend whose summary adds one line per comparison, like the CUDA one.
class DeviceLines : public TimingBackend {
 public:
  std::string name() const override { return "lines"; }
  double TimeSample(int64_t, const std::function<void()>&) override { return 0; }
  std::vector<std::string> SummaryLines(const std::map<std::string, double>& b,
                                        const std::map<std::string, double>& v) const override {
    return {"    device " + std::to_string(static_cast<int>(b.at("cuda_peak_allocated_bytes"))) +
            " -> " + std::to_string(static_cast<int>(v.at("cuda_peak_allocated_bytes")))};
  }
  std::unique_ptr<IntervalTimer> NewIntervalTimer() const override { return nullptr; }
};

TEST(PrintSummary, RatioOfMediansMemoryAndReproducibility) {
  std::ostringstream out;
  PrintSummary(out, Measured(), *MakeWallClockBackend());
  EXPECT_EQ(out.str(),
            "\ndemo: faster\n"
            "  big fast vs base: 3.00x speed (median), peak CPU memory 1000 -> 500 bytes (-50.00%)\n"
            "  reproducible under the deterministic guard (fast): bitwise\n"
            "  (intervals and verdicts: reports/, from run-all)\n");
}

TEST(PrintSummary, TheBackendAddsItsLinesAndANonReproducibleRunSaysWhy) {
  results::ResultFile r = Measured();
  r.trickbench.reproducibility->bitwise_reproducible = false;
  r.trickbench.reproducibility->detail = "big: runs differ at result[0]";
  std::ostringstream out;
  PrintSummary(out, r, DeviceLines());
  EXPECT_NE(out.str().find("(-50.00%)\n    device 2000 -> 1000\n"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("(fast): NO: big: runs differ at result[0]"), std::string::npos)
      << out.str();
}

TEST(PrintSummary, NoTimesNoRatio) {
  results::ResultFile r = Measured();
  r.benchmarks = results::Json::array();
  std::ostringstream out;
  PrintSummary(out, r, *MakeWallClockBackend());
  EXPECT_NE(out.str().find("fast vs base: peak CPU memory"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace trickbench
