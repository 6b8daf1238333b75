#include "reports/report.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "reports/stats.h"

namespace trickbench {
namespace reports {

using json = nlohmann::ordered_json;
namespace fs = std::filesystem;

InputError::InputError(std::string file, std::string field, const std::string& problem)
    : std::runtime_error(file + ": " + (field.empty() ? "" : field + ": ") + problem),
      file_(std::move(file)),
      field_(std::move(field)) {}

std::string VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kHolds: return "holds";
    case Verdict::kDoesNotHold: return "does not hold here";
    case Verdict::kInconclusive: return "inconclusive";
    case Verdict::kNotApplicable: return "not applicable";
  }
  return "not applicable";
}

Verdict ParseVerdict(const std::string& s) {
  for (Verdict v : {Verdict::kHolds, Verdict::kDoesNotHold, Verdict::kInconclusive,
                    Verdict::kNotApplicable}) {
    if (VerdictName(v) == s) return v;
  }
  throw std::invalid_argument("unknown verdict '" + s + "'");
}

// ---------------------------------------------------------------- formatting

std::string FormatFixed(double v, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

std::string FormatNs(double ns) {
  const double a = std::fabs(ns);
  auto three = [](double v, const char* unit) {
    const int digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
    return FormatFixed(v, digits) + " " + unit;
  };
  if (a >= 1e9) return three(ns / 1e9, "s");
  if (a >= 1e6) return three(ns / 1e6, "ms");
  if (a >= 1e3) return three(ns / 1e3, "us");
  return three(ns, "ns");
}

std::string FormatBytes(int64_t bytes) {
  const double a = std::fabs(static_cast<double>(bytes));
  if (a >= 1024.0 * 1024 * 1024) return FormatFixed(bytes / (1024.0 * 1024 * 1024), 2) + " GiB";
  if (a >= 1024.0 * 1024) return FormatFixed(bytes / (1024.0 * 1024), 2) + " MiB";
  if (a >= 1024.0) return FormatFixed(bytes / 1024.0, 1) + " KiB";
  return std::to_string(bytes) + " B";
}

std::string FormatPercent(double fraction, int digits, bool sign) {
  const double p = fraction * 100;
  std::string s = FormatFixed(p, digits);
  if (s == "-" + FormatFixed(0, digits)) s = FormatFixed(0, digits);
  if (sign && p >= 0 && s[0] != '-') s = "+" + s;
  return s + "%";
}

std::string FormatP(double p) {
  if (p < 0.0001) return "<0.0001";
  return FormatFixed(p, 4);
}

// ---------------------------------------------------------------- claims + verdicts

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ContainsAny(const std::string& text, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    if (text.find(w) != std::string::npos) return true;
  }
  return false;
}

std::string Ratio(double r) { return FormatFixed(r, 2) + "x"; }

void JudgeTime(Comparison* c, int n) {
  const std::string interval = Ratio(c->speedup) + " [" + Ratio(c->ci_low) + ", " +
                               Ratio(c->ci_high) + "], p=" + FormatP(c->p_value);
  const double band_hi = 1 + kNoEffectBand, band_lo = 1 / (1 + kNoEffectBand);
  // Repetitions that would make the interval either exclude 1 or fit inside the
  // no-effect band, assuming its width shrinks as 1/sqrt(n).
  auto settle = [&]() -> std::optional<int> {
    const double h = (std::log(c->ci_high) - std::log(c->ci_low)) / 2;
    const double centre = std::fabs((std::log(c->ci_high) + std::log(c->ci_low)) / 2);
    double best = 1e300;
    if (centre > 0) best = std::min(best, n * std::pow(h / centre, 2));
    const double room = std::log(band_hi) - centre;
    if (room > 0) best = std::min(best, n * std::pow(h / room, 2));
    if (best > kMaxRepetitionsAdvice) return std::nullopt;
    return std::max(n + 1, static_cast<int>(std::ceil(best)));
  };
  const bool settled = (c->significant && (c->ci_low > 1 || c->ci_high < 1)) ||
                       (c->ci_low >= band_lo && c->ci_high <= band_hi);
  if (c->noisy) {
    c->verdict = Verdict::kInconclusive;
    c->verdict_detail = "noisy (relative IQR above " + FormatPercent(kNoiseThreshold, 0, false) +
                        "): " + interval + " is not a finding";
    if (settled) {
      // More repetitions do not lower the spread: only a quieter machine helps.
      c->verdict_detail += "; the interval is clear, the spread is not: re-run on a quiet machine";
      return;
    }
    c->repetitions_to_settle = settle();
  } else if (c->significant && c->ci_low > 1) {
    c->verdict = Verdict::kHolds;
    c->verdict_detail = "faster: " + interval;
  } else if (c->significant && c->ci_high < 1) {
    c->verdict = Verdict::kDoesNotHold;
    c->verdict_detail = "slower: " + interval;
  } else if (c->ci_low >= band_lo && c->ci_high <= band_hi) {
    c->verdict = Verdict::kDoesNotHold;
    c->verdict_detail = "no effect beyond " + FormatPercent(kNoEffectBand, 0, false) + ": " +
                        interval;
  } else {
    c->verdict = Verdict::kInconclusive;
    c->verdict_detail = "not settled: " + interval;
    c->repetitions_to_settle = settle();
  }
  if (c->verdict == Verdict::kInconclusive) {
    c->verdict_detail += c->repetitions_to_settle
                             ? "; about " + std::to_string(*c->repetitions_to_settle) +
                                   " repetitions would settle it"
                             : "; more than " + std::to_string(kMaxRepetitionsAdvice) +
                                   " repetitions would be needed";
  }
}

