#include "reports/session_parts.h"

#include <cmath>

#include "results/checked_json.h"

namespace trickbench {
namespace reports {

const SessionPart* SessionParts::Find(const std::string& trick, const std::string& case_name,
                                      const std::string& variant) const {
  const auto it = by_setting.find({trick, case_name, variant});
  return it == by_setting.end() ? nullptr : &it->second;
}

SessionParts LoadSessionParts(const std::string& path) {
  const results::Json j = results::ReadJsonFile(path);
  const results::Fields f(path);
  if (!j.is_object()) f.Fail("", "expected a noise study (an object), got " + results::TypeName(j));
  if (const std::string kind = f.String(j, "", "kind"); kind != "trickbench-noise-study") {
    f.Fail(
        "kind",
        "expected trickbench-noise-study (noise_study.json of run_all:noise_study), got " + kind);
  }
  f.Version(j, "", 2);
  SessionParts parts;
  parts.source = path;
  const results::Json& settings = f.Array(j, "", "settings");
  for (size_t i = 0; i < settings.size(); ++i) {
    const std::string at = results::JsonPath("settings", i);
    const results::Json& s = settings[i];
    const std::string trick = f.String(s, at, "trick"), case_name = f.String(s, at, "case"),
                      variant = f.String(s, at, "variant");
    const results::Json& between = f.Member(s, at, "between_sessions");
    if (between.is_null()) continue;  // too few sessions to say
    const std::string bat = results::JsonPath(at, "between_sessions");
    SessionPart part;
    part.sd = f.Number(between, bat, "between_sd");
    if (part.sd < 0) f.Fail(results::JsonPath(bat, "between_sd"), "must be >= 0");
    part.sessions = static_cast<int>(f.Int(between, bat, "sessions", 3));
    if (!parts.by_setting.emplace(std::make_tuple(trick, case_name, variant), part).second) {
      f.Fail(at, "the setting " + trick + " " + case_name + "/" + variant + " is listed twice");
    }
  }
  return parts;
}

}  // namespace reports
}  // namespace trickbench
