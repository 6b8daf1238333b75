#include "common/shared_data.h"

#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace trickbench {
namespace {

namespace fs = std::filesystem;

std::string MakeTempFolder(const std::string& parent, const std::string& prefix) {
  std::string pattern = parent + "/" + prefix + ".XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a folder in " + parent + ": " + std::strerror(errno));
  }
  return pattern;
}

// A trick run alone: one folder for this process, made on first use, removed at exit,
// a normal one or the quick one a trick process ends with (harness/end_process.h).
class ProcessDataDir {
 public:
  static ProcessDataDir& Get() {
    static ProcessDataDir dir;
    return dir;
  }
  const std::string& path() {
    if (path_.empty()) {
      path_ = MakeTempFolder(DefaultDataRoot(), "trickbench-data");
      std::at_quick_exit([] { Get().Remove(); });
    }
    return path_;
  }
  ~ProcessDataDir() { Remove(); }

 private:
  void Remove() {
    std::error_code ec;  // at exit: a leftover folder is the lesser evil
    if (!path_.empty()) fs::remove_all(path_, ec);
    path_.clear();
  }
  std::string path_;
};

std::string Root() {
  if (const char* v = std::getenv(kSharedDataEnv); v && *v) {
    std::error_code ec;
    if (!fs::is_directory(v, ec)) {
      throw std::runtime_error(std::string("$") + kSharedDataEnv + "=" + v +
                               " is not a folder (run_all makes it for its run)");
    }
    return v;
  }
  return ProcessDataDir::Get().path();
}

bool PlainName(const std::string& key) {
  if (key.empty() || key[0] == '.') return false;
  for (const char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string DefaultDataRoot() {
  for (const char* var : {"TRICKBENCH_DATA_DIR", "TMPDIR"}) {
    if (const char* v = std::getenv(var); v && *v) return v;
  }
  return "/tmp";
}

std::string SharedDataDir(const std::string& key,
                          const std::function<void(const std::string& folder)>& write) {
  if (!PlainName(key)) {
    throw std::invalid_argument("bad shared data key '" + key +
                                "': use a plain file name of [A-Za-z0-9._-]");
  }
  const std::string root = Root();
  const std::string final_path = root + "/" + key;
  std::error_code ec;
  if (fs::is_directory(final_path, ec)) return final_path;
  // Written beside its final place (same file system: the rename is atomic), under a
  // name no other writer uses; a folder that is there is always complete.
  const std::string partial = MakeTempFolder(root, "." + key + ".partial");
  try {
    write(partial);
  } catch (...) {
    fs::remove_all(partial, ec);
    throw;
  }
  if (std::rename(partial.c_str(), final_path.c_str()) != 0) {
    const int err = errno;
    fs::remove_all(partial, ec);
    // Another writer finished first: its copy is as good as ours.
    if (fs::is_directory(final_path, ec)) return final_path;
    throw std::runtime_error("cannot move the data set into " + final_path + ": " +
                             std::strerror(err));
  }
  return final_path;
}

RunDataDir::RunDataDir() : path_(MakeTempFolder(DefaultDataRoot(), "trickbench-run-data")) {
  setenv(kSharedDataEnv, path_.c_str(), 1);
}

RunDataDir::~RunDataDir() {
  unsetenv(kSharedDataEnv);
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace trickbench