Verdict JudgeMemory(const Comparison& c, std::string* detail) {
  if (c.peak_bytes_baseline == 0 && c.peak_bytes_variant == 0) {
    *detail = "memory: no CPU allocation seen by the meter";
    return Verdict::kInconclusive;
  }
  const std::string change =
      FormatBytes(c.peak_bytes_baseline) + " -> " + FormatBytes(c.peak_bytes_variant) +
      (c.memory_change ? " (" + FormatPercent(*c.memory_change) + ")" : "");
  if (c.peak_bytes_variant < c.peak_bytes_baseline) {
    *detail = "less memory: " + change;
    return Verdict::kHolds;
  }
  *detail = "memory not lower: " + change;
  return Verdict::kDoesNotHold;
}

}  // namespace

void ClassifyClaim(const std::string& claim, bool* time, bool* memory) {
  std::string c = Lower(claim);
  // "memory access cost" is about time, not about how much memory is held.
  for (size_t at; (at = c.find("memory access")) != std::string::npos;) c.erase(at, 13);
  *memory = ContainsAny(c, {"memory", "smaller"});
  const bool time_words =
      ContainsAny(c, {"fast", "speed", "time", "\xc3\x97", "slow", "overhead", "throughput",
                      "bandwidth", "sync", "copy", "overlap", "hides", "%", "cost"});
  const bool expects_slowdown = c.find("slowdown") != std::string::npos;
  *time = expects_slowdown ? !*memory : (time_words || !*memory);
}

void Analyze(Trick* t) {
  ClassifyClaim(t->claim, &t->claims_time, &t->claims_memory);
  t->noisy = false;
  for (Variant& v : t->variants) {
    if (v.samples_ns.empty()) continue;
    const Summary s = Summarize(v.samples_ns);
    v.median = s.median, v.q1 = s.q1, v.q3 = s.q3, v.iqr = s.iqr, v.mean = s.mean;
    v.stddev = s.stddev, v.cv = s.cv, v.relative_iqr = s.relative_iqr;
    v.noisy = s.relative_iqr > kNoiseThreshold;
    t->noisy |= v.noisy;
  }
  t->comparisons.clear();
  const Variant* base = nullptr;
  for (const Variant& v : t->variants) {
    if (v.baseline) {
      base = &v;
      continue;
    }
    if (!base || base->case_name != v.case_name) continue;
    Comparison c;
    c.case_name = v.case_name;
    c.variant = v.name;
    c.baseline = base->name;
    c.peak_bytes_baseline = base->peak_bytes;
    c.peak_bytes_variant = v.peak_bytes;
    if (base->peak_bytes > 0) {
      c.memory_change = static_cast<double>(v.peak_bytes - base->peak_bytes) / base->peak_bytes;
    }
    c.timed = !base->samples_ns.empty() && !v.samples_ns.empty();
    if (t->outcome != "ok") {
      c.verdict = Verdict::kNotApplicable;
      c.verdict_detail = t->outcome + (t->reason.empty() ? "" : ": " + t->reason);
    } else {
      std::vector<std::string> parts;
      std::vector<Verdict> verdicts;
      if (c.timed) {
        const RatioCI ci = RatioInterval(base->samples_ns, v.samples_ns, 1 - kAlpha);
        c.speedup = ci.ratio, c.ci_low = ci.low, c.ci_high = ci.high;
        c.p_value = MannWhitneyU(base->samples_ns, v.samples_ns).p_value;
        c.significant = c.p_value < kAlpha;
        c.noisy = base->noisy || v.noisy;
        JudgeTime(&c, static_cast<int>(std::min(base->samples_ns.size(), v.samples_ns.size())));
        if (t->claims_time) {
          verdicts.push_back(c.verdict);
          parts.push_back(c.verdict_detail);
        } else {
          parts.push_back("time (not claimed): " + c.verdict_detail);
        }
      } else if (t->claims_time) {
        verdicts.push_back(Verdict::kInconclusive);
        parts.push_back("not timed");
      }
      if (t->claims_memory) {
        std::string detail;
        verdicts.push_back(JudgeMemory(c, &detail));
        parts.push_back(detail);
      }
      const auto has = [&](Verdict x) {
        return std::find(verdicts.begin(), verdicts.end(), x) != verdicts.end();
      };
      c.verdict = has(Verdict::kDoesNotHold)    ? Verdict::kDoesNotHold
                  : has(Verdict::kInconclusive) ? Verdict::kInconclusive
                  : verdicts.empty()            ? Verdict::kNotApplicable
                                                : Verdict::kHolds;
      c.verdict_detail.clear();
      for (const auto& p : parts) c.verdict_detail += (c.verdict_detail.empty() ? "" : "; ") + p;
      if (c.verdict != Verdict::kInconclusive) c.repetitions_to_settle.reset();
    }
    t->comparisons.push_back(std::move(c));
  }
  if (t->outcome != "ok" || t->comparisons.empty()) {
    t->verdict = Verdict::kNotApplicable;
    t->verdict_detail = t->outcome + (t->reason.empty() ? "" : ": " + t->reason);
    return;
  }
  int holds = 0, inconclusive = 0;
  for (const auto& c : t->comparisons) {
    holds += c.verdict == Verdict::kHolds;
    inconclusive += c.verdict == Verdict::kInconclusive;
  }
  const int n = static_cast<int>(t->comparisons.size());
  if (holds > 0) {
    t->verdict = Verdict::kHolds;
    t->verdict_detail = holds == n ? "holds in every setting measured"
                                   : "holds in " + std::to_string(holds) + " of " +
                                         std::to_string(n) + " settings";
  } else if (inconclusive > 0) {
    t->verdict = Verdict::kInconclusive;
    t->verdict_detail = std::to_string(inconclusive) + " of " + std::to_string(n) +
                        " settings not settled" + (t->noisy ? " (noisy)" : "");
  } else {
    t->verdict = Verdict::kDoesNotHold;
    t->verdict_detail = "does not hold in any of " + std::to_string(n) + " settings";
  }
}

