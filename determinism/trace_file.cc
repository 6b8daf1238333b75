#include "determinism/trace_file.h"

#include <torch/cuda.h>
#include <torch/version.h>

#include <cstdio>
#include <stdexcept>

#include "common/atomic_file.h"
#include "common/host.h"
#include "determinism/audit.h"
#include "results/checked_json.h"

namespace trickbench {
namespace {

std::vector<uint64_t> Hashes(const results::Fields& f, const results::Json& obj,
                             const std::string& path, const std::string& key) {
  std::vector<uint64_t> out;
  for (const std::string& s : f.Strings(obj, path, key)) {
    uint64_t h = 0;
    if (!ParseHashHex(s, &h))
      f.Fail(results::JsonPath(path, key), "'" + s + "' is not 16 hex digits");
    out.push_back(h);
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> RecordedEnvironment() {
  std::map<std::string, std::string> env;
  env["torch"] = TORCH_VERSION;  // as the result context's torch_version writes it
  env["host"] = HostName();
  env["cpu_model"] = CpuModel();
  env["cuda_devices"] = std::to_string(torch::cuda::device_count());
  return env;
}

std::string TraceFileJson(const TraceFile& file) {
  results::Json j;
  j["schema"] = kTraceSchema;
  j["schema_version"] = kTraceSchemaVersion;
  j["label"] = file.label;
  j["seed"] = file.seed;
  j["environment"] = results::Json::object();
  for (const auto& [k, v] : file.environment) j["environment"][k] = v;
  j["audit"] = results::Json::array();
  for (const Precondition& p : file.audit) {
    j["audit"].push_back({{"name", p.name},
                          {"state", p.state},
                          {"status", StatusName(p.status)},
                          {"fix", p.fix},
                          {"why", p.why}});
  }
  if (file.ops_step >= 0) {
    results::Json records = results::Json::array();
    for (const OpRecord& op : file.ops) {
      results::Json in = results::Json::array(), out = results::Json::array();
      for (uint64_t h : op.inputs) in.push_back(HashHex(h));
      for (uint64_t h : op.outputs) out.push_back(HashHex(h));
      records.push_back({{"name", op.name}, {"inputs", in}, {"outputs", out}});
    }
    j["ops"] = {{"step", file.ops_step}, {"records", records}};
  }
  if (file.determinism_cost) {
    const CostSamples& c = *file.determinism_cost;
    j["determinism_cost"] = {
        {"log_ratios", c.log_ratios}, {"steps_per_sample", c.steps_per_sample}, {"error", c.error}};
  }
  // One serialisation of the steps: TrainingTrace's own.
  j["steps"] = results::Json::parse(file.trace.ToJson())["steps"];
  return j.dump(1) + "\n";
}

bool WriteTraceFile(const std::string& path, const TraceFile& file, std::string* error) {
  if (WriteFileAtomically(path, TraceFileJson(file), error)) return true;
  *error = "cannot write the trace " + path + ": " + *error;  // its message names the folder
  return false;
}

namespace {

TraceFile FromJson(const results::Json& j, const std::string& file) {
  const results::Fields f(file);
  if (!j.is_object()) f.Fail("", "expected a trace file (an object), got " + results::TypeName(j));
  const std::string schema = f.String(j, "", "schema");
  if (schema != kTraceSchema) {
    f.Fail("schema", "'" + schema + "' is not a trace file (expected '" + kTraceSchema + "')");
  }
  f.Version(j, "", kTraceSchemaVersion);
  TraceFile out;
  out.label = f.String(j, "", "label");
  out.seed = static_cast<uint64_t>(f.Int(j, "", "seed", /*lo=*/0));
  const results::Json& env = f.Object(j, "", "environment");
  for (auto it = env.begin(); it != env.end(); ++it) {
    out.environment[it.key()] = f.String(env, "environment", it.key());
  }
  const results::Json& audit = f.Array(j, "", "audit");
  for (size_t i = 0; i < audit.size(); ++i) {
    const std::string at = results::JsonPath("audit", i);
    Precondition p;
    p.name = f.String(audit[i], at, "name");
    p.state = f.String(audit[i], at, "state");
    const std::string status = f.String(audit[i], at, "status");
    if (!ParseStatus(status, &p.status)) {
      f.Fail(results::JsonPath(at, "status"), "'" + status + "' is not ok, NOT OK, n/a or advice");
    }
    p.fix = f.String(audit[i], at, "fix");
    p.why = f.String(audit[i], at, "why");
    out.audit.push_back(std::move(p));
  }
  if (f.Has(j, "", "ops")) {
    const results::Json& ops = f.Object(j, "", "ops");
    out.ops_step = f.Int(ops, "ops", "step", /*lo=*/0);
    const results::Json& records = f.Array(ops, "ops", "records");
    for (size_t i = 0; i < records.size(); ++i) {
      const std::string at = results::JsonPath("ops.records", i);
      OpRecord op;
      op.name = f.String(records[i], at, "name");
      op.inputs = Hashes(f, records[i], at, "inputs");
      op.outputs = Hashes(f, records[i], at, "outputs");
      out.ops.push_back(std::move(op));
    }
  }
  if (f.Has(j, "", "determinism_cost")) {
    const results::Json& c = f.Object(j, "", "determinism_cost");
    CostSamples cost;
    const results::Json& ratios = f.Array(c, "determinism_cost", "log_ratios");
    for (size_t i = 0; i < ratios.size(); ++i) {
      cost.log_ratios.push_back(f.NumberAt(ratios, "determinism_cost.log_ratios", i));
    }
    cost.steps_per_sample = f.Int(c, "determinism_cost", "steps_per_sample", /*lo=*/0);
    cost.error = f.String(c, "determinism_cost", "error");
    if (cost.log_ratios.empty() && cost.error.empty()) {
      f.Fail("determinism_cost", "neither log_ratios nor an error");
    }
    out.determinism_cost = std::move(cost);
  }
  const results::Json& steps = f.Array(j, "", "steps");
  try {
    out.trace = TrainingTrace::FromJson(results::Json{{"steps", steps}}.dump());
  } catch (const std::invalid_argument& e) {
    // FromJson names the step and the field ("steps[2] lacks \"digest\"").
    throw results::InputError(file, "", e.what());
  }
  return out;
}

}  // namespace

TraceFile ParseTraceFile(const std::string& text, const std::string& file) {
  return FromJson(results::ParseJsonText(text, file), file);
}

TraceFile ReadTraceFile(const std::string& path) {
  return FromJson(results::ReadJsonFile(path), path);
}

}  // namespace trickbench
