#include "harness/runner.h"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "determinism/guard.h"
#include "determinism/seed.h"
#include "common/atomic_file.h"
#include "harness/context.h"
#include "harness/memory.h"
#include "harness/nvtx.h"

#ifdef TRICKBENCH_CUDA
#include "harness/cuda_timing.h"
#endif

namespace trickbench {
namespace {

using json = nlohmann::ordered_json;

constexpr char kUsage[] = R"(usage: <trick binary> [flags] [--benchmark_* flags]

Runs one trickbench trick: the equivalence and active checks, then every variant as a
Google Benchmark benchmark (repetitions interleaved), and writes one JSON result file
(Google Benchmark's format plus a "trickbench" object; see reports/SCHEMA.md).

  --out=PATH          result file (default: results/<id>.json under the workspace when
                      run by `bazel run`, else ./<id>.json); written atomically
  --threads=N         intra-op threads (default: one per hardware thread)
  --repetitions=N     repetitions per variant (default 9, at least 1)
  --min_time=SECONDS  minimum time of one repetition (default 0.1)
  --device=D          auto | cpu | cuda (default auto: cuda when available)
  --seed=N            seed for every RNG (default 0)
  --check_only        run the checks and memory measurement, no timing
  --fingerprint       print the reproduced variant's fingerprint as JSON and exit
  --list              print the trick's cases and variants and exit
  --help              this text
  --benchmark_*       passed to Google Benchmark (e.g. --benchmark_filter=no_grad)

Exit status: 0 measured or skipped (with its reason), 2 bad command line,
3 invalid (a check failed), 1 other errors.
)";

#ifdef TRICKBENCH_CUDA
constexpr char kCudaUsage[] = R"(
CUDA build:
  --flush_l2          on a CUDA device, write a buffer twice the L2 size before every
                      timed iteration (untimed), so each one starts with a cold cache
On a CUDA device each iteration is timed with CUDA events on the current stream
(Google Benchmark manual time); see docs/GPU.md.
)";

// Set once by TrickMain from --flush_l2 and the device.
bool g_flush_l2 = false;

#endif

bool StartsWith(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// UseRealTime (CPU) and UseManualTime (CUDA events) make Google Benchmark 1.7 append
// "/real_time" or "/manual_time" to every name it writes. The result file drops them,
// so that benchmark names (and the names in trickbench.checks that reports pair them
// by) are BM_<id>[/<case>]/<variant> on every device; trickbench.settings.timing
// says how the times were taken.
void DropTimeTypeSuffix(json* result) {
  for (auto& b : (*result)["benchmarks"]) {
    for (const char* key : {"name", "run_name"}) {
      if (!b.contains(key) || !b[key].is_string()) continue;
      std::string v = b[key].get<std::string>();
      for (const std::string suffix : {"/real_time", "/manual_time"}) {
        const auto at = v.find(suffix);
        if (at != std::string::npos) v.erase(at, suffix.size());
      }
      b[key] = v;
    }
  }
}

bool ParseInt(const std::string& flag, const std::string& text, long long lo, long long hi,
              long long* out, std::string* error) {
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
    *error = "bad value for --" + flag + ": '" + text + "' (expected an integer from " +
             std::to_string(lo) + " to " + std::to_string(hi) + ")";
    return false;
  }
  *out = v;
  return true;
}

bool ParseSeconds(const std::string& flag, const std::string& text, double* out,
                  std::string* error) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v <= 0 || v > 3600) {
    *error = "bad value for --" + flag + ": '" + text + "' (expected seconds, > 0 and <= 3600)";
    return false;
  }
  *out = v;
  return true;
}

std::string BenchmarkName(const TrickDef& def, const std::string& case_name,
                          const std::string& variant) {
  std::string name = "BM_" + def.id();
  if (!case_name.empty()) name += "/" + case_name;
  return name + "/" + variant;
}

std::string DefaultOutPath(const std::string& id) {
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY"); ws && *ws) {
    std::error_code ec;
    std::filesystem::create_directories(std::string(ws) + "/results", ec);
    return std::string(ws) + "/results/" + id + ".json";
  }
  return id + ".json";
}

