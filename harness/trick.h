// trickbench's trick contract: one PyTorch performance trick, one file, one class.
//
// A trick is a class derived from trickbench::Trick. It builds its workload in SetUp,
// has one member function per variant (the first is the baseline), and says what its
// last run produced in Result(). The harness owns everything else: seeding, warm-up,
// timing, paired rounds, memory, NVTX, skipping, the equivalence and active checks,
// reproducibility and the JSON.
//
// A whole trick file, benches/no_grad_inference.cc, as it is compiled
// (//benches:trick_example_test fails when this copy and the file differ):
//
//   // no_grad_inference (A14, B): inference without autograd bookkeeping.
//   //
//   // The same MLP forward three ways: in grad mode (autograd records the graph and keeps
//   // activations for a backward that never comes), under NoGradGuard, and under
//   // InferenceMode (which also skips version counters and view tracking). Outputs must be
//   // bitwise equal: the kernels are the same, only the bookkeeping differs.
//   #include <torch/nn/modules/container/sequential.h>
//   #include <torch/utils.h>
//
//   #include "harness/trick.h"
//   #include "workloads/workloads.h"
//
//   namespace {
//
//   constexpr trickbench::workloads::MlpSize kMlp{.in = 512, .hidden = 1024, .out = 10, .layers = 3};
//
//   class NoGradInference : public trickbench::Trick {
//    public:
//     void SetUp(const trickbench::Instance& s) override {
//       model_ = trickbench::workloads::Mlp(kMlp, s.device);
//       input_ = torch::randn({s.params.Int("batch"), kMlp.in}).to(s.device);
//     }
//
//     void GradMode() { out_ = model_->forward(input_); }
//
//     void NoGrad() {
//       torch::NoGradGuard no_grad;
//       out_ = model_->forward(input_);
//     }
//
//     void Inference() {
//       c10::InferenceMode inference;
//       out_ = model_->forward(input_);
//     }
//
//     trickbench::Tensors Result() override { return {out_.detach()}; }
//
//     std::string Inactive(const std::string& variant) override {
//       if (variant == "grad_mode" && !out_.requires_grad()) return "grad mode output records no graph";
//       if (variant == "no_grad" && out_.requires_grad()) return "output still requires grad";
//       if (variant == "inference_mode" && !out_.is_inference())
//         return "output is not an inference tensor";
//       return "";
//     }
//
//     int64_t ItemsPerRun() const override { return input_.size(0); }
//
//    private:
//     torch::nn::Sequential model_{nullptr};
//     torch::Tensor input_, out_;
//   };
//
//   // One forward: the GEMMs' FLOP; the weights read, each layer's fp32 activations written
//   // once and read once.
//   trickbench::CaseWork Work(const trickbench::Instance& s) {
//     const int64_t batch = s.params.Int("batch");
//     const double activations = static_cast<double>(batch) * (kMlp.in + kMlp.layers * kMlp.hidden);
//     const double weights = static_cast<double>(trickbench::workloads::MlpParameters(kMlp));
//     return {.flop = trickbench::workloads::MlpForwardFlop(kMlp, batch),
//             .bytes = 4 * (weights + 2 * activations),
//             .working_set = 4 * (weights + activations)};
//   }
//
//   }  // namespace
//
//   TRICKBENCH_TRICK(no_grad_inference, NoGradInference)
//       .Category("Model architecture and training")
//       .Source("A14, B")
//       .Claim("less memory and time")
//       .Expect(trickbench::claim::LessMemory())
//       .Expect(trickbench::claim::Faster())
//       // 32768 samples: about 170 GFLOP, so an H200 times the GEMMs, not their launches.
//       .Axis(trickbench::Axis::Int("batch", {256}).OnCuda({32768}))
//       .Work(Work)
//       .Variant("grad_mode", &NoGradInference::GradMode)
//       .Variant("no_grad", &NoGradInference::NoGrad)
//       .Variant("inference_mode", &NoGradInference::Inference)
//       .Bitwise();
//
// The Bazel macro in benches/defs.bzl turns benches/<id>.cc into //benches:<id> (the
// benchmark binary, whose main is harness/main.cc) and //benches:<id>_test, and lists
// the trick in docs/CATALOG.md (generated from these registrations: regenerate it with
// `bazel run //benches:catalog -- --out=docs/CATALOG.md`).
//
// What the harness does with a trick, per case and variant:
//   checks: seed, fresh instance, SetUp, Run CheckSteps() times with the process-wide
//           allocator meter on (harness/memory.h: peak bytes live, every thread),
//           Result() compared with the baseline's within the tolerance, Inactive()
//           asked; any failure makes the whole trick "invalid", untimed.
//   timing: another fresh seeded instance per (case, variant), SetUp untimed, warm-up,
//           an iteration count calibrated per variant, then paired rounds: each round
//           runs one sample of every variant, in an order drawn from a recorded seed
//           (harness/rounds.h).
//   repro:  two seeded runs of the reproduced variant (the last, unless
//           .Reproduce() names another) under the deterministic guard must give
//           bitwise-equal fingerprints of Result().
//
// Includes: this header gives <torch/types.h> (Tensor, Device, the dtypes, the factory
// functions) and none of torch::nn, torch::optim or torch::data; a trick file includes
// the LibTorch headers it uses, as the example does. Never the umbrella <torch/torch.h>:
// its headers alone take about 15 s of every compile here (.ci/run's `includes` step
// refuses it).
#pragma once