ReportCounts Count(const Report& report) {
  ReportCounts c;
  for (const auto& t : report.tricks) {
    ++c.tricks;
    c.holds += t.verdict == Verdict::kHolds;
    c.does_not_hold += t.verdict == Verdict::kDoesNotHold;
    c.inconclusive += t.verdict == Verdict::kInconclusive;
    c.not_applicable += t.verdict == Verdict::kNotApplicable;
    c.noisy += t.noisy;
  }
  return c;
}

// ---------------------------------------------------------------- checked JSON access

namespace {

std::string TypeName(const json& j) {
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_null()) return "null";
  if (j.is_array()) return "an array";
  if (j.is_object()) return "an object";
  return "something else";
}

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}
std::string At(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// Reads fields of one document, naming the file and the field in every error.
class Fields {
 public:
  explicit Fields(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& problem) const {
    throw InputError(file_, field, problem);
  }
  const json& Member(const json& obj, const std::string& path, const std::string& key) const {
    if (!obj.is_object()) Fail(path, "expected an object, got " + TypeName(obj));
    const auto it = obj.find(key);
    if (it == obj.end()) Fail(Join(path, key), "missing");
    return *it;
  }
  const json& Object(const json& obj, const std::string& path, const std::string& key) const {
    const json& m = Member(obj, path, key);
    if (!m.is_object()) Fail(Join(path, key), "expected an object, got " + TypeName(m));
    return m;
  }
  const json& Array(const json& obj, const std::string& path, const std::string& key) const {
    const json& m = Member(obj, path, key);
    if (!m.is_array()) Fail(Join(path, key), "expected an array, got " + TypeName(m));
    return m;
  }
  std::string String(const json& obj, const std::string& path, const std::string& key) const {
    const json& m = Member(obj, path, key);
    if (!m.is_string()) Fail(Join(path, key), "expected a string, got " + TypeName(m));
    return m.get<std::string>();
  }
  bool Bool(const json& obj, const std::string& path, const std::string& key) const {
    const json& m = Member(obj, path, key);
    if (!m.is_boolean()) Fail(Join(path, key), "expected a boolean, got " + TypeName(m));
    return m.get<bool>();
  }
  double Number(const json& obj, const std::string& path, const std::string& key) const {
    const json& m = Member(obj, path, key);
    if (!m.is_number()) Fail(Join(path, key), "expected a number, got " + TypeName(m));
    const double v = m.get<double>();
    if (!std::isfinite(v)) Fail(Join(path, key), "not a finite number");
    return v;
  }
  int64_t Int(const json& obj, const std::string& path, const std::string& key,
              int64_t lo = INT64_MIN) const {
    const json& m = Member(obj, path, key);
    if (!m.is_number_integer()) Fail(Join(path, key), "expected an integer, got " + TypeName(m));
    const int64_t v = m.is_number_unsigned() && m.get<uint64_t>() > INT64_MAX
                          ? INT64_MAX
                          : m.get<int64_t>();
    if (v < lo) Fail(Join(path, key), "out of range: " + std::to_string(v));
    return v;
  }
  std::vector<std::string> Strings(const json& obj, const std::string& path,
                                   const std::string& key) const {
    const json& a = Array(obj, path, key);
    std::vector<std::string> out;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_string()) Fail(At(Join(path, key), i), "expected a string, got " + TypeName(a[i]));
      out.push_back(a[i].get<std::string>());
    }
    return out;
  }
  void Version(const json& obj, const std::string& path, int expected) const {
    const int64_t v = Int(obj, path, "schema_version");
    if (v != expected) {
      Fail(Join(path, "schema_version"), "wrong schema version " + std::to_string(v) +
                                             " (this build reads version " +
                                             std::to_string(expected) + ")");
    }
  }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