// Google Benchmark writes a coefficient of variation of 0/0 (a counter that is zero in
// every repetition) as a bare nan, which is not JSON. Such a statistic has no value:
// it becomes null.
std::string NullNonFiniteNumbers(const std::string& gb_json) {
  static const std::regex kNonFinite(R"((:\s*)-?(nan|inf)\b)", std::regex::icase);
  return std::regex_replace(gb_json, kNonFinite, "$1null");
}

// The reproducibility object when it was not checked: same fields, nothing claimed.
json NotChecked(const std::string& why) {
  return {{"checked", false},
          {"bitwise_reproducible", false},
          {"fingerprint", ""},
          {"detail", why}};
}

std::string DescribeException(const std::exception& e) {
  // c10::Error::what() carries a C++ backtrace; the first line is the message.
  std::string what = e.what();
  const auto nl = what.find('\n');
  return nl == std::string::npos ? what : what.substr(0, nl);
}

json ContextJson(const Context& context) {
  json c = json::object();
  for (const auto& [k, v] : context) c[k] = v;
  return c;
}

json ChecksJson(const CheckReport& report, const TrickDef& def) {
  json cases = json::array();
  for (const auto& cc : report.cases) {
    json variants = json::array();
    for (const auto& vc : cc.variants) {
      json counters = json::object();
      for (const auto& [k, v] : vc.counters) counters[k] = v;
      variants.push_back({
          {"name", vc.variant},
          {"benchmark", BenchmarkName(def, cc.case_name, vc.variant)},
          {"equivalent", vc.vs_baseline.equal},
          {"max_abs_diff", vc.vs_baseline.max_abs_diff},
          {"max_rel_diff", vc.vs_baseline.max_rel_diff},
          {"equivalence_detail", vc.vs_baseline.detail},
          {"active", vc.inactive.empty()},
          {"inactive_reason", vc.inactive},
          {"setup_bytes", vc.setup_bytes},
          {"peak_bytes", vc.peak_bytes},
          {"run_peak_bytes", vc.run_peak_bytes},
          {"allocations", vc.allocations},
          {"counters", counters},
      });
    }
    cases.push_back({{"case", cc.case_name}, {"variants", variants}});
  }
  return cases;
}

// Two seeded runs of the reproduced variant under DeterministicGuard, per case: the
// per-trick row of the reproducibility matrix.
json ReproducibilityJson(const TrickDef& def, const torch::Device& device, uint64_t seed) {
  json cases = json::array();
  bool all_equal = true;
  std::string detail;
  for (const auto& c : def.cases()) {
    json row = {{"case", c}};
    try {
      const Fingerprint a = ReproduceFingerprint(def, c, device, seed);
      const Fingerprint b = ReproduceFingerprint(def, c, device, seed);
      row["bitwise_reproducible"] = a == b;
      row["fingerprint"] = a.Hex();
      if (a != b) {
        all_equal = false;
        const std::string where = FirstDifference(a, b).value_or("?");
        row["first_difference"] = where;
        if (detail.empty()) detail = (c.empty() ? "" : c + ": ") + "runs differ at " + where;
      }
    } catch (const std::exception& e) {
      all_equal = false;
      row["bitwise_reproducible"] = false;
      row["error"] = DescribeException(e);
      if (detail.empty()) detail = (c.empty() ? "" : c + ": ") + DescribeException(e);
    }
    cases.push_back(row);
  }
  return {{"checked", true},
          {"variant", def.reproduced_variant()},
          {"bitwise_reproducible", all_equal},
          {"fingerprint", cases.empty() ? "" : cases[0].value("fingerprint", "")},
          {"detail", detail},
          {"cases", cases}};
}

json TrickJson(const TrickDef& def, const RunOptions& opts, const torch::Device& device,
               const std::string& status, const std::string& reason) {
  json variants = json::array();
  for (const auto& v : def.variants()) variants.push_back(v.name);
  return {
      {"schema_version", kResultSchemaVersion},
      {"id", def.id()},
      {"category", def.category()},
      {"source", def.source()},
      {"claim", def.claim()},
      {"needs_cuda", def.needs_cuda()},
      {"status", status},
      {"reason", reason},
      {"device", device.str()},
      {"baseline", def.variants().front().name},
      {"variants", variants},
      {"cases", def.cases()},
      {"reproduced_variant", def.reproduced_variant()},
      {"tolerance",
       {{"rtol", def.tolerance().rtol},
        {"atol", def.tolerance().atol},
        {"bitwise", def.tolerance().bitwise()}}},
      {"settings",
       {{"threads", at::get_num_threads()},
        {"repetitions", opts.repetitions},
        {"min_time", opts.min_time},
        {"seed", opts.seed},
        {"check_steps", def.check_steps()},
        {"random_interleaving", true},
        {"timing", "wall_clock"}}},
      {"nvtx", NvtxRange::enabled()},
  };
}