#include <torch/types.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/axes.h"
#include "results/expectation.h"
#include "results/tolerance.h"

namespace trickbench {

using Tensors = std::vector<torch::Tensor>;

// The name MutationUndetected() takes for "a dropped update is not caught" (Trains()).
inline constexpr char kDroppedUpdate[] = "<dropped update>";

// What one trick instance is set up for: a case, a device and the one variant it runs.
// (The report's *setting* is a case and an optimized variant graded against its
// baseline: reports/report.h VariantEffect.)
// TrickDef::NewInstance makes one with its case's parameters.
struct Instance {
  std::string case_name;  // one of TrickDef::cases(device); "" for a trick with one case
  torch::Device device = torch::kCPU;
  // The variant this instance will run: every instance runs one variant only, so
  // SetUp can build what only that variant needs (a flattened optimizer, a model
  // without unused layers) outside the measured region.
  std::string variant;
  CaseParams params;  // the case's value on each axis (harness/axes.h)
};

// What one timed run of a variant does on the device, as the trick declares it from
// its case's sizes (TrickDef::Work): arithmetic, not a measurement. The sizing check
// (harness/sizing.h) holds every CUDA case to an H200's floor with it, so that a GPU
// times the trick rather than kernel launches.
struct CaseWork {
  double flop = 0;         // floating-point operations (a multiply-add is 2)
  double bytes = 0;        // bytes read plus written in device memory
  double host_bytes = 0;   // bytes copied between host and device (over PCIe)
  double working_set = 0;  // bytes of distinct data the run touches (the L2 check)
};

class Trick {
 public:
  virtual ~Trick() = default;

  // Builds models and data for `instance`. Untimed; the RNGs are seeded just before.
  virtual void SetUp(const Instance& instance) {}

  // What the last variant run produced (outputs, updated parameters, loaded data).
  // Compared across variants for equivalence, fingerprinted for reproducibility.
  virtual Tensors Result() = 0;

  // Empty when the trick really was in effect in the last run of `variant`; else a
  // sentence saying why not (e.g. "output dtype is Float, expected BFloat16").
  virtual std::string Inactive(const std::string& variant) { return ""; }

  // Extra per-variant figures for the JSON (parameter counts, FLOP per run...), read
  // after the checks' runs of that variant. Keys become Google Benchmark counters.
  // Evidence unless a claim grades one with how it is measured (claim::Fewer): a figure
  // the trick's own code or shapes decide is shown, never graded.
  virtual std::map<std::string, double> Counters(const std::string& variant) { return {}; }

