#include "results/phases.h"

#include <utility>

namespace trickbench {
namespace results {

PhaseSeconds& PhaseSeconds::operator+=(const PhaseSeconds& o) {
  checks += o.checks;
  reproducibility += o.reproducibility;
  rounds_setup += o.rounds_setup;
  rounds += o.rounds;
  return *this;
}

Json ToJson(const PhaseSeconds& p) {
  return {{"checks", p.checks},
          {"reproducibility", p.reproducibility},
          {"rounds_setup", p.rounds_setup},
          {"rounds", p.rounds}};
}

PhaseSeconds PhaseSecondsFromJson(const Fields& f, const Json& j, const std::string& path) {
  if (!j.is_object()) f.Fail(path, "expected an object, got " + TypeName(j));
  PhaseSeconds out;
  for (auto [key, field] : {std::pair<const char*, double*>{"checks", &out.checks},
                            {"reproducibility", &out.reproducibility},
                            {"rounds_setup", &out.rounds_setup},
                            {"rounds", &out.rounds}}) {
    *field = f.Number(j, path, key);
    if (!(*field >= 0)) f.Fail(JsonPath(path, key), "negative (a duration in seconds)");
  }
  return out;
}

}  // namespace results
}  // namespace trickbench
