// The record written: its JSON (SCHEMA.md section 1), the environment it carries, and the
// log ratios of its rounds. Reading it is result_file_read.cc.
#include "results/result_file.h"

#include <cmath>
#include <set>

#include "common/atomic_file.h"

namespace trickbench {
namespace results {

Json ToJson(const VariantCheck& v) {
  Json counters = Json::object();
  for (const auto& [k, value] : v.counters) counters[k] = value;  // non-finite: null
  return {{"name", v.name},
          {"equivalent", v.equivalent},
          {"max_abs_diff", v.max_abs_diff},
          {"max_rel_diff", v.max_rel_diff},
          {"equivalence_detail", v.equivalence_detail},
          {"active", v.active},
          {"inactive_reason", v.inactive_reason},
          {"setup_bytes", v.setup_bytes},
          {"peak_bytes", v.peak_bytes},
          {"run_peak_bytes", v.run_peak_bytes},
          {"allocations", v.allocations},
          {"items_per_run", v.items_per_run},
          {"counters", counters}};
}

namespace {

Json ReproducibilityJson(const Reproducibility& r) {
  Json j = {{"checked", r.checked}};
  if (r.checked) j["variant"] = r.variant;
  j["bitwise_reproducible"] = r.bitwise_reproducible;
  j["fingerprint"] = r.fingerprint;
  j["detail"] = r.detail;
  if (r.checked) {
    Json cases = Json::array();
    for (const ReproducibilityCase& c : r.cases) {
      Json row = {{"case", c.case_name}, {"bitwise_reproducible", c.bitwise_reproducible}};
      if (c.error.empty()) row["fingerprint"] = c.fingerprint;
      if (!c.first_difference.empty()) row["first_difference"] = c.first_difference;
      if (!c.error.empty()) row["error"] = c.error;
      cases.push_back(std::move(row));
    }
    j["cases"] = std::move(cases);
  }
  return j;
}

// Samples as columns (one array per field): a trick with 4 cases x 3 variants x 12
// rounds has 144 samples, and a row object per sample would triple the file.
Json CaseRoundsJson(const CaseRounds& c) {
  Json cols = Json::object();
  auto column = [&](const char* name, auto get) {
    Json a = Json::array();
    for (const RoundSample& s : c.samples) a.push_back(get(s));
    cols[name] = std::move(a);
  };
  column("round", [](const RoundSample& s) { return s.round; });
  column("position", [](const RoundSample& s) { return s.position; });
  column("variant", [](const RoundSample& s) { return s.variant; });
  column("start_seconds", [](const RoundSample& s) { return s.start_seconds; });
  column("iterations", [](const RoundSample& s) { return s.iterations; });
  column("ns_per_iteration", [](const RoundSample& s) { return s.ns_per_iteration; });
  column("host_ns_per_iteration", [](const RoundSample& s) { return s.host_ns_per_iteration; });
  column("cpu_ns_per_iteration", [](const RoundSample& s) { return s.cpu_ns_per_iteration; });
  column("involuntary_switches", [](const RoundSample& s) { return s.involuntary_switches; });
  column("voluntary_switches", [](const RoundSample& s) { return s.voluntary_switches; });
  column("minor_faults_per_iteration",
         [](const RoundSample& s) { return s.minor_faults_per_iteration; });
  column("steal_seconds", [](const RoundSample& s) { return s.steal_seconds; });
  column("probe_ns", [](const RoundSample& s) { return s.probe_ns; });
  return {{"case", c.case_name},
          {"order_seed", c.order_seed},
          {"iterations", c.iterations},
          {"samples", std::move(cols)}};
}

}  // namespace

Json ToJson(const Expectation& e) {
  Json j = {{"metric", e.metric}, {"lowers", e.lowers},   {"low", e.low},        {"high", e.high},
            {"device", e.device}, {"variant", e.variant}, {"case", e.case_name}, {"note", e.note}};
  if (!e.measured_by.empty()) j["measured_by"] = e.measured_by;
  if (!e.work.empty()) j["work"] = e.work;
  return j;
}

namespace {

Json TrickResultJson(const TrickResult& t) {
  Json settings = {{"threads", t.settings.threads}, {"min_time", t.settings.min_time},
                   {"seed", t.settings.seed},       {"check_steps", t.settings.check_steps},
                   {"timing", t.settings.timing},   {"rounds", t.settings.rounds},
                   {"process", t.settings.process}};
  if (!t.settings.plant_variant.empty()) {
    settings["plant"] = {{"variant", t.settings.plant_variant},
                         {"factor", t.settings.plant_factor}};
  }
  if (!t.settings.iterations_from.empty()) settings["iterations_from"] = t.settings.iterations_from;
  for (const auto& [k, v] : t.settings.backend.items()) settings[k] = v;
  Json j = {{"schema_version", kResultSchemaVersion},
            {"id", t.id},
            {"category", t.category},
            {"source", t.source},
            {"claim", t.claim},
            {"expectations",
             [&] {
               Json a = Json::array();
               for (const Expectation& e : t.expectations) a.push_back(ToJson(e));
               return a;
             }()},
            {"needs_cuda", t.needs_cuda},
            {"status", Name(t.status)},
            {"reason", t.reason},
            {"device", t.device},
            {"baseline", t.baseline},
            {"variants", t.variants},
            {"cases", t.cases},
            {"reproduced_variant", t.reproduced_variant},
            {"tolerance",
             {{"rtol", t.tolerance.rtol},
              {"atol", t.tolerance.atol},
              {"bitwise", t.tolerance.bitwise()}}},
            {"settings", settings},
            {"nvtx", t.nvtx}};
  if (t.checks) {
    Json cases = Json::array();
    for (const CaseChecks& c : *t.checks) {
      Json variants = Json::array();
      for (const VariantCheck& v : c.variants) variants.push_back(ToJson(v));
      cases.push_back({{"case", c.case_name}, {"variants", variants}});
    }
    j["checks"] = std::move(cases);
    if (t.checks_memory_only) j["checks_memory_only"] = true;
  }
  if (t.reproducibility) j["reproducibility"] = ReproducibilityJson(*t.reproducibility);
  if (t.phase_seconds) j["phase_seconds"] = ToJson(*t.phase_seconds);
  if (!t.rounds.empty()) {
    Json cases = Json::array();
    for (const CaseRounds& c : t.rounds) cases.push_back(CaseRoundsJson(c));
    j["rounds"] = std::move(cases);
  }
  return j;
}

}  // namespace

std::vector<double> CaseRounds::LogRatios(int variant) const {
  std::map<int, double> base, other;
  for (const RoundSample& s : samples) {
    if (s.variant == 0) base[s.round] = s.ns_per_iteration;
    if (s.variant == variant) other[s.round] = s.ns_per_iteration;
  }
  std::vector<double> out;
  for (const auto& [round, ns] : base) {
    const auto it = other.find(round);
    if (it != other.end()) out.push_back(std::log(ns / it->second));
  }
  return out;
}

std::vector<const RoundSample*> CaseRounds::Of(int variant) const {
  std::vector<const RoundSample*> out;
  for (const RoundSample& s : samples) {
    if (s.variant == variant) out.push_back(&s);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RoundSample* a, const RoundSample* b) { return a->round < b->round; });
  return out;
}

Json ResultFile::ToJson() const {
  return {{"context", context}, {"trickbench", TrickResultJson(trickbench)}};
}

ContextKind KindOfContextKey(const std::string& key) {
  static const std::set<std::string> kRunKeys = {"executable", "date",          "caches",
                                                 "load_avg",   "trickbench_id", "profiles"};
  static const std::set<std::string> kHostKeys = {"host_name", "mhz_per_cpu"};
  if (kRunKeys.count(key)) return ContextKind::kRun;
  if (kHostKeys.count(key)) return ContextKind::kHost;
  return ContextKind::kEnvironment;
}

std::map<std::string, std::string> Environment(const ResultFile& result) {
  std::map<std::string, std::string> env;
  for (const auto& [k, v] : result.context.items()) {
    if (KindOfContextKey(k) == ContextKind::kRun) continue;
    env[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  return env;
}

bool WriteResultFile(const std::string& path, const ResultFile& result, std::string* error) {
  return WriteFileAtomically(path, result.ToJson().dump(2) + "\n", error);
}

}  // namespace results
}  // namespace trickbench