  // Items (samples, elements) one run processes; > 0 adds items_per_second.
  virtual int64_t ItemsPerRun() const { return 0; }

  // How many times the last checked run of this instance dispatched `op` on the
  // harness's thread ("aten::gelu", "aten::_foreach_add_", "quantized::linear_dynamic"):
  // evidence of the code path the body took, for Inactive() and Counters(). The checks
  // count every run (harness/op_counter.h) and set it before Result(); the timed runs
  // are not counted, so it is 0 for every op there. Dispatches, not kernels: compare
  // present against absent, or one variant against another.
  int64_t OpsRun(const std::string& op) const;
  // The harness's: the last checked run's ops by name.
  void SetOpsRun(std::map<std::string, int64_t> ops) { ops_run_ = std::move(ops); }

 private:
  std::map<std::string, int64_t> ops_run_;
};

// The article's claim as data, for the report to grade each setting against
// (reports/SCHEMA.md "Claims"). Build one with the functions below and chain where it
// applies:
//
//   .Expect(claim::Faster(1.3, 4.0).OnCuda("tensor cores: the article's fp16 figure"))
//   .Expect(claim::LessMemory(0.37).ForVariant("amp"))
//   .Expect(claim::LowerRate("flop_per_run"))   // achieved FLOP/s, from the rounds' time
//
// A figure of 0 means the article gives none: any material effect (beyond the report's
// +-5 % band) in the claimed direction holds. Only measurements are graded (time,
// memory, a rate per measured second, a counter the trick measures): a claim that a
// trick's own code makes true (fewer parameters, fewer calls) cannot fail, so its
// counter is evidence, for Inactive() and the record, and has no claim function.
namespace claim {
class Effect {
 public:
  explicit Effect(results::Expectation e) : e_(std::move(e)) {}
  Effect OnCuda(std::string why) const { return On("cuda", std::move(why)); }
  Effect OnCpu(std::string why) const { return On("cpu", std::move(why)); }
  // The claim stands, but this experiment tests it on no device (ddp_vs_dp runs both
  // variants on the CPU with Gloo, while the article's claim is one process per GPU):
  // reported as not covered, with why, never graded.
  Effect NotCovered(std::string why) const { return On("none", std::move(why)); }
  // A memory claim about host buffers (a loader's workers, a copy avoided on the host):
  // graded on the CPU meter's peak on every device, not the CUDA device's peak.
  Effect OnHost() const;
  Effect ForVariant(std::string variant) const;
  Effect ForCase(std::string case_name) const;
  const results::Expectation& expectation() const { return e_; }

 private:
  Effect On(std::string device, std::string why) const;
  results::Expectation e_;
};
// Time: the variant is `low`-`high` times faster (1.08, 1.35 for "8-35 % faster").
Effect Faster(double low = 0, double high = 0);
// Time: a cost, the variant is slower by a factor of at most `at_most` (0: unbounded).
Effect Slower(double at_most = 0);
// Peak memory: the variant holds `low`-`high` less (0.37 for "37 % less").
Effect LessMemory(double low = 0, double high = 0);
// Peak memory: a cost, the variant holds more.
Effect MoreMemory();
// A counter of Counters() that the trick measures, lower by a factor `low`-`high`.
// `measured_by` says how (a reading of the allocator, a difference between results), and
// may not be empty: a counter that follows from the trick's own code is evidence.
Effect Fewer(std::string counter, std::string measured_by, double low = 0, double high = 0);
// A measured counter: higher by a factor `low`-`high`.
Effect More(std::string counter, std::string measured_by, double low = 0, double high = 0);
// A rate: the counter `work` (per run: FLOP, bytes; evidence is fine) over the paired
// rounds' measured time. The variant achieves a lower rate by a factor `low`-`high`
// (depthwise convolution: far fewer FLOP, not nearly as much less time).
Effect LowerRate(std::string work, double low = 0, double high = 0);
}  // namespace claim

using Tolerance = results::Tolerance;  // results/tolerance.h: bitwise, or rtol and atol

// The registered description of a trick. Built with the chained setters below.
class TrickDef {
 public:
  using Factory = std::function<std::unique_ptr<Trick>()>;
  using Body = std::function<void(Trick&)>;
  struct VariantSpec {
    std::string name;
    Body body;
  };