const std::set<std::string>& ResultStatuses() {
  static const std::set<std::string> s = {"ok", "skipped", "invalid", "error", "checked"};
  return s;
}
const std::set<std::string>& Outcomes() {
  static const std::set<std::string> s = {"ok",      "skipped", "invalid", "error",
                                          "crashed", "timeout", "failed"};
  return s;
}

double NsPerUnit(const std::string& unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  return 0;
}

// The key whose value starts before `pos`: `"key": <here>`.
std::string KeyBefore(const std::string& text, size_t pos) {
  size_t colon = text.rfind(':', std::min(pos, text.size()));
  if (colon == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\r\n", colon - (colon > 0));
  if (end == std::string::npos || text[end] != '"' || end == 0) return "";
  size_t start = text.rfind('"', end - 1);
  if (start == std::string::npos) return "";
  return text.substr(start + 1, end - start - 1);
}

}  // namespace

json ParseJsonText(const std::string& text, const std::string& file) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    const size_t pos = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      throw InputError(file, "", "not JSON: the file is empty");
    }
    if (pos >= text.size() || e.byte > text.size()) {
      throw InputError(file, "", "truncated: the JSON text ends early (byte " +
                                     std::to_string(text.size()) + ")");
    }
    const std::string around = Lower(text.substr(pos, 9));
    for (const char* bad : {"nan", "-nan", "inf", "-inf", "infinity", "-infinity"}) {
      if (around.rfind(bad, 0) == 0) {
        throw InputError(file, KeyBefore(text, pos),
                         "NaN or infinite number (not valid JSON, not a valid time) at byte " +
                             std::to_string(pos + 1));
      }
    }
    std::string what = e.what();
    const auto colon = what.find("syntax error");
    throw InputError(file, "", "not JSON: " + (colon == std::string::npos ? what : what.substr(colon)));
  } catch (const json::exception& e) {
    // A number too large for a double ("1e999"): name the key it belongs to.
    const std::string what = e.what();
    const auto q1 = what.find('\''), q2 = what.rfind('\'');
    std::string field;
    if (q1 != std::string::npos && q2 > q1) {
      const auto at = text.find(what.substr(q1 + 1, q2 - q1 - 1));
      if (at != std::string::npos) field = KeyBefore(text, at);
    }
    throw InputError(file, field, "number out of range (not a finite number)");
  }
}

json ReadJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", std::string("cannot read: ") + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  return ParseJsonText(s.str(), path);
}

std::string KindOf(const json& j, const std::string& file) {
  if (!j.is_object()) throw InputError(file, "", "expected a JSON object, got " + TypeName(j));
  const auto kind = j.find("kind");
  if (kind != j.end()) {
    if (!kind->is_string()) throw InputError(file, "kind", "expected a string, got " + TypeName(*kind));
    if (*kind == kReportKind) return "report";
    if (*kind == kIndexKind) return "index";
    throw InputError(file, "kind", "unknown kind '" + kind->get<std::string>() + "'");
  }
  if (j.contains("trickbench")) return "result";
  if (j.contains("benchmarks")) {
    throw InputError(file, "trickbench",
                     "missing (a plain Google Benchmark file; trickbench needs the result file a "
                     "trick binary writes)");
  }
  throw InputError(file, "kind", "missing (neither a report, a run index nor a trick result)");
}

