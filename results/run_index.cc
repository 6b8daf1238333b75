#include "results/run_index.h"

#include <algorithm>
#include <set>
#include <utility>

#include "common/atomic_file.h"

namespace trickbench {
namespace results {

Json RunIndex::ToJson() const {
  Json entries = Json::array();
  for (const IndexEntry& t : tricks) {
    entries.push_back({{"id", t.id},
                       {"outcome", Name(t.outcome)},
                       {"reason", t.reason},
                       {"exit_code", t.exit_code},
                       {"seconds", t.seconds},
                       {"result", t.result ? Json(*t.result) : Json(nullptr)},
                       {"log", t.log},
                       {"process", t.process}});
    if (t.phase_seconds) entries.back()["phase_seconds"] = results::ToJson(*t.phase_seconds);
    if (t.forked) entries.back()["forked"] = true;
  }
  Json j = {{"schema_version", kIndexSchemaVersion},
            {"kind", kIndexKind},
            {"started", started},
            {"finished", finished ? Json(*finished) : Json(nullptr)},
            {"complete", complete},
            {"interrupted_by", interrupted_by ? Json(*interrupted_by) : Json(nullptr)},
            {"out_dir", out_dir},
            {"timeout_seconds", timeout_seconds},
            {"forwarded_flags", forwarded_flags},
            {"processes", processes},
            {"machine",
             {{"load_start", machine.load_start},
              {"load_end", machine.load_end},
              {"steal_seconds", machine.steal_seconds},
              {"involuntary_switches", machine.involuntary_switches}}}};
  if (ab) {
    j["ab"] = {{"seed", ab->seed},
               {"role", ab->role},
               {"old_bin_dir", ab->old_bin_dir},
               {"new_bin_dir", ab->new_bin_dir},
               {"order", ab->order}};
  }
  if (budget) j["budget"] = results::ToJson(*budget);
  j["tricks"] = entries;
  return j;
}

namespace {

bool IsAbRole(const std::string& s) { return s == kAbOld || s == kAbNew; }

// -1 (unknown) or a value >= 0.
double Measured(const Fields& f, const Json& obj, const std::string& path, const std::string& key) {
  const double v = f.Number(obj, path, key);
  if (v < 0 && v != -1) f.Fail(JsonPath(path, key), "negative (only -1, unknown, may be)");
  return v;
}

MachineState ReadMachine(const Fields& f, const Json& j) {
  const Json& m = f.Object(j, "", "machine");
  MachineState out;
  out.load_start = Measured(f, m, "machine", "load_start");
  out.load_end = Measured(f, m, "machine", "load_end");
  out.steal_seconds = Measured(f, m, "machine", "steal_seconds");
  out.involuntary_switches = f.Int(m, "machine", "involuntary_switches", -1);
  return out;
}

AbSession ReadAb(const Fields& f, const Json& j) {
  const Json& a = f.Object(j, "", "ab");
  AbSession ab;
  ab.seed = f.Int(a, "ab", "seed", 0);
  ab.role = f.String(a, "ab", "role");
  if (!IsAbRole(ab.role)) f.Fail("ab.role", "expected \"old\" or \"new\", got '" + ab.role + "'");
  ab.old_bin_dir = f.String(a, "ab", "old_bin_dir");
  ab.new_bin_dir = f.String(a, "ab", "new_bin_dir");
  ab.order = f.Strings(a, "ab", "order");
  for (size_t i = 0; i < ab.order.size(); ++i) {
    if (!IsAbRole(ab.order[i])) {
      f.Fail(JsonPath("ab.order", i), "expected \"old\" or \"new\", got '" + ab.order[i] + "'");
    }
  }
  return ab;
}

}  // namespace

RunIndex RunIndex::FromJson(const Json& j, const std::string& file) {
  const Fields f(file);
  if (!j.is_object()) f.Fail("", "expected a JSON object, got " + TypeName(j));
  if (f.String(j, "", "kind") != kIndexKind) {
    f.Fail("kind", "expected \"" + std::string(kIndexKind) + "\"");
  }
  const int version = f.Version(j, "", kOldestReadableIndexSchemaVersion, kIndexSchemaVersion);
  // Before version 3 every trick ran once: one process, machine and A/B unknown.
  const bool per_process = version >= 3;
  RunIndex index;
  index.started = f.String(j, "", "started");
  // Older writers left it out or null while running; anything but a string is "not yet".
  if (j.contains("finished") && j["finished"].is_string()) {
    index.finished = j["finished"].get<std::string>();
  }
  index.complete = f.Bool(j, "", "complete");
  if (f.Has(j, "", "interrupted_by") && !j["interrupted_by"].is_null()) {
    index.interrupted_by = f.String(j, "", "interrupted_by");
  }
  if (f.Has(j, "", "out_dir")) index.out_dir = f.String(j, "", "out_dir");
  if (f.Has(j, "", "timeout_seconds")) index.timeout_seconds = f.Number(j, "", "timeout_seconds");
  index.forwarded_flags = f.Strings(j, "", "forwarded_flags");
  if (per_process) {
    index.processes = static_cast<int>(std::min<int64_t>(f.Int(j, "", "processes", 1), 1 << 20));
    index.machine = ReadMachine(f, j);
    if (f.Has(j, "", "ab") && !j["ab"].is_null()) index.ab = ReadAb(f, j);
    if (f.Has(j, "", "budget") && !j["budget"].is_null()) {
      index.budget = RunBudgetFromJson(f, f.Member(j, "", "budget"), "budget");
    }
  }
  const Json& tricks = f.Array(j, "", "tricks");
  std::set<std::pair<std::string, int>> seen;
  for (size_t i = 0; i < tricks.size(); ++i) {
    const std::string path = JsonPath("tricks", i);
    const Json& t = tricks[i];
    IndexEntry e;
    e.id = f.String(t, path, "id");
    if (e.id.empty()) f.Fail(JsonPath(path, "id"), "empty");
    if (per_process) {
      const int64_t process = f.Int(t, path, "process", 1);
      if (process > index.processes) {
        f.Fail(JsonPath(path, "process"), "process " + std::to_string(process) +
                                              " but processes is " +
                                              std::to_string(index.processes));
      }
      e.process = static_cast<int>(process);
    }
    if (!seen.insert({e.id, e.process}).second) {
      f.Fail(per_process ? JsonPath(path, "process") : JsonPath(path, "id"),
             per_process ? "duplicate process " + std::to_string(e.process) + " of trick " + e.id
                         : "duplicate trick id " + e.id);
    }
    const std::string outcome = f.String(t, path, "outcome");
    const auto parsed = ParseRunOutcome(outcome);
    if (!parsed) f.Fail(JsonPath(path, "outcome"), "unknown outcome '" + outcome + "'");
    e.outcome = *parsed;
    e.reason = f.String(t, path, "reason");
    const Json& result = f.Member(t, path, "result");
    if (result.is_string()) {
      e.result = result.get<std::string>();
    } else if (!result.is_null()) {
      f.Fail(JsonPath(path, "result"), "expected a file name or null, got " + TypeName(result));
    }
    if (f.Has(t, path, "exit_code")) {
      const int64_t code = f.Int(t, path, "exit_code", -1);
      if (code > 255) f.Fail(JsonPath(path, "exit_code"), "out of range: " + std::to_string(code));
      e.exit_code = static_cast<int>(code);
    }
    if (f.Has(t, path, "seconds")) {
      e.seconds = f.Number(t, path, "seconds");
      if (e.seconds < 0) f.Fail(JsonPath(path, "seconds"), "negative time");
    }
    if (f.Has(t, path, "log")) e.log = f.String(t, path, "log");
    if (f.Has(t, path, "phase_seconds")) {
      e.phase_seconds = PhaseSecondsFromJson(f, f.Member(t, path, "phase_seconds"),
                                             JsonPath(path, "phase_seconds"));
    }
    if (f.Has(t, path, "forked")) e.forked = f.Bool(t, path, "forked");
    index.tricks.push_back(std::move(e));
  }
  return index;
}

bool WriteRunIndex(const std::string& path, const RunIndex& index, std::string* error) {
  return WriteFileAtomically(path, index.ToJson().dump(2) + "\n", error);
}

RunIndex ReadRunIndex(const std::string& path) {
  return RunIndex::FromJson(ReadJsonFile(path), path);
}

std::optional<std::string> TimedProcess1Result(const RunIndex& index, const std::string& id) {
  for (const IndexEntry& e : index.tricks) {
    if (e.id == id && e.process == 1 && e.outcome == RunOutcome::kOk && e.result &&
        !e.result->empty()) {
      return e.result;
    }
  }
  return std::nullopt;
}

}  // namespace results
}  // namespace trickbench
