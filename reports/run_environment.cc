#include "reports/run_environment.h"

#include <algorithm>
#include <set>

namespace trickbench {
namespace reports {
namespace {

// The files of each trick, tricks in the order of their first file.
std::vector<std::vector<const FileEnvironment*>> ByTrick(const std::vector<FileEnvironment>& files) {
  std::vector<std::vector<const FileEnvironment*>> groups;
  std::map<std::string, size_t> slot;
  for (const FileEnvironment& f : files) {
    const auto [it, fresh] = slot.emplace(f.trick, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(&f);
  }
  return groups;
}

const std::string* ValueOf(const FileEnvironment& f, const std::string& key) {
  const auto it = f.environment.find(key);
  return it == f.environment.end() ? nullptr : &it->second;
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
      if (!DescribesOneHost(k)) {
        keys.insert(k);
      } else {
        report->environment.emplace(k, v);  // the first file's; these differ by design
      }
    }
  }
  for (const std::string& key : keys) {
    // The run's value: most tricks' (each votes with its first file that has the key).
    std::vector<std::pair<std::string, int>> votes;  // in the order first seen
    for (const auto& group : groups) {
      for (const FileEnvironment* f : group) {
        const std::string* v = ValueOf(*f, key);
        if (!v) continue;
        auto it = std::find_if(votes.begin(), votes.end(), [&](const auto& p) { return p.first == *v; });
        if (it == votes.end()) {
          votes.emplace_back(*v, 1);
        } else {
          ++it->second;
        }
        break;
      }
    }
    const std::string run_value =
        std::max_element(votes.begin(), votes.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; })
            ->first;
    report->environment[key] = run_value;
    for (const auto& group : groups) {
      std::vector<std::pair<std::string, std::vector<int>>> values;  // value -> processes
      for (const FileEnvironment* f : group) {
        const std::string* v = ValueOf(*f, key);
        if (!v) continue;
        auto it = std::find_if(values.begin(), values.end(), [&](const auto& p) { return p.first == *v; });
        if (it == values.end()) {
          values.push_back({*v, {f->process}});
        } else {
          it->second.push_back(f->process);
        }
      }
      const std::string& trick = group.front()->trick;
      if (values.size() == 1 && values[0].first != run_value) {
        const auto t = std::find_if(report->tricks.begin(), report->tricks.end(),
                                    [&](const Trick& x) { return x.id == trick; });
        if (t != report->tricks.end()) {
          t->process_notes.push_back("set its own environment" +
                                     std::string(group.size() > 1 ? " in every process" : "") +
                                     ": " + key + "=" + values[0].first + " (the run's: " +
                                     run_value + ")");
        }
        continue;
      }
      if (values.size() < 2) continue;
      for (const auto& [value, processes] : values) {
        if (value == run_value) continue;
        report->environment_notes.push_back(Who(trick, processes, group.size()) + ": " + key +
                                            "=" + value + " (the run's: " + run_value + ")");
      }
    }
  }
}

}  // namespace reports
}  // namespace trickbench
