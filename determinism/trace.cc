#include "determinism/trace.h"

#include <torch/nn/module.h>
#include <torch/optim/adagrad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/optimizer.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include "determinism/tensor_compare.h"

#include <cmath>
#include <limits>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "third_party/libtorch/compat.h"

namespace trickbench {
namespace {

using json = nlohmann::json;

namespace compat = trickbench::torch_compat;

// How the optimizers key their state (the parameter's TensorImpl address; as text
// before LibTorch 2.2).
using StateKey = decltype(compat::OptimizerStateKey(std::declval<torch::Tensor>()));

void AddIfDefined(NamedTensors* out, const std::string& name, const torch::Tensor& t) {
  if (t.defined()) out->emplace_back(name, t);
}

torch::Tensor StepTensor(int64_t step) { return torch::tensor(step, torch::kLong); }

void AppendState(const std::string& name, const torch::optim::OptimizerParamState& state,
                 NamedTensors* out) {
  using namespace torch::optim;
  if (auto* s = dynamic_cast<const SGDParamState*>(&state)) {
    AddIfDefined(out, name + ".momentum_buffer", s->momentum_buffer());
  } else if (auto* s = dynamic_cast<const AdamParamState*>(&state)) {
    out->emplace_back(name + ".step", StepTensor(s->step()));
    AddIfDefined(out, name + ".exp_avg", s->exp_avg());
    AddIfDefined(out, name + ".exp_avg_sq", s->exp_avg_sq());
    AddIfDefined(out, name + ".max_exp_avg_sq", s->max_exp_avg_sq());
  } else if (auto* s = dynamic_cast<const AdamWParamState*>(&state)) {
    out->emplace_back(name + ".step", StepTensor(s->step()));
    AddIfDefined(out, name + ".exp_avg", s->exp_avg());
    AddIfDefined(out, name + ".exp_avg_sq", s->exp_avg_sq());
    AddIfDefined(out, name + ".max_exp_avg_sq", s->max_exp_avg_sq());
  } else if (auto* s = dynamic_cast<const AdagradParamState*>(&state)) {
    out->emplace_back(name + ".step", StepTensor(s->step()));
    AddIfDefined(out, name + ".sum", s->sum());
  } else if (auto* s = dynamic_cast<const RMSpropParamState*>(&state)) {
    out->emplace_back(name + ".step", StepTensor(s->step()));
    AddIfDefined(out, name + ".square_avg", s->square_avg());
    AddIfDefined(out, name + ".momentum_buffer", s->momentum_buffer());
    AddIfDefined(out, name + ".grad_avg", s->grad_avg());
  } else {
    throw std::invalid_argument("OptimizerStateTensors: unsupported optimizer state type " +
                                std::string(typeid(state).name()) + " for parameter " + name);
  }
}

uint64_t ParseHex(const std::string& s, const std::string& field) {
  uint64_t v = 0;
  if (!ParseHashHex(s, &v)) {
    throw std::invalid_argument("trace JSON: " + field + " is not 16 hex digits: '" + s + "'");
  }
  return v;
}

const json& Field(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) {
    throw std::invalid_argument("trace JSON: " + where + " lacks \"" + key + "\"");
  }
  return j.at(key);
}

double NumberOrNan(const json& j) {
  return j.is_number() ? j.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

bool SameValue(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

bool SameRecord(const TensorRecord& a, const TensorRecord& b) {
  return a.digest == b.digest && SameValue(a.sum, b.sum);
}

NamedTensors OptimizerStateTensors(const torch::optim::Optimizer& optimizer,
                                   const torch::nn::Module& module) {
  std::map<StateKey, std::string> name_of;
  for (const auto& p : module.named_parameters())
    name_of[compat::OptimizerStateKey(p.value())] = p.key();
  NamedTensors out;
  for (const auto& group : optimizer.param_groups()) {
    for (const auto& p : group.params()) {
      const StateKey key = compat::OptimizerStateKey(p);
      const auto name = name_of.find(key);
      if (name == name_of.end()) {
        throw std::invalid_argument(
            "OptimizerStateTensors: the optimizer holds a parameter of shape " +
            c10::str(p.sizes()) + " that the module does not own");
      }
      const auto state = optimizer.state().find(key);
      if (state == optimizer.state().end()) continue;  // no step taken for it yet
      AppendState(name->second, *state->second, &out);
    }
  }
  return out;
}

NamedTensors TrainingState(const torch::nn::Module& module,
                           const torch::optim::Optimizer* optimizer) {
  NamedTensors out;
  for (const auto& p : module.named_parameters()) out.emplace_back("param:" + p.key(), p.value());
  for (const auto& p : module.named_parameters()) {
    out.emplace_back("grad:" + p.key(), p.value().grad());
  }
  for (const auto& b : module.named_buffers()) out.emplace_back("buffer:" + b.key(), b.value());
  if (optimizer) {
    for (auto& [name, t] : OptimizerStateTensors(*optimizer, module)) {
      out.emplace_back("optim:" + name, t);
    }
  }
  return out;
}

void TrainingTrace::Record(const NamedTensors& state) {
  Record(steps_.empty() ? 0 : steps_.back().step + 1, state);
}

void TrainingTrace::Record(int64_t step, const NamedTensors& state) {
  StepRecord rec;
  rec.step = step;
  const Fingerprint f = FingerprintTensors(state);
  rec.digest = f.digest;
  for (size_t i = 0; i < state.size(); ++i) {
    TensorRecord r;
    r.digest = f.tensors[i];
    const torch::Tensor& t = state[i].second;
    if (t.defined() && t.numel() > 0) {
      const torch::Tensor d = t.detach().to(torch::kCPU, torch::kDouble);
      r.sum = d.sum().item<double>();
      r.norm = d.norm().item<double>();
    }
    if (keep_values_ && t.defined()) r.value = t.detach().to(torch::kCPU).clone();
    rec.tensors.push_back(std::move(r));
  }
  steps_.push_back(std::move(rec));
}

std::string TrainingTrace::ToJson() const {
  json steps = json::array();
  for (const auto& s : steps_) {
    json tensors = json::array();
    for (const auto& t : s.tensors) {
      tensors.push_back({{"name", t.digest.name},
                         {"dtype", t.digest.dtype},
                         {"shape", t.digest.shape},
                         {"hash", HashHex(t.digest.hash)},
                         {"sum", t.sum},
                         {"norm", t.norm}});
    }
    steps.push_back({{"step", s.step}, {"digest", HashHex(s.digest)}, {"tensors", tensors}});
  }
  return json{{"steps", steps}}.dump();
}

TrainingTrace TrainingTrace::FromJson(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(std::string("trace JSON: not JSON: ") + e.what());
  }
  TrainingTrace trace;
  const json& steps = Field(j, "steps", "the document");
  if (!steps.is_array()) throw std::invalid_argument("trace JSON: \"steps\" is not an array");
  try {
    for (size_t i = 0; i < steps.size(); ++i) {
      const std::string where = "steps[" + std::to_string(i) + "]";
      StepRecord s;
      s.step = Field(steps[i], "step", where).get<int64_t>();
      s.digest = ParseHex(Field(steps[i], "digest", where).get<std::string>(), where + ".digest");
      const json& tensors = Field(steps[i], "tensors", where);
      for (size_t k = 0; k < tensors.size(); ++k) {
        const std::string tw = where + ".tensors[" + std::to_string(k) + "]";
        TensorRecord r;
        r.digest.name = Field(tensors[k], "name", tw).get<std::string>();
        r.digest.dtype = Field(tensors[k], "dtype", tw).get<std::string>();
        r.digest.shape = Field(tensors[k], "shape", tw).get<std::vector<int64_t>>();
        r.digest.hash = ParseHex(Field(tensors[k], "hash", tw).get<std::string>(), tw + ".hash");
        r.sum = NumberOrNan(Field(tensors[k], "sum", tw));
        r.norm = NumberOrNan(Field(tensors[k], "norm", tw));
        s.tensors.push_back(std::move(r));
      }
      trace.steps_.push_back(std::move(s));
    }
  } catch (const json::type_error& e) {
    throw std::invalid_argument(std::string("trace JSON: wrong type: ") + e.what());
  }
  return trace;
}

std::string Divergence::Describe() const {
  std::ostringstream os;
  os << "runs diverged at step " << step << ", tensor " << tensor << " (" << what << ")";
  if (what == "values") {
    if (exact) {
      os << ": max |a-b| = " << max_abs_diff << " (max relative " << max_rel_diff << ") in "
         << differing_elements << " of " << elements << " elements, first at "
         << c10::IntArrayRef(first_index);
    } else {
      os << ": sum differs by " << sum_diff << ", L2 norm by " << norm_diff
         << " (values not kept: record with TrainingTrace(true) for elementwise figures)";
    }
  }
  return os.str();
}

std::optional<Divergence> FindDivergence(const TrainingTrace& a, const TrainingTrace& b) {
  std::map<int64_t, const StepRecord*> steps_b;
  for (const auto& s : b.steps()) steps_b[s.step] = &s;
  std::map<int64_t, const StepRecord*> steps_a;
  for (const auto& s : a.steps()) steps_a[s.step] = &s;
  std::map<int64_t, int> all;
  for (const auto& [k, v] : steps_a) all[k] |= 1;
  for (const auto& [k, v] : steps_b) all[k] |= 2;
  for (const auto& [step, which] : all) {
    Divergence d;
    d.step = step;
    if (which != 3) {
      d.what = which == 1 ? "step missing in run b" : "step missing in run a";
      d.tensor = "(whole step)";
      return d;
    }
    const StepRecord& sa = *steps_a[step];
    const StepRecord& sb = *steps_b[step];
    const size_t n = std::min(sa.tensors.size(), sb.tensors.size());
    for (size_t i = 0; i <= n; ++i) {
      if (i == n) {
        if (sa.tensors.size() == sb.tensors.size()) break;
        const bool a_longer = sa.tensors.size() > n;
        d.tensor = (a_longer ? sa.tensors[n] : sb.tensors[n]).digest.name;
        d.what = a_longer ? "only in run a" : "only in run b";
        return d;
      }
      const TensorRecord& ta = sa.tensors[i];
      const TensorRecord& tb = sb.tensors[i];
      if (SameRecord(ta, tb)) continue;
      d.tensor = ta.digest.name;
      if (ta.digest.name != tb.digest.name) {
        d.what = "name differs: run b has " + tb.digest.name;
      } else if (ta.digest.dtype != tb.digest.dtype) {
        d.what = "dtype " + ta.digest.dtype + " vs " + tb.digest.dtype;
      } else if (ta.digest.shape != tb.digest.shape) {
        d.what = "shape " + c10::str(c10::IntArrayRef(ta.digest.shape)) + " vs " +
                 c10::str(c10::IntArrayRef(tb.digest.shape));
      } else {
        d.what = "values";
        d.sum_diff = std::abs(ta.sum - tb.sum);
        d.norm_diff = std::abs(ta.norm - tb.norm);
        if (ta.value.defined() && tb.value.defined()) {
          const TensorComparison c =
              CompareTensors({{ta.digest.name, ta.value}}, {{tb.digest.name, tb.value}});
          d.exact = true;
          d.elements = ta.value.numel();
          if (const TensorDifference* diff = c.FirstDifference()) {
            d.differing_elements = diff->differing_elements;
            d.max_abs_diff = diff->max_abs_diff;
            d.max_rel_diff = diff->max_rel_diff;
            d.first_index = diff->first_index;
          }
        }
      }
      return d;
    }
  }
  return std::nullopt;
}

}  // namespace trickbench