// A result without benchmarks (skipped, invalid, error): same shape, empty list.
json ResultWithoutBenchmarks(const Context& context, const std::string& executable) {
  json ctx = ContextJson(context);
  ctx["executable"] = executable;
  ctx["date"] = [] {
    std::time_t t = std::time(nullptr);
    char buf[64];
    std::strftime(buf, sizeof buf, "%FT%T%z", std::localtime(&t));
    return std::string(buf);
  }();
  return {{"context", ctx}, {"benchmarks", json::array()}};
}

bool WriteResult(const std::string& path, const json& result) {
  std::string error;
  if (!WriteFileAtomically(path, result.dump(2) + "\n", &error)) {
    std::cerr << "trickbench: " << error << "\n";
    return false;
  }
  std::cout << "trickbench: wrote " << path << "\n";
  return true;
}

// One line per non-baseline variant: ratio of median times, memory change.
void PrintSummary(const json& result, const CheckReport& checks, const TrickDef& def) {
  std::map<std::string, double> median;
  for (const auto& b : result["benchmarks"]) {
    if (b.value("run_type", "") == "aggregate" && b.value("aggregate_name", "") == "median") {
      median[b.value("run_name", "")] = b.value("real_time", 0.0);
    }
  }
  std::cout << "\n" << def.id() << ": " << def.claim() << "\n";
  for (const auto& cc : checks.cases) {
    const auto& base = cc.variants.front();
    const double tb = median[BenchmarkName(def, cc.case_name, base.variant)];
    for (size_t i = 1; i < cc.variants.size(); ++i) {
      const auto& vc = cc.variants[i];
      const double tv = median[BenchmarkName(def, cc.case_name, vc.variant)];
      std::ostringstream line;
      line << std::fixed << std::setprecision(2) << "  " << (cc.case_name.empty() ? "" : cc.case_name + " ")
           << vc.variant << " vs " << base.variant << ": ";
      if (tb > 0 && tv > 0) line << tb / tv << "x speed (median), ";
      const double mem = base.peak_bytes > 0 ? 100.0 * (vc.peak_bytes - base.peak_bytes) / base.peak_bytes : 0;
      line << "peak CPU memory " << base.peak_bytes << " -> " << vc.peak_bytes << " bytes ("
           << std::showpos << mem << std::noshowpos << "%)";
      std::cout << line.str() << "\n";
#ifdef TRICKBENCH_CUDA
      const auto base_dev = base.counters.find("cuda_peak_allocated_bytes");
      const auto var_dev = vc.counters.find("cuda_peak_allocated_bytes");
      if (base_dev != base.counters.end() && var_dev != vc.counters.end()) {
        const double b = base_dev->second, v = var_dev->second;
        std::ostringstream dev;
        dev << std::fixed << std::setprecision(2) << "    peak device memory (CUDA caching allocator) "
            << static_cast<int64_t>(b) << " -> " << static_cast<int64_t>(v) << " bytes ("
            << std::showpos << (b > 0 ? 100.0 * (v - b) / b : 0.0) << std::noshowpos << "%)";
        std::cout << dev.str() << "\n";
      }
#endif
    }
  }
  const json& repro = result["trickbench"]["reproducibility"];
  std::cout << "  reproducible under the deterministic guard ("
            << repro.value("variant", "") << "): "
            << (repro.value("bitwise_reproducible", false) ? "bitwise" : "NO: " + repro.value("detail", ""))
            << "\n  (intervals and verdicts: reports/, from run-all)\n";
}

}  // namespace

