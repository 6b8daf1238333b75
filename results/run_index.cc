#include "results/run_index.h"

#include <set>

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
                       {"log", t.log}});
  }
  return {{"schema_version", kIndexSchemaVersion},
          {"kind", kIndexKind},
          {"started", started},
          {"finished", finished ? Json(*finished) : Json(nullptr)},
          {"complete", complete},
          {"interrupted_by", interrupted_by ? Json(*interrupted_by) : Json(nullptr)},
          {"out_dir", out_dir},
          {"timeout_seconds", timeout_seconds},
          {"forwarded_flags", forwarded_flags},
          {"tricks", entries}};
}

RunIndex RunIndex::FromJson(const Json& j, const std::string& file) {
  const Fields f(file);
  if (!j.is_object()) f.Fail("", "expected a JSON object, got " + TypeName(j));
  if (f.String(j, "", "kind") != kIndexKind) {
    f.Fail("kind", "expected \"" + std::string(kIndexKind) + "\"");
  }
  f.Version(j, "", kOldestReadableIndexSchemaVersion, kIndexSchemaVersion);
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
  const Json& tricks = f.Array(j, "", "tricks");
  std::set<std::string> ids;
  for (size_t i = 0; i < tricks.size(); ++i) {
    const std::string path = JsonPath("tricks", i);
    const Json& t = tricks[i];
    IndexEntry e;
    e.id = f.String(t, path, "id");
    if (e.id.empty()) f.Fail(JsonPath(path, "id"), "empty");
    if (!ids.insert(e.id).second) f.Fail(JsonPath(path, "id"), "duplicate trick id " + e.id);
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

}  // namespace results
}  // namespace trickbench