  TrickDef(std::string id, Factory factory);

  TrickDef& Category(std::string category);
  TrickDef& Source(std::string source);  // "A14, B": the article markers (docs/CATALOG.md)
  TrickDef& Claim(std::string claim);    // the article's claim, quoted
  // The claim as data, one metric each; a trick whose claim has nothing to measure
  // (reproducibility) has none, and its report says so.
  TrickDef& Expect(claim::Effect effect);
  // Result() is the state after CheckSteps() updates (a training step, an optimizer
  // step): the mutation test then also drops one update of every optimized variant,
  // which the equivalence check must catch (so the tolerance must be tight enough).
  // `cases`: the cases that train, when not all do.
  TrickDef& Trains(std::vector<std::string> cases = {});
  // The mutation test (a variant run with the baseline's body) must catch every
  // optimized variant; one whose non-application no check can see is listed here, with
  // why, and the test then asserts that it is still not caught.
  // MutationUndetected(kDroppedUpdate, why): the tolerance cannot see one dropped update.
  TrickDef& MutationUndetected(std::string variant, std::string why);
  // Runs only with CUDA: on a machine without it the trick is reported as skipped
  // with this reason.
  TrickDef& NeedsCuda(std::string why);
  // The cases as typed axes (harness/axes.h): their product, each axis with its CPU
  // values and, at the article's scale, its CUDA ones. SetUp reads s.params.
  TrickDef& Axis(trickbench::Axis axis);
  // Shorthand for one string axis "case" (not combined with Axis()): cases that are
  // names, not sizes.
  TrickDef& Cases(std::vector<std::string> cases);
  // The shorthand axis's values on a CUDA device, in place of Cases() there: the sizes
  // the article's figures were measured at (a ResNet-50 stage, a BERT-base layer), since
  // the small CPU sizes are launch-bound on a GPU and would time the launch, not the trick.
  TrickDef& CudaCases(std::vector<std::string> cases);
  // The device work of one timed run of instance.variant in instance's case, computed
  // from s.params as SetUp sizes it. Every trick that runs on CUDA declares it, or says
  // why the H200 floor does not apply (LaunchBound, HostSide): harness/sizing.h.
  using WorkFn = std::function<CaseWork(const Instance&)>;
  TrickDef& Work(WorkFn work);
  // The claim is about memory traffic (fusion, in-place, fewer bytes): a CUDA case's
  // working set must then exceed the H200's L2, or the traffic never leaves the cache.
  TrickDef& TrafficBound();
  // The claim is about launch or synchronisation cost itself (many small ops, host
  // syncs): small device work is the point, so the floor does not apply. Listed.
  TrickDef& LaunchBound(std::string why);
  // The timed work runs on the host whatever the device (decoding, file reads, CPU-side
  // collectives): no device work to size. Listed.
  TrickDef& HostSide(std::string why);
  TrickDef& Bitwise();
  TrickDef& Tolerance(double rtol, double atol);
  // How many runs of each variant before its Result() is compared (default 2).
  TrickDef& CheckSteps(int steps);
  // The variant whose reproducibility is checked (default: the last one).
  TrickDef& Reproduce(std::string variant);

  TrickDef& AddVariant(std::string name, Body body);
  template <typename T>
  TrickDef& Variant(std::string name, void (T::*fn)()) {
    return AddVariant(std::move(name), [fn](Trick& t) { (static_cast<T&>(t).*fn)(); });
  }