bool ParseRunOptions(const std::vector<std::string>& args, RunOptions* opts, std::string* error) {
  for (const std::string& arg : args) {
    if (StartsWith(arg, "--benchmark_")) {
      for (const char* owned : {"--benchmark_out", "--benchmark_repetitions", "--benchmark_min_time"}) {
        if (StartsWith(arg, owned)) {
          *error = arg + " is set by the harness; use --out, --repetitions or --min_time";
          return false;
        }
      }
      opts->benchmark_flags.push_back(arg);
      continue;
    }
    if (!StartsWith(arg, "--")) {
      *error = "unexpected argument '" + arg + "' (flags are --name=value; see --help)";
      return false;
    }
    const auto eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const bool has_value = eq != std::string::npos;
    const std::string value = has_value ? arg.substr(eq + 1) : "";
    long long n = 0;
    auto need_value = [&] {
      if (!has_value) *error = "--" + name + " needs a value (--" + name + "=...)";
      return has_value;
    };
    auto no_value = [&] {
      if (has_value) *error = "--" + name + " takes no value";
      return !has_value;
    };
    if (name == "out") {
      if (!need_value()) return false;
      if (value.empty()) {
        *error = "--out is empty";
        return false;
      }
      opts->out = value;
    } else if (name == "threads") {
      if (!need_value() || !ParseInt(name, value, 1, 1024, &n, error)) return false;
      opts->threads = static_cast<int>(n);
    } else if (name == "repetitions") {
      if (!need_value() || !ParseInt(name, value, 1, 10000, &n, error)) return false;
      opts->repetitions = static_cast<int>(n);
    } else if (name == "min_time") {
      if (!need_value() || !ParseSeconds(name, value, &opts->min_time, error)) return false;
    } else if (name == "seed") {
      if (!need_value() || !ParseInt(name, value, 0, (1LL << 62), &n, error)) return false;
      opts->seed = static_cast<uint64_t>(n);
    } else if (name == "device") {
      if (!need_value()) return false;
      if (value != "auto" && value != "cpu" && value != "cuda") {
        *error = "bad value for --device: '" + value + "' (expected auto, cpu or cuda)";
        return false;
      }
      opts->device = value;
    } else if (name == "list") {
      if (!no_value()) return false;
      opts->list = true;
    } else if (name == "fingerprint") {
      if (!no_value()) return false;
      opts->fingerprint = true;
    } else if (name == "check_only") {
      if (!no_value()) return false;
      opts->check_only = true;
    } else if (name == "flush_l2") {
      if (!no_value()) return false;
#ifdef TRICKBENCH_CUDA
      opts->flush_l2 = true;
#else
      *error = "--flush_l2 needs a CUDA build (Bazel --config=cuda, or CMake with a CUDA "
               "LibTorch); this binary has no CUDA support";
      return false;
#endif
    } else if (name == "help") {
      opts->help = true;
    } else {
      *error = "unknown flag --" + name + " (see --help)";
      return false;
    }
  }
  return true;
}

Comparison CompareResults(const Tensors& reference, const Tensors& got, const Tolerance& tol) {
  Comparison c;
  if (reference.size() != got.size()) {
    c.detail = "result has " + std::to_string(got.size()) + " tensors, baseline " +
               std::to_string(reference.size());
    return c;
  }
  for (size_t i = 0; i < reference.size(); ++i) {
    const torch::Tensor& r = reference[i];
    const torch::Tensor& g = got[i];
    const std::string where = "result[" + std::to_string(i) + "]";
    if (r.defined() != g.defined()) {
      c.detail = where + ": defined in only one of the two";
      return c;
    }
    if (!r.defined()) continue;
    if (r.sizes() != g.sizes()) {
      std::ostringstream os;
      os << where << ": shape " << g.sizes() << " vs baseline " << r.sizes();
      c.detail = os.str();
      return c;
    }
    const torch::Tensor rd = r.detach().to(torch::kCPU, torch::kDouble);
    const torch::Tensor gd = g.detach().to(torch::kCPU, torch::kDouble);
    if (r.numel() > 0) {
      const torch::Tensor diff = (rd - gd).abs();
      // NaN in the same place on both sides counts as equal; elsewhere as a difference.
      const torch::Tensor both_nan = rd.isnan().logical_and(gd.isnan());
      const torch::Tensor d = diff.masked_fill(both_nan, 0).nan_to_num(INFINITY, INFINITY);
      c.max_abs_diff = std::max(c.max_abs_diff, d.max().item<double>());
      c.max_rel_diff = std::max(c.max_rel_diff, (d / rd.abs().clamp_min(1e-30)).max().item<double>());
    }
    bool equal;
    if (tol.bitwise()) {
      equal = r.scalar_type() == g.scalar_type() && torch::equal(r.detach().cpu(), g.detach().cpu());
      if (!equal && r.scalar_type() != g.scalar_type()) {
        c.detail = where + ": dtype " + std::string(c10::toString(g.scalar_type())) +
                   " vs baseline " + c10::toString(r.scalar_type()) + " (bitwise check)";
        return c;
      }
    } else {
      equal = torch::allclose(gd, rd, tol.rtol, tol.atol, /*equal_nan=*/true);
    }
    if (!equal) {
      std::ostringstream os;
      os << where << ": max |diff| " << c.max_abs_diff << ", max rel diff " << c.max_rel_diff
         << (tol.bitwise() ? " (bitwise equality required)"
                           : " (rtol " + std::to_string(tol.rtol) + ", atol " +
                                 std::to_string(tol.atol) + ")");
      c.detail = os.str();
      return c;
    }
  }
  c.equal = true;
  return c;
}