Trick TrickFromResult(const json& result, const std::string& file,
                      std::map<std::string, std::string>* environment) {
  const Fields f(file);
  const json& context = f.Object(result, "", "context");
  const json& benchmarks = f.Array(result, "", "benchmarks");
  const json& tb = f.Object(result, "", "trickbench");
  f.Version(tb, "trickbench", kResultSchemaVersion);
  Trick t;
  t.id = f.String(tb, "trickbench", "id");
  if (t.id.empty()) f.Fail("trickbench.id", "empty");
  t.category = f.String(tb, "trickbench", "category");
  t.source = f.String(tb, "trickbench", "source");
  t.claim = f.String(tb, "trickbench", "claim");
  t.outcome = f.String(tb, "trickbench", "status");
  if (!ResultStatuses().count(t.outcome)) {
    f.Fail("trickbench.status", "unknown status '" + t.outcome + "'");
  }
  if (t.outcome == "checked") t.outcome = "ok";
  t.reason = f.String(tb, "trickbench", "reason");
  t.device = f.String(tb, "trickbench", "device");
  t.reproduced_variant = f.String(tb, "trickbench", "reproduced_variant");
  const std::string baseline = f.String(tb, "trickbench", "baseline");
  const auto variants = f.Strings(tb, "trickbench", "variants");
  if (variants.size() < 2) f.Fail("trickbench.variants", "needs a baseline and another variant");
  if (variants.front() != baseline) f.Fail("trickbench.baseline", "is not the first variant");
  f.Strings(tb, "trickbench", "cases");
  const json& tol = f.Object(tb, "trickbench", "tolerance");
  t.rtol = f.Number(tol, "trickbench.tolerance", "rtol");
  t.atol = f.Number(tol, "trickbench.tolerance", "atol");
  t.bitwise = f.Bool(tol, "trickbench.tolerance", "bitwise");
  const json& settings = f.Object(tb, "trickbench", "settings");
  t.threads = static_cast<int>(f.Int(settings, "trickbench.settings", "threads", 0));
  t.repetitions = static_cast<int>(f.Int(settings, "trickbench.settings", "repetitions", 0));
  t.min_time = f.Number(settings, "trickbench.settings", "min_time");
  t.seed = static_cast<uint64_t>(f.Int(settings, "trickbench.settings", "seed", 0));

  if (tb.contains("reproducibility")) {
    const json& r = f.Object(tb, "trickbench", "reproducibility");
    Reproducibility rep;
    rep.checked = f.Bool(r, "trickbench.reproducibility", "checked");
    // Result files from before the fields were fixed omit them when nothing was checked.
    if (rep.checked || r.contains("bitwise_reproducible")) {
      rep.bitwise_reproducible = f.Bool(r, "trickbench.reproducibility", "bitwise_reproducible");
    }
    if (rep.checked || r.contains("fingerprint")) {
      rep.fingerprint = f.String(r, "trickbench.reproducibility", "fingerprint");
    }
    rep.detail = f.String(r, "trickbench.reproducibility", "detail");
    t.reproducibility = rep;
  }

  // Raw samples: every "iteration" run is one repetition.
  std::map<std::string, std::vector<double>> samples;
  for (size_t i = 0; i < benchmarks.size(); ++i) {
    const std::string path = At("benchmarks", i);
    const json& b = benchmarks[i];
    const std::string name = f.String(b, path, "name");
    const std::string run_type = f.String(b, path, "run_type");
    if (run_type != "iteration") continue;
    if (b.contains("error_occurred") && f.Bool(b, path, "error_occurred")) continue;
    const double time = f.Number(b, path, "real_time");
    if (time < 0) f.Fail(Join(path, "real_time"), "negative time " + FormatFixed(time, 3));
    if (time == 0) f.Fail(Join(path, "real_time"), "zero time (a ratio needs positive times)");
    const std::string unit = f.String(b, path, "time_unit");
    if (NsPerUnit(unit) == 0) f.Fail(Join(path, "time_unit"), "unknown unit '" + unit + "'");
    const std::string run_name = b.contains("run_name") ? f.String(b, path, "run_name") : name;
    const double ns = time * NsPerUnit(unit);
    if (!std::isfinite(ns) || !(ns > 0)) f.Fail(Join(path, "real_time"), "out of range in ns");
    samples[run_name].push_back(ns);
  }
  if (t.outcome == "ok" && benchmarks.empty()) {
    f.Fail("benchmarks", "empty benchmark list (status is ok, so there must be timings)");
  }
  if (t.outcome == "ok" && samples.empty()) {
    f.Fail("benchmarks", "no run_type \"iteration\" entry (no raw repetitions to analyse)");
  }

  const bool needs_checks = t.outcome == "ok" || t.outcome == "invalid";
  if (needs_checks || tb.contains("checks")) {
    const json& cases = f.Array(tb, "trickbench", "checks");
    if (cases.empty() && needs_checks) f.Fail("trickbench.checks", "empty");
    std::set<std::string> seen;
    for (size_t ci = 0; ci < cases.size(); ++ci) {
      const std::string cpath = At("trickbench.checks", ci);
      const std::string case_name = f.String(cases[ci], cpath, "case");
      const json& vs = f.Array(cases[ci], cpath, "variants");
      if (vs.size() < 2) f.Fail(Join(cpath, "variants"), "needs a baseline and another variant");
      for (size_t vi = 0; vi < vs.size(); ++vi) {
        const std::string vpath = At(Join(cpath, "variants"), vi);
        Variant v;
        v.case_name = case_name;
        v.baseline = vi == 0;
        v.name = f.String(vs[vi], vpath, "name");
        v.benchmark = f.String(vs[vi], vpath, "benchmark");
        if (!seen.insert(v.benchmark).second) {
          f.Fail(Join(vpath, "benchmark"), "duplicate benchmark name " + v.benchmark);
        }
        v.equivalent = f.Bool(vs[vi], vpath, "equivalent");
        v.max_abs_diff = f.Number(vs[vi], vpath, "max_abs_diff");
        v.max_rel_diff = f.Number(vs[vi], vpath, "max_rel_diff");
        v.equivalence_detail = f.String(vs[vi], vpath, "equivalence_detail");
        v.active = f.Bool(vs[vi], vpath, "active");
        v.inactive_reason = f.String(vs[vi], vpath, "inactive_reason");
        v.peak_bytes = f.Int(vs[vi], vpath, "peak_bytes", 0);
        v.run_peak_bytes = f.Int(vs[vi], vpath, "run_peak_bytes");
        v.allocations = f.Int(vs[vi], vpath, "allocations", 0);
        if (auto it = samples.find(v.benchmark); it != samples.end()) v.samples_ns = it->second;
        if (t.outcome == "ok" && v.samples_ns.empty()) {
          f.Fail(Join(vpath, "benchmark"),
                 "no run_type \"iteration\" entry named " + v.benchmark + " in benchmarks");
        }
        t.variants.push_back(std::move(v));
      }
    }
  }
  if (environment) {
    for (const auto& [k, v] : context.items()) {
      if (k == "executable" || k == "date" || k == "caches" || k == "load_avg" ||
          k == "trickbench_id") {
        continue;
      }
      (*environment)[k] = v.is_string() ? v.get<std::string>() : v.dump();
    }
  }
  Analyze(&t);
  return t;
}

