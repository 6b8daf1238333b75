#include "harness/checks.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "determinism/guard.h"
#include "determinism/seed.h"
#include "determinism/tensor_compare.h"
#include "harness/allocator_regime.h"
#include "harness/memory.h"
#include "harness/nvtx.h"
#include "harness/op_counter.h"

namespace trickbench {
namespace {

// Where a result lives is not part of the answer: both sides are compared on the CPU
// (a variant may hand back a host copy of what the baseline keeps on the device).
Tensors OnCpu(const Tensors& tensors) {
  Tensors out;
  for (const torch::Tensor& t : tensors) out.push_back(t.defined() ? t.detach().cpu() : t);
  return out;
}

void CompareWithBaseline(const Tensors& baseline, const Tensors& got, const Tolerance& tol,
                         results::VariantCheck* vc) {
  const TensorComparison c =
      CompareTensors(OnCpu(baseline), OnCpu(got), TensorTolerance{tol.rtol, tol.atol}, "result");
  vc->equivalent = c.equal;
  vc->max_abs_diff = c.max_abs_diff;
  vc->max_rel_diff = c.max_rel_diff;
  vc->equivalence_detail = c.equal ? "" : c.Describe("baseline");
}

std::string CasePrefix(const std::string& case_name) {
  return case_name.empty() ? "" : case_name + ": ";
}

}  // namespace

void VariantMemory::AfterSetUp(const Trick& trick) {
  vc_->setup_bytes = meter_.live_bytes();
  vc_->items_per_run = trick.ItemsPerRun();
  meter_.ResetPeak();
  allocations_before_ = meter_.allocations();
}

void VariantMemory::AfterSteps() {
  vc_->peak_bytes = meter_.peak_bytes();
  vc_->run_peak_bytes = vc_->peak_bytes - vc_->setup_bytes;
  vc_->allocations = meter_.allocations() - allocations_before_;
}

results::VariantCheck CheckedByProcess1(const std::string& variant) {
  results::VariantCheck vc;
  vc.name = variant;
  vc.equivalent = true;
  vc.active = true;
  vc.equivalence_detail = kCheckedByProcess1;
  return vc;
}

std::string DescribeException(const std::exception& e) {
  std::string what = e.what();
  const auto nl = what.find('\n');
  return nl == std::string::npos ? what : what.substr(0, nl);
}

CheckReport RunChecks(const TrickDef& def, const torch::Device& device, uint64_t seed,
                      const TimingBackend* timing, Mutation mutation, CheckScope scope) {
  const bool full = scope == CheckScope::kFull;
  CheckReport report;
  auto fail = [&](const std::string& why) {
    if (report.ok) {
      report.ok = false;
      report.reason = why;
    }
  };
  for (const std::string& case_name : def.cases(device)) {
    results::CaseChecks cc;
    cc.case_name = case_name;
    Tensors baseline;
    const std::string where_case = case_name.empty() ? "" : case_name + "/";
    for (size_t vi = 0; vi < def.variants().size(); ++vi) {
      const auto& variant = def.variants()[vi];
      results::VariantCheck vc = full ? results::VariantCheck{} : CheckedByProcess1(variant.name);
      vc.name = variant.name;
      const std::string where = where_case + variant.name;
      try {
        NvtxRange range(def.id() + "/" + where + "/check");
        SeedEverything(seed);
        Tensors result;
        {
          // The instance lives in this scope only: the next variant's meters see none
          // of its tensors.
          VariantMemory memory(&vc);
          auto trick = def.Make();
          SetUpInstance(*trick, def.NewInstance(case_name, device, variant.name));
          memory.AfterSetUp(*trick);  // SetUp's temporaries are not the variant's cost
          const auto device_meter = timing ? timing->MeterDeviceMemory() : nullptr;
          const bool mutated = vi > 0 && mutation != Mutation::kNone;
          const auto& body = mutated && mutation == Mutation::kBaselineBody
                                 ? def.variants().front().body
                                 : variant.body;
          const int steps = def.check_steps() - (mutated && mutation == Mutation::kSkipStep);
          std::map<std::string, int64_t> last_ops;
          for (int s = 0; s < steps; ++s) {
            std::optional<OpCounter> ops;
            if (full) ops.emplace();
            body(*trick);
            if (ops) last_ops = ops->counts();
          }
          trick->SetOpsRun(std::move(last_ops));
          memory.AfterSteps();
          // The device's peak is read before Result(): the copies Result() makes are the
          // harness's, not the variant's.
          std::map<std::string, double> device_counters;
          if (device_meter) device_meter->AddCounters(&device_counters);
          if (full) {
            result = trick->Result();
            vc.inactive_reason = trick->Inactive(variant.name);
            vc.counters = trick->Counters(variant.name);
          }
          for (const auto& [name, value] : device_counters) vc.counters[name] = value;
        }
        vc.active = vc.inactive_reason.empty();
        if (full && vi == 0) {
          // On the host: kept on the device, it would count in every later variant's
          // device peak (the CUDA meter reads the allocator's whole peak).
          baseline = OnCpu(result);
          vc.equivalent = true;
        } else if (full) {
          CompareWithBaseline(baseline, result, def.tolerance(), &vc);
          if (!vc.equivalent) {
            fail(where + " differs from " + def.variants().front().name + ": " +
                 vc.equivalence_detail);
          }
        }
        if (!vc.active) fail(where + " not in effect: " + vc.inactive_reason);
      } catch (const std::exception& e) {
        // The throw is the failure, told once (as the equivalence's detail); "in effect"
        // stays unrefuted rather than a second, guessed failure.
        vc.equivalent = false;
        vc.active = true;
        vc.inactive_reason.clear();
        vc.equivalence_detail = DescribeException(e);
        fail(where + " threw: " + DescribeException(e));
      }
      cc.variants.push_back(std::move(vc));
    }
    report.cases.push_back(std::move(cc));
  }
  return report;
}

Fingerprint ReproduceFingerprint(const TrickDef& def, const std::string& case_name,
                                 const torch::Device& device, uint64_t seed,
                                 const std::string& variant) {
  const std::string name = variant.empty() ? def.reproduced_variant() : variant;
  const int index = def.VariantIndex(name);
  if (index < 0) throw std::invalid_argument(def.id() + " has no variant " + name);
  DeterministicGuard guard;
  SeedEverything(seed);
  auto trick = def.Make();
  SetUpInstance(*trick, def.NewInstance(case_name, device, name));
  for (int s = 0; s < def.check_steps(); ++s) def.variants()[index].body(*trick);
  NamedTensors named;
  const Tensors result = trick->Result();
  for (size_t i = 0; i < result.size(); ++i) {
    named.emplace_back("result[" + std::to_string(i) + "]", result[i]);
  }
  return FingerprintTensors(named);
}

results::Reproducibility CheckReproducibility(const TrickDef& def, const torch::Device& device,
                                              uint64_t seed) {
  results::Reproducibility r;
  r.checked = true;
  r.variant = def.reproduced_variant();
  r.bitwise_reproducible = true;
  for (const auto& c : def.cases(device)) {
    results::ReproducibilityCase row;
    row.case_name = c;
    try {
      const Fingerprint a = ReproduceFingerprint(def, c, device, seed);
      const Fingerprint b = ReproduceFingerprint(def, c, device, seed);
      row.bitwise_reproducible = a == b;
      row.fingerprint = a.Hex();
      if (a != b) {
        row.first_difference = FirstDifference(a, b).value_or("?");
        if (r.detail.empty()) r.detail = CasePrefix(c) + "runs differ at " + row.first_difference;
      }
    } catch (const std::exception& e) {
      row.bitwise_reproducible = false;
      row.error = DescribeException(e);
      if (r.detail.empty()) r.detail = CasePrefix(c) + row.error;
    }
    r.bitwise_reproducible = r.bitwise_reproducible && row.bitwise_reproducible;
    r.cases.push_back(std::move(row));
  }
  r.fingerprint = r.cases.empty() ? "" : r.cases.front().fingerprint;
  return r;
}

results::Reproducibility NotChecked(const std::string& why) {
  results::Reproducibility r;
  r.checked = false;
  r.detail = why;
  return r;
}

std::string ValidateDef(const TrickDef& def) {
  if (def.id().empty()) return "trick without an id";
  if (def.variants().size() < 2) {
    return def.id() + ": needs a baseline and at least one other variant";
  }
  if (def.claim().empty()) return def.id() + ": no Claim() (the article's claim)";
  if (def.category().empty()) return def.id() + ": no Category()";
  if (def.source().empty()) return def.id() + ": no Source()";
  for (const results::Expectation& e : def.expectations()) {
    if (results::IsCounterMetric(e.metric) && e.measured_by.empty()) {
      return def.id() + ": Expect() grades counter " + e.metric +
             ", which it does not say how it measures: a counter the trick's own code or "
             "shapes set is evidence, shown but never graded";
    }
    if (e.metric == "rate" && e.work.empty()) {
      return def.id() + ": Expect() grades a rate without the counter of work it is a rate of";
    }
    if (!e.variant.empty() && def.VariantIndex(e.variant) <= 0) {
      return def.id() + ": Expect() names " + e.variant + ", not an optimized variant";
    }
    auto has = [&](const std::vector<std::string>& cases) {
      return std::find(cases.begin(), cases.end(), e.case_name) != cases.end();
    };
    if (!e.case_name.empty() && !has(def.cpu_cases()) && !has(def.cuda_cases())) {
      return def.id() + ": Expect() names unknown case " + e.case_name;
    }
  }
  for (const auto& [variant, why] : def.mutation_undetected()) {
    if (variant != kDroppedUpdate && def.VariantIndex(variant) <= 0) {
      return def.id() + ": MutationUndetected() names " + variant + ", not an optimized variant";
    }
  }
  if (def.trains() && def.check_steps() < 2) {
    return def.id() +
           ": Trains() needs CheckSteps() >= 2 (one of them is dropped in the "
           "mutation test)";
  }
  if (def.VariantIndex(def.reproduced_variant()) < 0) {
    return def.id() + ": Reproduce() names unknown variant " + def.reproduced_variant();
  }
  return "";
}

}  // namespace trickbench
