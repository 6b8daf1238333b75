#include "results/budget.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

namespace trickbench {
namespace results {

int AddedProcesses(const RunBudget& b) {
  int sum = 0;
  for (const auto& [id, n] : b.added) sum += n;
  return sum;
}

Json ToJson(const RunBudget& b) {
  Json added = Json::object();
  for (const auto& [id, n] : b.added) added[id] = n;
  Json j = {{"seconds", b.seconds},
            {"rule", b.rule},
            {"first_pass_processes", b.first_pass_processes},
            {"first_pass_seconds", b.first_pass_seconds},
            {"max_processes", b.max_processes},
            {"imprecise_half_width", b.imprecise_half_width},
            {"decision_half_width", b.decision_half_width},
            {"added", added},
            {"left_out", b.left_out}};
  if (b.towards_decision) j["towards_decision"] = *b.towards_decision;
  return j;
}

RunBudget RunBudgetFromJson(const Fields& f, const Json& j, const std::string& path) {
  if (!j.is_object()) f.Fail(path, "expected an object, got " + TypeName(j));
  RunBudget b;
  for (auto [key, field] : {std::pair<const char*, double*>{"seconds", &b.seconds},
                            {"first_pass_seconds", &b.first_pass_seconds},
                            {"imprecise_half_width", &b.imprecise_half_width},
                            {"decision_half_width", &b.decision_half_width}}) {
    *field = f.Number(j, path, key);
    if (!(*field >= 0)) f.Fail(JsonPath(path, key), "negative");
  }
  b.rule = f.String(j, path, "rule");
  // Counts are clamped where an int could not hold them; no run has 2^20 processes.
  const auto count = [&](const Json& obj, const std::string& at, const std::string& key,
                         int64_t lo) {
    return static_cast<int>(std::min<int64_t>(f.Int(obj, at, key, lo), 1 << 20));
  };
  b.first_pass_processes = count(j, path, "first_pass_processes", 1);
  b.max_processes = count(j, path, "max_processes", 1);
  b.left_out = count(j, path, "left_out", 0);
  const Json& added = f.Object(j, path, "added");
  const std::string added_path = JsonPath(path, "added");
  for (auto it = added.begin(); it != added.end(); ++it) {
    b.added[it.key()] = count(added, added_path, it.key(), 0);
  }
  if (f.Has(j, path, "towards_decision")) {
    b.towards_decision = count(j, path, "towards_decision", 0);
    const int added_in_all = AddedProcesses(b);
    if (*b.towards_decision > added_in_all) {
      f.Fail(JsonPath(path, "towards_decision"),
             std::to_string(*b.towards_decision) + ", more than the " +
                 std::to_string(added_in_all) + " processes `added` holds");
    }
  }
  return b;
}

}  // namespace results
}  // namespace trickbench
