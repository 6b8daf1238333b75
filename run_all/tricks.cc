#include "run_all/tricks.h"

#include <unistd.h>

#include <algorithm>
#include <set>

namespace trickbench {
namespace run_all {
namespace {

namespace fs = std::filesystem;

std::string Join(const std::set<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// The trick binaries bound to this run_all when none is given on the command line (it
// was run directly, as bazel-bin/benches/run_all or a CMake build's run_all, not by
// `bazel run`, which passes them): the runfiles of //benches:run_all (its data), else
// the benches/ folder beside a CMake build's run_all. *searched lists where it looked.
std::vector<std::string> BoundTricks(std::string* searched) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  for (const fs::path& dir : {fs::path(self.string() + ".runfiles") / "trickbench" / "benches",
                              self.parent_path() / "benches"}) {
    *searched += (searched->empty() ? "" : ", ") + dir.string();
    std::vector<std::string> found;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code same_ec;  // run_all is in its own runfiles: not a trick
      if (IsExecutableFile(it->path()) && !fs::equivalent(it->path(), self, same_ec)) {
        found.push_back(it->path().string());
      }
    }
    if (!found.empty()) {
      std::sort(found.begin(), found.end());
      return found;
    }
  }
  return {};
}

// The trick ids --only/--skip leave of `known` (in its order); false on an unknown id.
bool Select(const Options& o, const std::vector<std::string>& known, std::vector<std::string>* ids,
            std::string* error) {
  const std::set<std::string> known_set(known.begin(), known.end());
  for (const auto* list : {&o.only, &o.skip}) {
    for (const auto& id : *list) {
      if (!known_set.count(id)) {
        *error = "unknown trick '" + id + "' (known: " + Join(known_set) + ")";
        return false;
      }
    }
  }
  const std::set<std::string> only(o.only.begin(), o.only.end());
  const std::set<std::string> skip(o.skip.begin(), o.skip.end());
  for (const auto& id : known) {
    if ((only.empty() || only.count(id)) && !skip.count(id)) ids->push_back(id);
  }
  return true;
}

// An A/B session's tricks: those given to run_all (bazel run passes every trick), else
// every executable file of the old folder, that both folders have.
bool AbTricks(const Options& o, std::vector<std::string>* ids, std::string* error) {
  for (const std::string& dir : {o.ab_old_dir, o.ab_new_dir}) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      *error = "--ab: " + dir + " is not a folder of trick binaries";
      return false;
    }
  }
  std::vector<std::string> candidates;
  for (const auto& b : o.binaries) candidates.push_back(TrickId(b));
  if (candidates.empty()) {
    for (const auto& e : fs::directory_iterator(o.ab_old_dir)) {
      if (IsExecutableFile(e.path())) candidates.push_back(e.path().filename().string());
    }
    std::sort(candidates.begin(), candidates.end());
  }
  for (const auto& id : candidates) {
    if (IsExecutableFile(fs::path(o.ab_old_dir) / id) &&
        IsExecutableFile(fs::path(o.ab_new_dir) / id)) {
      ids->push_back(id);
    }
  }
  if (ids->empty()) {
    *error = "--ab: no trick binary is in both " + o.ab_old_dir + " and " + o.ab_new_dir;
    return false;
  }
  return true;
}

// The trick ids the command line names, in order (--ab: those both folders have; else
// the binaries given, or the ones bound to this run_all); false with *error otherwise.
bool KnownTricks(Options* o, std::vector<std::string>* known, std::string* error) {
  if (o->ab()) return AbTricks(*o, known, error);
  if (o->binaries.empty()) {
    std::string searched;
    o->binaries = BoundTricks(&searched);
    if (o->binaries.empty()) {
      *error = "no trick binary given, and none found in " + searched +
               ": run it as `bazel run //benches:run_all`, or name the binaries "
               "(bazel-bin/benches/run_all bazel-bin/benches/<id>...)";
      return false;
    }
  }
  // bazel run passes every trick binary as an argument; an id typed after `--` would
  // otherwise join them as a binary of its own and run twice (or fail late).
  for (const auto& b : o->binaries) {
    if (!IsExecutableFile(b)) {
      *error = b +
               " is not a trick binary (the arguments are the binaries; to run some "
               "tricks, --only=" +
               TrickId(b) + ")";
      return false;
    }
    if (std::find(known->begin(), known->end(), TrickId(b)) != known->end()) {
      *error = "trick " + TrickId(b) + " is given twice";
      return false;
    }
    known->push_back(TrickId(b));
  }
  return true;
}

}  // namespace

std::string TrickId(const std::string& binary) { return fs::path(binary).filename().string(); }

bool IsExecutableFile(const std::filesystem::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0;
}

bool ChooseTricks(Options* o, std::vector<std::string>* ids, std::string* error) {
  std::vector<std::string> known;
  return KnownTricks(o, &known, error) && Select(*o, known, ids, error);
}

}  // namespace run_all
}  // namespace trickbench