Report MergeRun(const std::string& run_dir) {
  const std::string index_path = (fs::path(run_dir) / "index.json").string();
  if (!fs::is_directory(run_dir)) throw InputError(run_dir, "", "not a folder (expected a run folder)");
  const json index = ReadJsonFile(index_path);
  const Fields f(index_path);
  if (KindOf(index, index_path) != "index") {
    f.Fail("kind", "expected \"" + std::string(kIndexKind) + "\"");
  }
  f.Version(index, "", kIndexSchemaVersion);
  Report report;
  report.source = fs::path(run_dir).lexically_normal().filename().string();
  if (report.source.empty()) report.source = fs::path(run_dir).parent_path().filename().string();
  report.started = f.String(index, "", "started");
  report.finished = index.contains("finished") && index["finished"].is_string()
                        ? index["finished"].get<std::string>()
                        : "";
  report.complete = f.Bool(index, "", "complete");
  report.forwarded_flags = f.Strings(index, "", "forwarded_flags");
  const json& tricks = f.Array(index, "", "tricks");
  if (tricks.empty()) f.Fail("tricks", "empty (no trick in this run)");
  std::set<std::string> ids;
  bool have_environment = false;
  std::string environment_from;
  for (size_t i = 0; i < tricks.size(); ++i) {
    const std::string path = At("tricks", i);
    const std::string id = f.String(tricks[i], path, "id");
    if (!ids.insert(id).second) f.Fail(Join(path, "id"), "duplicate trick id " + id);
    const std::string outcome = f.String(tricks[i], path, "outcome");
    if (!Outcomes().count(outcome)) f.Fail(Join(path, "outcome"), "unknown outcome '" + outcome + "'");
    const std::string reason = f.String(tricks[i], path, "reason");
    const json& result = f.Member(tricks[i], path, "result");
    Trick t;
    if (result.is_string()) {
      const std::string file = (fs::path(run_dir) / result.get<std::string>()).string();
      std::map<std::string, std::string> env;
      t = TrickFromResult(ReadJsonFile(file), file, &env);
      if (t.id != id) {
        throw InputError(file, "trickbench.id", "is " + t.id + " but index.json says " + id);
      }
      if (!have_environment) {
        report.environment = env;
        environment_from = id;
        have_environment = true;
      } else {
        for (const auto& [k, v] : env) {
          if (k == "host_name" || k == "mhz_per_cpu") continue;
          auto it = report.environment.find(k);
          if (it == report.environment.end() || it->second != v) {
            report.environment_notes.push_back(
                id + ": " + k + "=" + v + " (" + environment_from + " has " +
                (it == report.environment.end() ? std::string("none") : it->second) + ")");
          }
        }
      }
    } else if (result.is_null()) {
      t.id = id;
    } else {
      f.Fail(Join(path, "result"), "expected a file name or null, got " + TypeName(result));
    }
    if (outcome != t.outcome || !reason.empty()) {
      t.outcome = outcome;  // run_all saw the process: a crash or timeout outranks the file
      t.reason = reason;
    }
    Analyze(&t);
    report.tricks.push_back(std::move(t));
  }
  return report;
}

// ---------------------------------------------------------------- report JSON