  const std::string& id() const { return id_; }
  const std::string& category() const { return category_; }
  const std::string& source() const { return source_; }
  const std::string& claim() const { return claim_; }
  const std::vector<results::Expectation>& expectations() const { return expectations_; }
  bool trains() const { return trains_; }
  bool Trains(const std::string& case_name) const;
  // "" when the mutation test must catch `variant`; else why it cannot.
  std::string MutationUndetectedWhy(const std::string& variant) const;
  const std::map<std::string, std::string>& mutation_undetected() const {
    return mutation_undetected_;
  }
  bool needs_cuda() const { return needs_cuda_; }
  const std::string& needs_cuda_reason() const { return needs_cuda_reason_; }
  // The cases on `device`: CudaCases() on CUDA when given, else Cases().
  const std::vector<std::string>& cases(const torch::Device& device) const {
    return device.is_cuda() && !cuda_cases_.empty() ? cuda_cases_ : cases_;
  }
  const std::vector<std::string>& cpu_cases() const { return cases_; }
  const std::vector<std::string>& cuda_cases() const { return cuda_cases_; }  // empty: Cases()
  // An instance of `case_name` on `device` for `variant`, with the case's parameters.
  // Throws std::invalid_argument naming the trick when the case is not one on `device`.
  Instance NewInstance(const std::string& case_name, const torch::Device& device,
                       const std::string& variant) const;
  const WorkFn& work() const { return work_; }  // empty: none declared
  bool traffic_bound() const { return traffic_bound_; }
  const std::string& launch_bound_why() const { return launch_bound_why_; }
  const std::string& host_side_why() const { return host_side_why_; }
  const std::vector<VariantSpec>& variants() const { return variants_; }
  const trickbench::Tolerance& tolerance() const { return tolerance_; }
  int check_steps() const { return check_steps_; }
  const std::string& reproduced_variant() const;
  int VariantIndex(const std::string& name) const;  // -1 when unknown
  std::vector<std::string> VariantNames() const;    // baseline first, as registered
  std::unique_ptr<Trick> Make() const { return factory_(); }

 private:
  std::string id_, category_, source_, claim_;
  std::vector<results::Expectation> expectations_;
  bool trains_ = false;
  std::vector<std::string> training_cases_;  // empty: every case
  std::map<std::string, std::string> mutation_undetected_;
  bool needs_cuda_ = false;
  std::string needs_cuda_reason_;
  // Recomputes cases_ and cuda_cases_ from the axes (or the shorthand's).
  void ExpandAxes();
  std::vector<trickbench::Axis> axes_;
  std::vector<std::string> shorthand_cases_, shorthand_cuda_cases_;
  std::vector<CaseParams> cpu_params_, cuda_params_;
  std::vector<std::string> cases_{""};
  std::vector<std::string> cuda_cases_;
  WorkFn work_;
  bool traffic_bound_ = false;
  std::string launch_bound_why_, host_side_why_;
  std::vector<VariantSpec> variants_;
  trickbench::Tolerance tolerance_;
  int check_steps_ = 2;
  std::string reproduce_;
  Factory factory_;
};

// Every trick linked into this binary, in registration order.
const std::vector<TrickDef*>& RegisteredTricks();
// nullptr when no trick has that id.
TrickDef* FindTrick(const std::string& id);

namespace internal {
TrickDef& Register(std::unique_ptr<TrickDef> def);
}  // namespace internal

}  // namespace trickbench

#define TRICKBENCH_CONCAT_INNER(a, b) a##b
#define TRICKBENCH_CONCAT(a, b) TRICKBENCH_CONCAT_INNER(a, b)

// Registers trick class `cls` under `id` (the file stem) and opens a chain of setters.
#define TRICKBENCH_TRICK(id, cls)                                                            \
  static ::trickbench::TrickDef& TRICKBENCH_CONCAT(trickbench_trick_, id) [[maybe_unused]] = \
      ::trickbench::internal::Register(std::make_unique<::trickbench::TrickDef>(             \
          #id, [] { return std::unique_ptr<::trickbench::Trick>(new cls()); }))
