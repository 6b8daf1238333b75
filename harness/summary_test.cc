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
    v.peak_bytes = peak;
    v.counters = {{"cuda_peak_allocated_bytes", static_cast<double>(peak * 2)}};
    cc.variants.push_back(v);
  }
  t.checks->push_back(cc);
  t.variants = {"base", "fast"};
  // Per-round ratios 2, 1, 3: the report's estimate is their median, 2x. The ratio of
  // the medians (20 / 20 = 1x, what the summary used to print) is not.
  results::CaseRounds rounds;
  rounds.case_name = "big";
  const double base_ns[] = {10, 20, 60}, fast_ns[] = {5, 20, 20};
  for (int k = 0; k < 3; ++k) {
    for (int v = 0; v < 2; ++v) {
      results::RoundSample s;
      s.round = k;
      s.position = v;
      s.variant = v;
      s.iterations = 1;
      s.ns_per_iteration = v == 0 ? base_ns[k] : fast_ns[k];
      rounds.samples.push_back(s);
    }
  }
  t.rounds.push_back(rounds);
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
  double LastSampleHostSeconds() const override { return 0; }
  std::vector<std::string> SummaryLines(const std::map<std::string, double>& b,
                                        const std::map<std::string, double>& v) const override {
    return {"    device " + std::to_string(static_cast<int>(b.at("cuda_peak_allocated_bytes"))) +
            " -> " + std::to_string(static_cast<int>(v.at("cuda_peak_allocated_bytes")))};
  }
  std::unique_ptr<IntervalTimer> NewIntervalTimer() const override { return nullptr; }
};

TEST(PrintSummary, TheReportsEstimatorMemoryAndReproducibility) {
  std::ostringstream out;
  PrintSummary(out, Measured(), *MakeWallClockBackend());
  EXPECT_EQ(out.str(),
            "\ndemo: faster\n"
            "  big fast vs base: 2.00x speed (median of 3 paired rounds), peak CPU memory 1000 -> "
            "500 bytes (-50.00%)\n"
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
  r.trickbench.rounds.clear();
  std::ostringstream out;
  PrintSummary(out, r, *MakeWallClockBackend());
  EXPECT_NE(out.str().find("fast vs base: peak CPU memory"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace trickbench
