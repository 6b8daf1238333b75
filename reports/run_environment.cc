#include "reports/run_environment.h"

#include <algorithm>
#include <set>

namespace trickbench {
namespace reports {
namespace {

// The files of each trick, tricks in the order of their first file.
std::vector<std::vector<const FileEnvironment*>> ByTrick(
    const std::vector<FileEnvironment>& files) {
  std::vector<std::vector<const FileEnvironment*>> groups;
  std::map<std::string, size_t> slot;
  for (const FileEnvironment& f : files) {
    const auto [it, fresh] = slot.emplace(f.trick, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(&f);
  }
  return groups;
}

// The entry of `values` for `value`, added with `fresh` at the end when missing: a map
// that keeps the order values were first seen in (ties go to the first).
template <typename T>
T& Slot(std::vector<std::pair<std::string, T>>* values, const std::string& value, T fresh) {
  for (auto& [v, slot] : *values) {
    if (v == value) return slot;
  }
  values->emplace_back(value, std::move(fresh));
  return values->back().second;
}

// Each value `key` has among a trick's files, first seen first, with their processes.
std::vector<std::pair<std::string, std::vector<int>>> ValuesOf(
    const std::vector<const FileEnvironment*>& group, const std::string& key) {
  std::vector<std::pair<std::string, std::vector<int>>> values;
  for (const FileEnvironment* f : group) {
    const auto it = f->environment.find(key);
    if (it != f->environment.end())
      Slot(&values, it->second, std::vector<int>{}).push_back(f->process);
  }
  return values;
}

// "alpha (processes 1, 3)", or "alpha" for a trick with one file.
std::string Who(const std::string& trick, const std::vector<int>& processes, size_t files) {
  if (files < 2) return trick;
  std::string list;
  for (int p : processes) list += (list.empty() ? "" : ", ") + std::to_string(p);
  return trick + (processes.size() > 1 ? " (processes " : " (process ") + list + ")";
}

}  // namespace

void ReconcileEnvironments(const std::vector<FileEnvironment>& files, Report* report) {
  const auto groups = ByTrick(files);
  std::set<std::string> keys;
  for (const FileEnvironment& f : files) {
    for (const auto& [k, v] : f.environment) {
      if (results::KindOfContextKey(k) != results::ContextKind::kHost) {
        keys.insert(k);
      } else {
        report->environment.emplace(k, v);  // the first file's; these differ by design
      }
    }
  }
  for (const std::string& key : keys) {
    // Per trick, each value its files record, first seen first, with their processes.
    std::vector<std::vector<std::pair<std::string, std::vector<int>>>> per_trick;
    for (const auto& group : groups) per_trick.push_back(ValuesOf(group, key));
    // The run's value: most tricks' (each votes with its first file that has the key).
    std::vector<std::pair<std::string, int>> votes;  // in the order first seen
    for (const auto& values : per_trick) {
      if (!values.empty()) ++Slot(&votes, values.front().first, 0);
    }
    const std::string run_value =
        std::max_element(votes.begin(), votes.end(), [](const auto& a, const auto& b) {
          return a.second < b.second;
        })->first;
    report->environment[key] = run_value;
    for (size_t g = 0; g < groups.size(); ++g) {
      const auto& values = per_trick[g];
      const std::string& trick = groups[g].front()->trick;
      if (values.size() == 1 && values[0].first != run_value) {
        const auto t = std::find_if(report->tricks.begin(), report->tricks.end(),
                                    [&](const TrickReport& x) { return x.id == trick; });
        if (t != report->tricks.end()) {
          t->process_notes.push_back("set its own environment" +
                                     std::string(groups[g].size() > 1 ? " in every process" : "") +
                                     ": " + key + "=" + values[0].first +
                                     " (the run's: " + run_value + ")");
        }
        continue;
      }
      if (values.size() < 2) continue;
      for (const auto& [value, processes] : values) {
        if (value == run_value) continue;
        report->environment_notes.push_back(Who(trick, processes, groups[g].size()) + ": " + key +
                                            "=" + value + " (the run's: " + run_value + ")");
      }
    }
  }
}

}  // namespace reports
}  // namespace trickbench
