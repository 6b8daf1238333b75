// What a noise study (run_all/noise_study.h) measured of each setting's between-session
// part on this machine, read back from its noise_study.json for compare --noise.
//
//   const SessionParts parts = LoadSessionParts("runs/noise-study-<time>/noise_study.json");
//   const ReportDiff diff = CompareReports(old_report, new_report, rule, &parts);
//   // each setting the study measured: its between_sd added to both sides (stats::WithSessionPart)
//
// Why a file and not a constant: the part is what all processes of one run share (the
// machine's state that hour), so it belongs to the machine and to the setting, and only
// A/A sessions on that machine measure it.
#pragma once

#include <map>
#include <string>
#include <tuple>

namespace trickbench {
namespace reports {

struct SessionPart {
  double sd = 0;     // between_sd: log scale
  int sessions = 0;  // the A/A sessions it was estimated from (degrees of freedom + 1)
};

struct SessionParts {
  std::string source;  // the file it was read from
  // (trick, case, variant) -> part; settings whose study had fewer than 3 sessions (its
  // between_sessions null) are absent.
  std::map<std::tuple<std::string, std::string, std::string>, SessionPart> by_setting;

  const SessionPart* Find(const std::string& trick, const std::string& case_name,
                          const std::string& variant) const;
};

// Reads noise_study.json (kind trickbench-noise-study, schema_version 2). Throws
// results::InputError naming the file and the field for anything else: another kind, a
// missing field, a negative or non-finite sd, fewer than 3 sessions, a setting twice.
SessionParts LoadSessionParts(const std::string& path);

}  // namespace reports
}  // namespace trickbench
