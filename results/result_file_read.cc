// The record read: every field checked, errors naming the file and the field
// (checked_json.h). Writing it is result_file.cc.
#include "results/result_file.h"

#include <algorithm>
#include <limits>
#include <set>

namespace trickbench {
namespace results {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const std::set<std::string>& SettingsKeys() {
  // repetitions and random_interleaving: written until schema 3 for no reader, skipped.
  static const std::set<std::string> keys = {
      "threads", "repetitions", "min_time", "seed",  "check_steps",    "random_interleaving",
      "timing",  "rounds",      "process",  "plant", "iterations_from"};
  return keys;
}

CaseRounds ReadCaseRounds(const Fields& f, const Json& j, const std::string& path, int variants) {
  CaseRounds c;
  c.case_name = f.String(j, path, "case");
  c.order_seed = static_cast<uint64_t>(f.Int(j, path, "order_seed", 0));
  const Json& its = f.Array(j, path, "iterations");
  if (static_cast<int>(its.size()) != variants) {
    f.Fail(JsonPath(path, "iterations"), "expected one count per variant (" +
                                             std::to_string(variants) + "), got " +
                                             std::to_string(its.size()));
  }
  for (size_t i = 0; i < its.size(); ++i) {
    c.iterations.push_back(f.IntAt(its, JsonPath(path, "iterations"), i, 1));
  }
  const std::string spath = JsonPath(path, "samples");
  const Json& cols = f.Object(j, path, "samples");
  const size_t n = f.Array(cols, spath, "round").size();
  auto column = [&](const char* name) -> const Json& {
    const Json& a = f.Array(cols, spath, name);
    if (a.size() != n) {
      f.Fail(JsonPath(spath, name),
             "has " + std::to_string(a.size()) + " values, round has " + std::to_string(n));
    }
    return a;
  };
  const Json &round = column("round"), &position = column("position"), &variant = column("variant"),
             &start = column("start_seconds"), &iterations = column("iterations"),
             &ns = column("ns_per_iteration"), &cpu = column("cpu_ns_per_iteration"),
             &inv = column("involuntary_switches"), &vol = column("voluntary_switches"),
             &faults = column("minor_faults_per_iteration"), &steal = column("steal_seconds");
  // Optional (schema 3): absent in version 2 files.
  const Json* host =
      cols.contains("host_ns_per_iteration") ? &column("host_ns_per_iteration") : nullptr;
  // Optional: absent in files written before the speed probe.
  const Json* probe = cols.contains("probe_ns") ? &column("probe_ns") : nullptr;
  for (size_t i = 0; i < n; ++i) {
    RoundSample s;
    auto at = [&](const char* name) { return JsonPath(JsonPath(spath, name), i); };
    s.round = static_cast<int>(f.IntAt(round, JsonPath(spath, "round"), i, 0, INT32_MAX));
    s.position =
        static_cast<int>(f.IntAt(position, JsonPath(spath, "position"), i, 0, variants - 1));
    s.variant = static_cast<int>(f.IntAt(variant, JsonPath(spath, "variant"), i, 0, variants - 1));
    s.start_seconds = f.NumberAt(start, JsonPath(spath, "start_seconds"), i);
    s.iterations = f.IntAt(iterations, JsonPath(spath, "iterations"), i, 1);
    s.ns_per_iteration = f.NumberAt(ns, JsonPath(spath, "ns_per_iteration"), i);
    if (!(s.ns_per_iteration > 0)) {
      f.Fail(at("ns_per_iteration"), "not a positive time (a ratio needs positive times)");
    }
    s.cpu_ns_per_iteration = f.NumberAt(cpu, JsonPath(spath, "cpu_ns_per_iteration"), i);
    if (host)
      s.host_ns_per_iteration = f.NumberAt(*host, JsonPath(spath, "host_ns_per_iteration"), i);
    s.involuntary_switches = f.IntAt(inv, JsonPath(spath, "involuntary_switches"), i, 0);
    s.voluntary_switches = f.IntAt(vol, JsonPath(spath, "voluntary_switches"), i, 0);
    s.minor_faults_per_iteration =
        f.NumberAt(faults, JsonPath(spath, "minor_faults_per_iteration"), i);
    s.steal_seconds = f.NumberAt(steal, JsonPath(spath, "steal_seconds"), i);
    if (probe) {
      s.probe_ns = f.NumberAt(*probe, JsonPath(spath, "probe_ns"), i);
      if (s.probe_ns < 0) f.Fail(at("probe_ns"), "a negative time");
    }
    c.samples.push_back(s);
  }
  return c;
}

Expectation ExpectationFromJson(const Fields& f, const Json& j, const std::string& path) {
  Expectation e;
  e.metric = f.String(j, path, "metric");
  if (e.metric.empty()) f.Fail(JsonPath(path, "metric"), "empty");
  e.lowers = f.Bool(j, path, "lowers");
  e.low = f.Number(j, path, "low");
  e.high = f.Number(j, path, "high");
  if (e.low < 0 || e.high < 0 || (e.high > 0 && e.high < e.low)) {
    f.Fail(path, "claimed range [" + std::to_string(e.low) + ", " + std::to_string(e.high) +
                     "] is not a range of factors (0 <= low <= high, high 0 for none)");
  }
  e.device = f.String(j, path, "device");
  e.variant = f.String(j, path, "variant");
  e.case_name = f.String(j, path, "case");
  e.note = f.String(j, path, "note");
  // Optional (added with rates and measured counters): absent reads as "".
  if (j.contains("measured_by")) e.measured_by = f.String(j, path, "measured_by");
  if (j.contains("work")) e.work = f.String(j, path, "work");
  if (e.metric == "rate" && e.work.empty()) {
    f.Fail(JsonPath(path, "work"), "a rate claim names the counter of work it is a rate of");
  }
  return e;
}

}  // namespace

std::vector<Expectation> ExpectationsFromJson(const Fields& f, const Json& object,
                                              const std::string& path) {
  const Json& es = f.Array(object, path, "expectations");
  std::vector<Expectation> out;
  for (size_t i = 0; i < es.size(); ++i) {
    out.push_back(ExpectationFromJson(f, es[i], JsonPath(JsonPath(path, "expectations"), i)));
  }
  return out;
}

namespace {

Reproducibility ReadReproducibility(const Fields& f, const Json& tb) {
  const std::string path = "trickbench.reproducibility";
  const Json& r = f.Object(tb, "trickbench", "reproducibility");
  Reproducibility rep;
  rep.checked = f.Bool(r, path, "checked");
  // Result files from before these fields were fixed omit them when nothing was checked.
  if (rep.checked || r.contains("bitwise_reproducible")) {
    rep.bitwise_reproducible = f.Bool(r, path, "bitwise_reproducible");
  }
  if (rep.checked || r.contains("fingerprint")) rep.fingerprint = f.String(r, path, "fingerprint");
  rep.detail = f.String(r, path, "detail");
  if (r.contains("variant")) rep.variant = f.String(r, path, "variant");
  if (r.contains("cases")) {
    const Json& cases = f.Array(r, path, "cases");
    for (size_t i = 0; i < cases.size(); ++i) {
      const std::string cpath = JsonPath(JsonPath(path, "cases"), i);
      ReproducibilityCase c;
      c.case_name = f.String(cases[i], cpath, "case");
      c.bitwise_reproducible = f.Bool(cases[i], cpath, "bitwise_reproducible");
      if (f.Has(cases[i], cpath, "fingerprint"))
        c.fingerprint = f.String(cases[i], cpath, "fingerprint");
      if (cases[i].contains("first_difference")) {
        c.first_difference = f.String(cases[i], cpath, "first_difference");
      }
      if (cases[i].contains("error")) c.error = f.String(cases[i], cpath, "error");
      rep.cases.push_back(std::move(c));
    }
  }
  return rep;
}

}  // namespace

VariantCheck VariantCheckFromJson(const Fields& f, const Json& v, const std::string& path) {
  VariantCheck c;
  c.name = f.String(v, path, "name");
  c.equivalent = f.Bool(v, path, "equivalent");
  c.max_abs_diff = f.NumberOrNull(v, path, "max_abs_diff", kInfinity);
  c.max_rel_diff = f.NumberOrNull(v, path, "max_rel_diff", kInfinity);
  c.equivalence_detail = f.String(v, path, "equivalence_detail");
  c.active = f.Bool(v, path, "active");
  c.inactive_reason = f.String(v, path, "inactive_reason");
  if (v.contains("setup_bytes")) c.setup_bytes = f.Int(v, path, "setup_bytes");
  c.peak_bytes = f.Int(v, path, "peak_bytes", 0);
  c.run_peak_bytes = f.Int(v, path, "run_peak_bytes");
  c.allocations = f.Int(v, path, "allocations", 0);
  if (v.contains("items_per_run")) c.items_per_run = f.Int(v, path, "items_per_run", 0);
  if (v.contains("counters")) {
    const std::string cpath = JsonPath(path, "counters");
    const Json& counters = f.Object(v, path, "counters");
    for (const auto& [k, value] : counters.items()) {
      c.counters[k] = f.NumberOrNull(counters, cpath, k, kNaN);
    }
  }
  return c;
}

ResultFile ResultFile::FromJson(const Json& j, const std::string& file) {
  const Fields f(file);
  if (!j.is_object()) f.Fail("", "expected a JSON object, got " + TypeName(j));
  if (!j.contains("trickbench") && j.contains("benchmarks")) {
    f.Fail("trickbench", kGoogleBenchmarkFileMessage);
  }
  ResultFile r;
  r.context = f.Object(j, "", "context");
  // A version 2 file's Google Benchmark entries repeat its rounds: not read.
  const Json& tb = f.Object(j, "", "trickbench");
  const std::string tpath = "trickbench";
  if (tb.contains("schema_version") && tb["schema_version"] == 1) {
    f.Fail("trickbench.schema_version",
           "1: a file from before paired rounds (Google Benchmark repetitions), which this build "
           "no longer reads; rerun the trick with this build (bazel run //benches:<id>, or "
           "bazel run //benches:run_all) to measure it again");
  }
  f.Version(tb, tpath, kOldestReadableResultSchemaVersion, kResultSchemaVersion);
  TrickResult& t = r.trickbench;
  t.id = f.String(tb, tpath, "id");
  if (t.id.empty()) f.Fail("trickbench.id", "empty");
  t.category = f.String(tb, tpath, "category");
  t.source = f.String(tb, tpath, "source");
  t.claim = f.String(tb, tpath, "claim");
  if (tb.contains("expectations")) {
    t.has_expectations = true;
    t.expectations = ExpectationsFromJson(f, tb, tpath);
  }
  if (tb.contains("needs_cuda")) t.needs_cuda = f.Bool(tb, tpath, "needs_cuda");
  const std::string status = f.String(tb, tpath, "status");
  const auto parsed = ParseResultStatus(status);
  if (!parsed) f.Fail("trickbench.status", "unknown status '" + status + "'");
  t.status = *parsed;
  t.reason = f.String(tb, tpath, "reason");
  t.device = f.String(tb, tpath, "device");
  t.reproduced_variant = f.String(tb, tpath, "reproduced_variant");
  t.baseline = f.String(tb, tpath, "baseline");
  t.variants = f.Strings(tb, tpath, "variants");
  if (t.variants.size() < 2) f.Fail("trickbench.variants", "needs a baseline and another variant");
  if (t.variants.front() != t.baseline) f.Fail("trickbench.baseline", "is not the first variant");
  t.cases = f.Strings(tb, tpath, "cases");

  const Json& tol = f.Object(tb, tpath, "tolerance");
  t.tolerance.rtol = f.Number(tol, "trickbench.tolerance", "rtol");
  t.tolerance.atol = f.Number(tol, "trickbench.tolerance", "atol");
  // Written for readers of the JSON alone; the figures decide, and must agree with it.
  if (f.Bool(tol, "trickbench.tolerance", "bitwise") != t.tolerance.bitwise()) {
    f.Fail("trickbench.tolerance.bitwise",
           std::string("is ") + (t.tolerance.bitwise() ? "false" : "true") + " but rtol and atol " +
               (t.tolerance.bitwise() ? "are both 0" : "are not both 0"));
  }

  const std::string spath = "trickbench.settings";
  const Json& settings = f.Object(tb, tpath, "settings");
  Settings& s = t.settings;
  s.threads = static_cast<int>(std::min<int64_t>(f.Int(settings, spath, "threads", 0), INT32_MAX));
  s.min_time = f.Number(settings, spath, "min_time");
  s.seed = static_cast<uint64_t>(f.Int(settings, spath, "seed", 0));
  if (settings.contains("check_steps")) {
    s.check_steps =
        static_cast<int>(std::min<int64_t>(f.Int(settings, spath, "check_steps", 0), INT32_MAX));
  }
  if (settings.contains("timing")) s.timing = f.String(settings, spath, "timing");
  if (settings.contains("rounds")) {
    s.rounds = static_cast<int>(std::min<int64_t>(f.Int(settings, spath, "rounds", 0), INT32_MAX));
  }
  if (settings.contains("process")) {
    s.process =
        static_cast<int>(std::min<int64_t>(f.Int(settings, spath, "process", 0), INT32_MAX));
  }
  if (settings.contains("plant")) {
    const std::string ppath = JsonPath(spath, "plant");
    const Json& plant = f.Object(settings, spath, "plant");
    s.plant_variant = f.String(plant, ppath, "variant");
    s.plant_factor = f.Number(plant, ppath, "factor");
    if (!(s.plant_factor >= 1)) f.Fail(JsonPath(ppath, "factor"), "below 1 (a plant only slows)");
  }
  if (settings.contains("iterations_from")) {
    s.iterations_from = f.String(settings, spath, "iterations_from");
  }
  for (const auto& [k, v] : settings.items()) {
    if (!SettingsKeys().count(k)) s.backend[k] = v;
  }
  if (tb.contains("nvtx")) t.nvtx = f.Bool(tb, tpath, "nvtx");
  if (tb.contains("checks_memory_only")) {
    t.checks_memory_only = f.Bool(tb, tpath, "checks_memory_only");
  }
  if (tb.contains("reproducibility")) t.reproducibility = ReadReproducibility(f, tb);
  if (tb.contains("phase_seconds")) {
    t.phase_seconds = PhaseSecondsFromJson(f, f.Object(tb, tpath, "phase_seconds"),
                                           JsonPath(tpath, "phase_seconds"));
  }

  const bool ok = t.status == ResultStatus::kOk;
  if (tb.contains("rounds")) {
    const Json& rounds = f.Array(tb, tpath, "rounds");
    for (size_t i = 0; i < rounds.size(); ++i) {
      t.rounds.push_back(ReadCaseRounds(f, rounds[i], JsonPath("trickbench.rounds", i),
                                        static_cast<int>(t.variants.size())));
    }
  }
  if (ok && t.rounds.size() != t.cases.size()) {
    f.Fail("trickbench.rounds", "expected one entry per case (" + std::to_string(t.cases.size()) +
                                    "), got " + std::to_string(t.rounds.size()));
  }
  for (size_t i = 0; i < t.rounds.size() && i < t.cases.size(); ++i) {
    if (t.rounds[i].case_name != t.cases[i]) {
      f.Fail(JsonPath(JsonPath("trickbench.rounds", i), "case"),
             "is '" + t.rounds[i].case_name + "' but trickbench.cases[" + std::to_string(i) +
                 "] is '" + t.cases[i] + "' (rounds come in the order of cases)");
    }
    if (ok && t.rounds[i].samples.empty()) {
      f.Fail(JsonPath(JsonPath("trickbench.rounds", i), "samples"),
             "empty (status is ok, so there must be timings)");
    }
  }

  // Every status whose run got as far as the checks must carry them. A check pairs with
  // its samples by index: checks[c].variants[v] is trickbench.variants[v] in case c.
  const bool needs_checks =
      ok || t.status == ResultStatus::kChecked || t.status == ResultStatus::kInvalid;
  if (needs_checks || tb.contains("checks")) {
    const Json& cases = f.Array(tb, tpath, "checks");
    if (cases.empty() && needs_checks) f.Fail("trickbench.checks", "empty");
    t.checks.emplace();
    for (size_t ci = 0; ci < cases.size(); ++ci) {
      const std::string cpath = JsonPath("trickbench.checks", ci);
      CaseChecks cc;
      cc.case_name = f.String(cases[ci], cpath, "case");
      if (ci >= t.cases.size() || cc.case_name != t.cases[ci]) {
        f.Fail(JsonPath(cpath, "case"), "is '" + cc.case_name + "', not trickbench.cases[" +
                                            std::to_string(ci) +
                                            "] (checks come in the order of cases)");
      }
      const Json& vs = f.Array(cases[ci], cpath, "variants");
      if (vs.size() != t.variants.size()) {
        f.Fail(JsonPath(cpath, "variants"), "has " + std::to_string(vs.size()) +
                                                " entries; trickbench.variants has " +
                                                std::to_string(t.variants.size()));
      }
      for (size_t vi = 0; vi < vs.size(); ++vi) {
        const std::string vpath = JsonPath(JsonPath(cpath, "variants"), vi);
        VariantCheck v = VariantCheckFromJson(f, vs[vi], vpath);
        if (v.name != t.variants[vi]) {
          f.Fail(JsonPath(vpath, "name"), "is '" + v.name + "' but trickbench.variants[" +
                                              std::to_string(vi) + "] is '" + t.variants[vi] + "'");
        }
        cc.variants.push_back(std::move(v));
      }
      t.checks->push_back(std::move(cc));
    }
  }
  return r;
}

ResultFile ReadResultFile(const std::string& path) {
  return ResultFile::FromJson(ReadJsonFile(path), path);
}

}  // namespace results
}  // namespace trickbench
