#include "harness/profile.h"

#include <torch/csrc/autograd/profiler_kineto.h>
#include <torch/csrc/autograd/profiler_legacy.h>
#include <torch/cuda.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>

#include "determinism/seed.h"
#include "harness/allocator_regime.h"
#include "harness/checks.h"
#include "harness/nvtx.h"

namespace trickbench {
namespace {

namespace fs = std::filesystem;
namespace profiler = torch::autograd::profiler;
using torch::profiler::impl::ActivityType;
using torch::profiler::impl::ProfilerConfig;
using torch::profiler::impl::ProfilerState;

// Stops the profiler on every way out: a variant that throws must not leave it
// recording the rest of the process.
class Recording {
 public:
  Recording(const ProfilerConfig& config, const std::set<ActivityType>& activities) {
    profiler::prepareProfiler(config, activities);
    profiler::enableProfiler(config, activities);
    on_ = true;
  }
  ~Recording() {
    if (on_) profiler::disableProfiler();
  }
  std::unique_ptr<profiler::ProfilerResult> Stop() {
    on_ = false;
    return profiler::disableProfiler();
  }

 private:
  bool on_ = false;
};

// One traced run of `variant` after one untimed run; the trace goes to a temporary
// name first, so a failed save leaves no half-written trace under the final name.
void TraceOne(const TrickDef& def, const TrickDef::VariantSpec& variant,
              const std::string& case_name, const torch::Device& device, uint64_t seed,
              const std::string& path) {
  SeedEverything(seed);
  auto trick = def.Make();
  SetUpInstance(*trick, def.NewInstance(case_name, device, variant.name));
  variant.body(*trick);
  if (device.is_cuda()) torch::cuda::synchronize();
  std::set<ActivityType> activities{ActivityType::CPU};
  if (device.is_cuda()) activities.insert(ActivityType::CUDA);
  const ProfilerConfig config(ProfilerState::KINETO, /*report_input_shapes=*/true);
  std::unique_ptr<profiler::ProfilerResult> result;
  {
    NvtxRange range(def.id() + "/" + (case_name.empty() ? "" : case_name + "/") + variant.name +
                    "/profile");
    Recording recording(config, activities);
    variant.body(*trick);
    if (device.is_cuda()) torch::cuda::synchronize();
    result = recording.Stop();
  }
  if (!result) throw std::runtime_error("the profiler returned no result");
  const std::string tmp = path + ".tmp";
  try {
    result->save(tmp);
  } catch (const c10::Error& e) {
    // A LibTorch built without Kineto (Debian's 1.13) records but cannot save: trace
    // another run with the legacy profiler, which writes CPU ops only.
    if (std::string(e.what()).find("Kineto") == std::string::npos) throw;
    std::ofstream out(tmp);
    {
      profiler::RecordProfile legacy(out);
      variant.body(*trick);
    }
    if (!out.flush()) throw std::runtime_error("cannot write " + tmp);
  }
  std::error_code ec;
  if (!fs::exists(tmp, ec)) throw std::runtime_error("the profiler wrote no trace to " + tmp);
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw std::runtime_error("cannot rename the trace to " + path);
  }
}

}  // namespace

std::string TracePath(const std::string& result_path, const std::string& case_name,
                      const std::string& variant) {
  std::string stem = result_path;
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0) {
    stem.resize(stem.size() - 5);
  }
  return stem + ".profile/" + (case_name.empty() ? "" : case_name + ".") + variant + ".trace.json";
}

bool ProfileVariants(const TrickDef& def, const torch::Device& device, uint64_t seed,
                     const std::string& result_path, std::vector<ProfileTrace>* traces,
                     std::string* error) {
  for (const std::string& case_name : def.cases(device)) {
    for (const auto& variant : def.variants()) {
      const std::string where =
          def.id() + "/" + (case_name.empty() ? "" : case_name + "/") + variant.name;
      const std::string path = TracePath(result_path, case_name, variant.name);
      std::error_code ec;
      fs::create_directories(fs::path(path).parent_path(), ec);
      if (ec) {
        *error = where + ": cannot create " + fs::path(path).parent_path().string() + ": " +
                 ec.message();
        return false;
      }
      try {
        TraceOne(def, variant, case_name, device, seed, path);
      } catch (const std::exception& e) {
        *error = where + ": profile failed: " + DescribeException(e);
        return false;
      }
      traces->push_back({case_name, variant.name, path});
    }
  }
  return true;
}

}  // namespace trickbench