CheckReport RunChecks(const TrickDef& def, const torch::Device& device, uint64_t seed) {
  CheckReport report;
  auto fail = [&](const std::string& why) {
    if (report.ok) {
      report.ok = false;
      report.reason = why;
    }
  };
  for (const std::string& case_name : def.cases()) {
    CaseCheck cc;
    cc.case_name = case_name;
    Tensors baseline;
    const std::string where_case = case_name.empty() ? "" : case_name + "/";
    for (size_t vi = 0; vi < def.variants().size(); ++vi) {
      const auto& variant = def.variants()[vi];
      VariantCheck vc;
      vc.variant = variant.name;
      const std::string where = where_case + variant.name;
      try {
        NvtxRange range(def.id() + "/" + where + "/check");
        SeedEverything(seed);
        Tensors result;
        {
          CpuMemoryMeter meter;
          auto trick = def.Make();
          trick->SetUp(Setting{case_name, device, variant.name});
          vc.setup_bytes = meter.live_bytes();
          meter.ResetPeak();  // SetUp's temporaries are not the variant's cost
#ifdef TRICKBENCH_CUDA
          cuda::DeviceMemoryMeter device_meter(device);  // no-op unless a CUDA device
#endif
          const int64_t allocs_before = meter.allocations();
          for (int s = 0; s < def.check_steps(); ++s) variant.body(*trick);
          vc.peak_bytes = meter.peak_bytes();
          vc.run_peak_bytes = vc.peak_bytes - vc.setup_bytes;
          vc.allocations = meter.allocations() - allocs_before;
          result = trick->Result();
          vc.inactive = trick->Inactive(variant.name);
          vc.counters = trick->Counters(variant.name);
#ifdef TRICKBENCH_CUDA
          device_meter.AddCounters(&vc.counters);
#endif
        }
        if (vi == 0) {
          baseline = result;
          vc.vs_baseline.equal = true;
        } else {
          vc.vs_baseline = CompareResults(baseline, result, def.tolerance());
          if (!vc.vs_baseline.equal) {
            fail(where + " differs from " + def.variants().front().name + ": " +
                 vc.vs_baseline.detail);
          }
        }
        if (!vc.inactive.empty()) fail(where + " not in effect: " + vc.inactive);
      } catch (const std::exception& e) {
        vc.vs_baseline.detail = DescribeException(e);
        fail(where + " threw: " + DescribeException(e));
      }
      cc.variants.push_back(std::move(vc));
    }
    report.cases.push_back(std::move(cc));
  }
  return report;
}

Fingerprint ReproduceFingerprint(const TrickDef& def, const std::string& case_name,
                                 const torch::Device& device, uint64_t seed,
                                 const std::string& variant) {
  const std::string name = variant.empty() ? def.reproduced_variant() : variant;
  const int index = def.VariantIndex(name);
  if (index < 0) throw std::invalid_argument(def.id() + " has no variant " + name);
  DeterministicGuard guard;
  SeedEverything(seed);
  auto trick = def.Make();
  trick->SetUp(Setting{case_name, device, name});
  for (int s = 0; s < def.check_steps(); ++s) def.variants()[index].body(*trick);
  NamedTensors named;
  const Tensors result = trick->Result();
  for (size_t i = 0; i < result.size(); ++i) {
    named.emplace_back("result[" + std::to_string(i) + "]", result[i]);
  }
  return FingerprintTensors(named);
}