namespace {

json VariantJson(const Variant& v) {
  return {{"case", v.case_name},
          {"name", v.name},
          {"benchmark", v.benchmark},
          {"baseline", v.baseline},
          {"samples_ns", v.samples_ns},
          {"repetitions", v.samples_ns.size()},
          {"median_ns", v.median},
          {"q1_ns", v.q1},
          {"q3_ns", v.q3},
          {"iqr_ns", v.iqr},
          {"mean_ns", v.mean},
          {"stddev_ns", v.stddev},
          {"cv", v.cv},
          {"relative_iqr", v.relative_iqr},
          {"noisy", v.noisy},
          {"peak_bytes", v.peak_bytes},
          {"run_peak_bytes", v.run_peak_bytes},
          {"allocations", v.allocations},
          {"equivalent", v.equivalent},
          {"max_abs_diff", v.max_abs_diff},
          {"max_rel_diff", v.max_rel_diff},
          {"equivalence_detail", v.equivalence_detail},
          {"active", v.active},
          {"inactive_reason", v.inactive_reason}};
}

json ComparisonJson(const Comparison& c) {
  return {{"case", c.case_name},
          {"variant", c.variant},
          {"baseline", c.baseline},
          {"timed", c.timed},
          {"speedup", c.speedup},
          {"ci_low", c.ci_low},
          {"ci_high", c.ci_high},
          {"p_value", c.p_value},
          {"significant", c.significant},
          {"noisy", c.noisy},
          {"peak_bytes_baseline", c.peak_bytes_baseline},
          {"peak_bytes_variant", c.peak_bytes_variant},
          {"memory_change", c.memory_change ? json(*c.memory_change) : json(nullptr)},
          {"verdict", VerdictName(c.verdict)},
          {"verdict_detail", c.verdict_detail},
          {"repetitions_to_settle",
           c.repetitions_to_settle ? json(*c.repetitions_to_settle) : json(nullptr)}};
}

}  // namespace

json ReportToJson(const Report& r) {
  json tricks = json::array();
  for (const Trick& t : r.tricks) {
    json variants = json::array(), comparisons = json::array();
    for (const auto& v : t.variants) variants.push_back(VariantJson(v));
    for (const auto& c : t.comparisons) comparisons.push_back(ComparisonJson(c));
    json rep = nullptr;
    if (t.reproducibility) {
      rep = {{"checked", t.reproducibility->checked},
             {"bitwise_reproducible", t.reproducibility->bitwise_reproducible},
             {"fingerprint", t.reproducibility->fingerprint},
             {"detail", t.reproducibility->detail}};
    }
    tricks.push_back({{"id", t.id},
                      {"category", t.category},
                      {"source", t.source},
                      {"claim", t.claim},
                      {"claims", {{"time", t.claims_time}, {"memory", t.claims_memory}}},
                      {"outcome", t.outcome},
                      {"reason", t.reason},
                      {"verdict", VerdictName(t.verdict)},
                      {"verdict_detail", t.verdict_detail},
                      {"noisy", t.noisy},
                      {"device", t.device},
                      {"settings",
                       {{"threads", t.threads},
                        {"repetitions", t.repetitions},
                        {"min_time", t.min_time},
                        {"seed", t.seed}}},
                      {"tolerance", {{"rtol", t.rtol}, {"atol", t.atol}, {"bitwise", t.bitwise}}},
                      {"reproduced_variant", t.reproduced_variant},
                      {"reproducibility", rep},
                      {"variants", variants},
                      {"comparisons", comparisons}});
  }
  const ReportCounts n = Count(r);
  json env = json::object();
  for (const auto& [k, v] : r.environment) env[k] = v;
  return {{"kind", kReportKind},
          {"schema_version", kReportSchemaVersion},
          {"source", r.source},
          {"started", r.started},
          {"finished", r.finished},
          {"complete", r.complete},
          {"forwarded_flags", r.forwarded_flags},
          {"statistics",
           {{"test", "Mann-Whitney U, two-sided (scipy method auto, as Google Benchmark compare.py)"},
            {"alpha", kAlpha},
            {"interval", "Hodges-Lehmann distribution-free interval of the time ratio"},
            {"confidence", 1 - kAlpha},
            {"noise", "relative IQR (IQR / median) of either variant above the threshold"},
            {"noise_threshold", kNoiseThreshold},
            {"no_effect_band", kNoEffectBand}}},
          {"environment", env},
          {"environment_notes", r.environment_notes},
          {"summary",
           {{"tricks", n.tricks},
            {"holds", n.holds},
            {"does_not_hold", n.does_not_hold},
            {"inconclusive", n.inconclusive},
            {"not_applicable", n.not_applicable},
            {"noisy", n.noisy}}},
          {"tricks", tricks}};
}

