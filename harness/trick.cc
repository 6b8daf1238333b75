#include "harness/trick.h"

#include <algorithm>
#include <stdexcept>

namespace trickbench {
namespace {

std::vector<std::unique_ptr<TrickDef>>& Storage() {
  static auto* defs = new std::vector<std::unique_ptr<TrickDef>>();
  return *defs;
}

std::vector<TrickDef*>& Index() {
  static auto* index = new std::vector<TrickDef*>();
  return *index;
}

}  // namespace

namespace claim {
namespace {
Effect Make(std::string metric, bool lowers, double low, double high) {
  if (low < 0 || high < 0 || (high > 0 && high < low)) {
    throw std::invalid_argument("claimed range [" + std::to_string(low) + ", " +
                                std::to_string(high) + "] of " + metric + " is not a range");
  }
  results::Expectation e;
  e.metric = std::move(metric);
  e.lowers = lowers;
  e.low = low;
  e.high = high;
  return Effect(std::move(e));
}
// "37 % less" is a factor 1 / (1 - 0.37) on the baseline / variant scale.
double SavingFactor(double fraction) {
  if (fraction < 0 || fraction >= 1) {
    throw std::invalid_argument("a memory saving is a fraction in [0, 1), got " +
                                std::to_string(fraction));
  }
  return fraction == 0 ? 0 : 1 / (1 - fraction);
}
}  // namespace

Effect Effect::On(std::string device, std::string why) const {
  Effect e = *this;
  e.e_.device = std::move(device);
  e.e_.note = std::move(why);
  return e;
}
Effect Effect::OnHost() const {
  if (e_.metric != "memory") throw std::invalid_argument("OnHost() is for a memory claim");
  Effect e = *this;
  e.e_.metric = "host_memory";
  return e;
}
Effect Effect::ForVariant(std::string variant) const {
  Effect e = *this;
  e.e_.variant = std::move(variant);
  return e;
}
Effect Effect::ForCase(std::string case_name) const {
  Effect e = *this;
  e.e_.case_name = std::move(case_name);
  return e;
}
Effect Faster(double low, double high) { return Make("time", true, low, high); }
Effect Slower(double at_most) { return Make("time", false, 0, at_most); }
Effect LessMemory(double low, double high) {
  return Make("memory", true, SavingFactor(low), SavingFactor(high));
}
Effect MoreMemory() { return Make("memory", false, 0, 0); }
namespace {
Effect Measured(std::string counter, std::string measured_by, bool lowers, double low,
                double high) {
  if (!results::IsCounterMetric(counter)) {
    throw std::invalid_argument("\"" + counter + "\" is a metric, not a counter's name");
  }
  if (measured_by.empty()) {
    throw std::invalid_argument("a claim on counter " + counter +
                                " needs how it is measured: a counter the trick's own code "
                                "sets is evidence, not a grade");
  }
  Effect e = Make(std::move(counter), lowers, low, high);
  results::Expectation x = e.expectation();
  x.measured_by = std::move(measured_by);
  return Effect(std::move(x));
}
}  // namespace
Effect Fewer(std::string counter, std::string measured_by, double low, double high) {
  return Measured(std::move(counter), std::move(measured_by), true, low, high);
}
Effect More(std::string counter, std::string measured_by, double low, double high) {
  return Measured(std::move(counter), std::move(measured_by), false, low, high);
}
Effect LowerRate(std::string work, double low, double high) {
  if (work.empty()) throw std::invalid_argument("a rate claim needs the counter of work");
  results::Expectation x = Make("rate", true, low, high).expectation();
  x.work = std::move(work);
  return Effect(std::move(x));
}
}  // namespace claim

TrickDef::TrickDef(std::string id, Factory factory)
    : id_(std::move(id)), factory_(std::move(factory)) {
  ExpandAxes();
}

TrickDef& TrickDef::Category(std::string v) {
  category_ = std::move(v);
  return *this;
}
TrickDef& TrickDef::Source(std::string v) {
  source_ = std::move(v);
  return *this;
}
int64_t Trick::OpsRun(const std::string& op) const {
  const auto it = ops_run_.find(op);
  return it == ops_run_.end() ? 0 : it->second;
}

TrickDef& TrickDef::Claim(std::string v) {
  claim_ = std::move(v);
  return *this;
}
TrickDef& TrickDef::Expect(claim::Effect effect) {
  expectations_.push_back(effect.expectation());
  return *this;
}
TrickDef& TrickDef::Trains(std::vector<std::string> cases) {
  trains_ = true;
  training_cases_ = std::move(cases);
  return *this;
}
bool TrickDef::Trains(const std::string& case_name) const {
  return trains_ &&
         (training_cases_.empty() || std::find(training_cases_.begin(), training_cases_.end(),
                                               case_name) != training_cases_.end());
}
TrickDef& TrickDef::MutationUndetected(std::string variant, std::string why) {
  if (why.empty()) throw std::invalid_argument(id_ + ": MutationUndetected needs a reason");
  mutation_undetected_[std::move(variant)] = std::move(why);
  return *this;
}
std::string TrickDef::MutationUndetectedWhy(const std::string& variant) const {
  const auto it = mutation_undetected_.find(variant);
  return it == mutation_undetected_.end() ? "" : it->second;
}
TrickDef& TrickDef::NeedsCuda(std::string why) {
  needs_cuda_ = true;
  needs_cuda_reason_ = std::move(why);
  return *this;
}
TrickDef& TrickDef::Axis(trickbench::Axis axis) {
  if (!shorthand_cases_.empty() || !shorthand_cuda_cases_.empty()) {
    throw std::invalid_argument(id_ + ": Axis() and Cases()/CudaCases() exclude each other");
  }
  axes_.push_back(std::move(axis));
  try {
    ExpandAxes();
  } catch (...) {
    axes_.pop_back();  // the definition stays as it was
    throw;
  }
  return *this;
}
TrickDef& TrickDef::Cases(std::vector<std::string> cases) {
  if (cases.empty()) throw std::invalid_argument(id_ + ": Cases() needs at least one case");
  if (!axes_.empty()) throw std::invalid_argument(id_ + ": Cases() and Axis() exclude each other");
  shorthand_cases_ = std::move(cases);
  ExpandAxes();
  return *this;
}
TrickDef& TrickDef::CudaCases(std::vector<std::string> cases) {
  if (cases.empty()) throw std::invalid_argument(id_ + ": CudaCases() needs at least one case");
  if (!axes_.empty()) {
    throw std::invalid_argument(id_ + ": CudaCases() and Axis() exclude each other");
  }
  shorthand_cuda_cases_ = std::move(cases);
  ExpandAxes();
  return *this;
}
void TrickDef::ExpandAxes() {
  std::vector<trickbench::Axis> axes = axes_;
  if (!shorthand_cases_.empty() || !shorthand_cuda_cases_.empty()) {
    // The shorthand: one string axis; CudaCases() alone leaves the CPU its one case "".
    auto a = trickbench::Axis::String(
        "case", shorthand_cases_.empty() ? std::vector<std::string>{""} : shorthand_cases_);
    if (!shorthand_cuda_cases_.empty()) a = a.OnCuda(shorthand_cuda_cases_);
    axes = {a};
  }
  try {
    cpu_params_ = ExpandCases(axes, /*cuda=*/false);
    cuda_params_ = ExpandCases(axes, /*cuda=*/true);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(id_ + ": " + e.what());
  }
  auto names = [](const std::vector<CaseParams>& params) {
    std::vector<std::string> out;
    for (const CaseParams& p : params) out.push_back(p.name());
    return out;
  };
  cases_ = names(cpu_params_);
  cuda_cases_ = names(cuda_params_);
  // cuda_cases() is empty when CUDA runs the CPU's cases.
  if (cuda_cases_ == cases_) cuda_cases_.clear();
}
Instance TrickDef::NewInstance(const std::string& case_name, const torch::Device& device,
                               const std::string& variant) const {
  const std::vector<CaseParams>& params = device.is_cuda() ? cuda_params_ : cpu_params_;
  for (const CaseParams& p : params) {
    if (p.name() == case_name) return Instance{case_name, device, variant, p};
  }
  throw std::invalid_argument(id_ + ": no case \"" + case_name + "\" on " + device.str());
}
TrickDef& TrickDef::Work(WorkFn work) {
  work_ = std::move(work);
  return *this;
}
TrickDef& TrickDef::TrafficBound() {
  traffic_bound_ = true;
  return *this;
}
TrickDef& TrickDef::LaunchBound(std::string why) {
  if (why.empty()) throw std::invalid_argument(id_ + ": LaunchBound needs a reason");
  launch_bound_why_ = std::move(why);
  return *this;
}
TrickDef& TrickDef::HostSide(std::string why) {
  if (why.empty()) throw std::invalid_argument(id_ + ": HostSide needs a reason");
  host_side_why_ = std::move(why);
  return *this;
}
TrickDef& TrickDef::Bitwise() {
  tolerance_ = trickbench::Tolerance{};
  return *this;
}
TrickDef& TrickDef::Tolerance(double rtol, double atol) {
  if (rtol < 0 || atol < 0) throw std::invalid_argument(id_ + ": negative tolerance");
  tolerance_ = trickbench::Tolerance{rtol, atol};
  return *this;
}
TrickDef& TrickDef::CheckSteps(int steps) {
  if (steps < 1) throw std::invalid_argument(id_ + ": CheckSteps must be >= 1");
  check_steps_ = steps;
  return *this;
}
TrickDef& TrickDef::Reproduce(std::string variant) {
  reproduce_ = std::move(variant);
  return *this;
}
TrickDef& TrickDef::AddVariant(std::string name, Body body) {
  if (VariantIndex(name) >= 0) throw std::invalid_argument(id_ + ": duplicate variant " + name);
  variants_.push_back({std::move(name), std::move(body)});
  return *this;
}

const std::string& TrickDef::reproduced_variant() const {
  return reproduce_.empty() ? variants_.back().name : reproduce_;
}

int TrickDef::VariantIndex(const std::string& name) const {
  for (size_t i = 0; i < variants_.size(); ++i) {
    if (variants_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<std::string> TrickDef::VariantNames() const {
  std::vector<std::string> names;
  for (const VariantSpec& v : variants_) names.push_back(v.name);
  return names;
}

const std::vector<TrickDef*>& RegisteredTricks() { return Index(); }

TrickDef* FindTrick(const std::string& id) {
  for (TrickDef* d : Index()) {
    if (d->id() == id) return d;
  }
  return nullptr;
}

namespace internal {
TrickDef& Register(std::unique_ptr<TrickDef> def) {
  Storage().push_back(std::move(def));
  Index().push_back(Storage().back().get());
  return *Index().back();
}
}  // namespace internal

}  // namespace trickbench