bool ResolveDevice(const std::string& flag, torch::Device* device, std::string* error) {
  const bool cuda = torch::cuda::is_available();
  if (flag == "cuda" && !cuda) {
    *error = "--device=cuda but no CUDA device is available (LibTorch build: " +
             std::string(TORCH_VERSION) + ")";
    return false;
  }
  *device = (flag == "cuda" || (flag == "auto" && cuda)) ? torch::Device(torch::kCUDA, 0)
                                                           : torch::Device(torch::kCPU);
  return true;
}

std::string ValidateDef(const TrickDef& def) {
  if (def.id().empty()) return "trick without an id";
  if (def.variants().size() < 2) {
    return def.id() + ": needs a baseline and at least one other variant";
  }
  if (def.claim().empty()) return def.id() + ": no Claim() from TRICKS.md";
  if (def.category().empty()) return def.id() + ": no Category()";
  if (def.source().empty()) return def.id() + ": no Source()";
  if (def.VariantIndex(def.reproduced_variant()) < 0) {
    return def.id() + ": Reproduce() names unknown variant " + def.reproduced_variant();
  }
  return "";
}

int TrickMain(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  RunOptions opts;
  std::string error;
  if (!ParseRunOptions(args, &opts, &error)) {
    std::cerr << "trickbench: " << error << "\n";
    return kExitUsage;
  }
  if (opts.help) {
    std::cout << kUsage;
#ifdef TRICKBENCH_CUDA
    std::cout << kCudaUsage;
#endif
    return 0;
  }
  const auto& tricks = RegisteredTricks();
  if (tricks.size() != 1) {
    std::cerr << "trickbench: this binary links " << tricks.size()
              << " tricks; a trick binary holds exactly one\n";
    return 1;
  }
  const TrickDef& def = *tricks.front();
  if (std::string bad = ValidateDef(def); !bad.empty()) {
    std::cerr << "trickbench: bad trick registration: " << bad << "\n";
    return 1;
  }
  if (opts.list) {
    std::cout << def.id() << " (" << def.category() << "; " << def.source() << ")\n  claim: "
              << def.claim() << "\n  variants:";
    for (const auto& v : def.variants()) std::cout << " " << v.name;
    std::cout << " (baseline: " << def.variants().front().name << ")\n  cases:";
    for (const auto& c : def.cases()) std::cout << " " << (c.empty() ? "(one)" : c);
    std::cout << "\n  needs CUDA: " << (def.needs_cuda() ? "yes" : "no") << "\n";
    return 0;
  }
  torch::Device device(torch::kCPU);
  if (!ResolveDevice(opts.device, &device, &error)) {
    std::cerr << "trickbench: " << error << "\n";
    return kExitUsage;
  }
#ifdef TRICKBENCH_CUDA
  g_flush_l2 = opts.flush_l2 && device.is_cuda();
  if (opts.flush_l2 && !device.is_cuda()) {
    std::cerr << "trickbench: --flush_l2 ignored: the device is " << device.str() << "\n";
  }
#endif
  const int threads =
      opts.threads > 0 ? opts.threads : std::max(1u, std::thread::hardware_concurrency());
  at::set_num_threads(threads);

  if (opts.fingerprint) {
    json out = {{"id", def.id()}, {"variant", def.reproduced_variant()}, {"seed", opts.seed}};
    json cases = json::array();
    try {
      for (const auto& c : def.cases()) {
        if (def.needs_cuda() && !device.is_cuda()) break;
        const Fingerprint f = ReproduceFingerprint(def, c, device, opts.seed);
        json tensors = json::array();
        for (const auto& t : f.tensors) tensors.push_back({{"name", t.name}, {"hash", t.hash}});
        cases.push_back({{"case", c}, {"digest", f.Hex()}, {"tensors", tensors}});
      }
    } catch (const std::exception& e) {
      std::cerr << "trickbench: " << def.id() << ": " << DescribeException(e) << "\n";
      return 1;
    }
    out["cases"] = cases;
    std::cout << out.dump() << "\n";
    return 0;
  }

  const std::string out_path = opts.out.empty() ? DefaultOutPath(def.id()) : opts.out;
  if (!CheckWritable(out_path, &error)) {
    std::cerr << "trickbench: bad --out: " << error << "\n";
    return kExitUsage;
  }
  NvtxRange trick_range(def.id());
  const Context context = CaptureContext(device);
  const std::string executable = argv[0];

  if (def.needs_cuda() && !device.is_cuda()) {
    const std::string reason = "needs CUDA (" + def.needs_cuda_reason() +
                               "); no CUDA device here (cuda_available=false)";
    json result = ResultWithoutBenchmarks(context, executable);
    result["trickbench"] = TrickJson(def, opts, device, "skipped", reason);
    result["trickbench"]["reproducibility"] = NotChecked(reason);
    std::cout << def.id() << ": skipped: " << reason << "\n";
    return WriteResult(out_path, result) ? 0 : 1;
  }

  std::cout << def.id() << ": checking " << def.variants().size() << " variants x "
            << def.cases().size() << " case(s) on " << device.str() << ", " << threads
            << " threads\n";
  const CheckReport checks = RunChecks(def, device, opts.seed);
  const json reproducibility = checks.ok ? ReproducibilityJson(def, device, opts.seed)
                                         : NotChecked("not run: the checks failed");
  if (!checks.ok || opts.check_only) {
    json result = ResultWithoutBenchmarks(context, executable);
    result["trickbench"] = TrickJson(def, opts, device, checks.ok ? "checked" : "invalid",
                                     checks.ok ? "timing not run (--check_only)" : checks.reason);
    result["trickbench"]["checks"] = ChecksJson(checks, def);
    result["trickbench"]["reproducibility"] = reproducibility;
    if (!checks.ok) std::cerr << def.id() << ": invalid: " << checks.reason << "\n";
    if (!WriteResult(out_path, result)) return 1;
    return checks.ok ? 0 : kExitInvalid;
  }

  // Google Benchmark writes its JSON next to the result; we add our object and rename.
  std::string gb_out = out_path + ".gb.XXXXXX";
  int fd = mkstemp(gb_out.data());
  if (fd < 0) {
    std::cerr << "trickbench: cannot create a temporary file beside " << out_path << "\n";
    return 1;
  }
  close(fd);
  // Repetitions and min time go in as flags, not per-benchmark setters: setters would
  // append "/min_time:.../repeats:..." to every name, and names are how results pair up.
  std::vector<std::string> gb_args = {argv[0], "--benchmark_out=" + gb_out,
                                      "--benchmark_out_format=json",
                                      "--benchmark_repetitions=" + std::to_string(opts.repetitions),
                                      "--benchmark_min_time=" + std::to_string(opts.min_time)};
  bool user_interleaving = false;
  for (const auto& f : opts.benchmark_flags) {
    user_interleaving |= StartsWith(f, "--benchmark_enable_random_interleaving");
    gb_args.push_back(f);
  }
  if (!user_interleaving) gb_args.push_back("--benchmark_enable_random_interleaving=true");
  std::vector<char*> gb_argv;
  for (auto& a : gb_args) gb_argv.push_back(a.data());
  int gb_argc = static_cast<int>(gb_argv.size());
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (benchmark::ReportUnrecognizedArguments(gb_argc, gb_argv.data())) {
    std::remove(gb_out.c_str());
    return kExitUsage;
  }
  for (const auto& [k, v] : context) benchmark::AddCustomContext(k, v);
  benchmark::AddCustomContext("trickbench_id", def.id());

  // One lazily built instance per (case, variant), so SetUp and warm-up happen once
  // and outside every measured region, whatever order the repetitions run in.
  struct Slot {
    std::unique_ptr<Trick> trick;
    std::string error;
  };
  auto slots = std::make_shared<std::map<std::pair<size_t, size_t>, Slot>>();
  for (size_t ci = 0; ci < def.cases().size(); ++ci) {
    for (size_t vi = 0; vi < def.variants().size(); ++vi) {
      const std::string name = BenchmarkName(def, def.cases()[ci], def.variants()[vi].name);
      const VariantCheck* vc = &checks.cases[ci].variants[vi];
      const uint64_t seed = opts.seed;
      const double warmup_seconds = std::min(0.05, opts.min_time);
      benchmark::internal::Benchmark* registered = benchmark::RegisterBenchmark(
          name.c_str(),
          [&def, slots, ci, vi, vc, seed, device, name, warmup_seconds](benchmark::State& state) {
            Slot& slot = (*slots)[{ci, vi}];
            const auto& body = def.variants()[vi].body;
            NvtxRange variant_range(name);
            try {
              if (!slot.trick && slot.error.empty()) {
                SeedEverything(seed);
                slot.trick = def.Make();
                slot.trick->SetUp(Setting{def.cases()[ci], device, def.variants()[vi].name});
                // Warm-up: first-touch page faults, lazy init, allocator caches.
                const auto start = std::chrono::steady_clock::now();
                do {
                  body(*slot.trick);
                } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                             .count() < warmup_seconds);
              }
              if (!slot.error.empty()) {
                state.SkipWithError(slot.error.c_str());
                return;
              }
              Trick& trick = *slot.trick;
              {
                NvtxRange measured(name + "/measured");
#ifdef TRICKBENCH_CUDA
                if (device.is_cuda()) {
                  cuda::TimeOnCurrentStream(state, device.index(), g_flush_l2, [&] { body(trick); });
                } else {
                  for (auto _ : state) body(trick);
                }
#else
                for (auto _ : state) body(trick);
#endif
              }
              state.counters["peak_bytes"] = static_cast<double>(vc->peak_bytes);
              state.counters["run_peak_bytes"] = static_cast<double>(vc->run_peak_bytes);
              state.counters["allocations_per_run"] =
                  static_cast<double>(vc->allocations) / def.check_steps();
              for (const auto& [k, v] : vc->counters) state.counters[k] = v;
              if (const int64_t items = trick.ItemsPerRun(); items > 0) {
                state.SetItemsProcessed(state.iterations() * items);
              }
            } catch (const std::exception& e) {
              slot.error = "threw: " + DescribeException(e);
              slot.trick.reset();
              state.SkipWithError(slot.error.c_str());
            }
          });
      // Wall time decides the iteration count and the rates: a trick whose work runs
      // on other threads (loader workers, intra-op pool) uses little main-thread CPU.
      registered->UseRealTime();
#ifdef TRICKBENCH_CUDA
      if (device.is_cuda()) registered->UseManualTime();
#endif
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  slots->clear();

  std::string read_error;
  const std::string gb_text = ReadFile(gb_out, &read_error);
  std::remove(gb_out.c_str());
  json result = json::parse(NullNonFiniteNumbers(gb_text), nullptr, /*allow_exceptions=*/false);
  if (result.is_discarded() || !result.contains("benchmarks")) {
    std::cerr << "trickbench: Google Benchmark wrote no readable JSON"
              << (read_error.empty() ? "" : " (" + read_error + ")") << "\n";
    return 1;
  }
  DropTimeTypeSuffix(&result);
  std::string status = "ok", reason;
  for (const auto& b : result["benchmarks"]) {
    if (b.value("error_occurred", false)) {
      status = "error";
      reason = b.value("name", "") + ": " + b.value("error_message", "");
      break;
    }
  }
  if (result["benchmarks"].empty()) {
    status = "error";
    reason = "no benchmark ran (check --benchmark_filter)";
  }
  result["trickbench"] = TrickJson(def, opts, device, status, reason);
#ifdef TRICKBENCH_CUDA
  if (device.is_cuda()) {
    result["trickbench"]["settings"]["timing"] = "cuda_events";
    result["trickbench"]["settings"]["flush_l2"] = g_flush_l2;
  }
#endif
  result["trickbench"]["checks"] = ChecksJson(checks, def);
  result["trickbench"]["reproducibility"] = reproducibility;
  if (!WriteResult(out_path, result)) return 1;
  if (status == "ok") PrintSummary(result, checks, def);
  else std::cerr << def.id() << ": " << status << ": " << reason << "\n";
  return status == "ok" ? 0 : 1;
}

}  // namespace trickbench