Report ReportFromJson(const json& j, const std::string& file) {
  const Fields f(file);
  if (KindOf(j, file) != "report") f.Fail("kind", "expected \"" + std::string(kReportKind) + "\"");
  f.Version(j, "", kReportSchemaVersion);
  Report r;
  r.source = f.String(j, "", "source");
  r.started = f.String(j, "", "started");
  r.finished = f.String(j, "", "finished");
  r.complete = f.Bool(j, "", "complete");
  r.forwarded_flags = f.Strings(j, "", "forwarded_flags");
  for (const auto& [k, v] : f.Object(j, "", "environment").items()) {
    if (!v.is_string()) f.Fail("environment." + k, "expected a string, got " + TypeName(v));
    r.environment[k] = v.get<std::string>();
  }
  r.environment_notes = f.Strings(j, "", "environment_notes");
  const json& tricks = f.Array(j, "", "tricks");
  std::set<std::string> ids;
  for (size_t i = 0; i < tricks.size(); ++i) {
    const std::string p = At("tricks", i);
    const json& tj = tricks[i];
    Trick t;
    t.id = f.String(tj, p, "id");
    if (!ids.insert(t.id).second) f.Fail(Join(p, "id"), "duplicate trick id " + t.id);
    t.category = f.String(tj, p, "category");
    t.source = f.String(tj, p, "source");
    t.claim = f.String(tj, p, "claim");
    t.outcome = f.String(tj, p, "outcome");
    if (!Outcomes().count(t.outcome)) f.Fail(Join(p, "outcome"), "unknown outcome '" + t.outcome + "'");
    t.reason = f.String(tj, p, "reason");
    t.device = f.String(tj, p, "device");
    const json& s = f.Object(tj, p, "settings");
    t.threads = static_cast<int>(f.Int(s, Join(p, "settings"), "threads", 0));
    t.repetitions = static_cast<int>(f.Int(s, Join(p, "settings"), "repetitions", 0));
    t.min_time = f.Number(s, Join(p, "settings"), "min_time");
    t.seed = static_cast<uint64_t>(f.Int(s, Join(p, "settings"), "seed", 0));
    const json& tol = f.Object(tj, p, "tolerance");
    t.rtol = f.Number(tol, Join(p, "tolerance"), "rtol");
    t.atol = f.Number(tol, Join(p, "tolerance"), "atol");
    t.bitwise = f.Bool(tol, Join(p, "tolerance"), "bitwise");
    t.reproduced_variant = f.String(tj, p, "reproduced_variant");
    const json& rep = f.Member(tj, p, "reproducibility");
    if (!rep.is_null()) {
      const std::string rp = Join(p, "reproducibility");
      Reproducibility x;
      x.checked = f.Bool(rep, rp, "checked");
      x.bitwise_reproducible = f.Bool(rep, rp, "bitwise_reproducible");
      x.fingerprint = f.String(rep, rp, "fingerprint");
      x.detail = f.String(rep, rp, "detail");
      t.reproducibility = x;
    }
    const json& vs = f.Array(tj, p, "variants");
    for (size_t vi = 0; vi < vs.size(); ++vi) {
      const std::string vp = At(Join(p, "variants"), vi);
      Variant v;
      v.case_name = f.String(vs[vi], vp, "case");
      v.name = f.String(vs[vi], vp, "name");
      v.benchmark = f.String(vs[vi], vp, "benchmark");
      v.baseline = f.Bool(vs[vi], vp, "baseline");
      const json& samples = f.Array(vs[vi], vp, "samples_ns");
      for (size_t k = 0; k < samples.size(); ++k) {
        const std::string sp = At(Join(vp, "samples_ns"), k);
        if (!samples[k].is_number()) f.Fail(sp, "expected a number, got " + TypeName(samples[k]));
        const double x = samples[k].get<double>();
        if (!std::isfinite(x)) f.Fail(sp, "not a finite number");
        if (x <= 0) f.Fail(sp, (x < 0 ? "negative time " : "zero time ") + FormatFixed(x, 3));
        v.samples_ns.push_back(x);
      }
      if (t.outcome == "ok" && v.samples_ns.empty()) f.Fail(Join(vp, "samples_ns"), "empty");
      v.peak_bytes = f.Int(vs[vi], vp, "peak_bytes", 0);
      v.run_peak_bytes = f.Int(vs[vi], vp, "run_peak_bytes");
      v.allocations = f.Int(vs[vi], vp, "allocations", 0);
      v.equivalent = f.Bool(vs[vi], vp, "equivalent");
      v.max_abs_diff = f.Number(vs[vi], vp, "max_abs_diff");
      v.max_rel_diff = f.Number(vs[vi], vp, "max_rel_diff");
      v.equivalence_detail = f.String(vs[vi], vp, "equivalence_detail");
      v.active = f.Bool(vs[vi], vp, "active");
      v.inactive_reason = f.String(vs[vi], vp, "inactive_reason");
      t.variants.push_back(std::move(v));
    }
    if (t.outcome == "ok" && t.variants.size() < 2) {
      f.Fail(Join(p, "variants"), "an ok trick needs a baseline and another variant");
    }
    Analyze(&t);  // derived fields are recomputed from the raw samples
    r.tricks.push_back(std::move(t));
  }
  return r;
}

Report LoadReportOrResult(const std::string& path, std::string* kind) {
  const json j = ReadJsonFile(path);
  const std::string k = KindOf(j, path);
  if (kind) *kind = k;
  if (k == "report") return ReportFromJson(j, path);
  if (k == "result") {
    Report r;
    r.source = fs::path(path).filename().string();
    Trick t = TrickFromResult(j, path, &r.environment);
    r.tricks.push_back(std::move(t));
    return r;
  }
  throw InputError(path, "kind",
                   "a run index; give its report.json (bazel run //reports:report -- RUN_DIR) "
                   "or a trick's result file");
}

}  // namespace reports
}  // namespace trickbench
