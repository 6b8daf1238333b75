// Data sets made once per run and read by every trick instance and process of it.
//
//   // In a trick's SetUp: the folder holds a complete data set, written by the first
//   // caller for this key in the run (in this process or an earlier one), read after.
//   const std::string dir = trickbench::SharedDataDir("packed_shards-v1-32px-512", [](
//       const std::string& out) { WriteMyStores(out); SyncToDisk(...); });
//   auto files = FileStore::Open(dir + "/files");
//
//   // In run_all: one folder per run, removed when the run ends (however it ends).
//   trickbench::RunDataDir run_data;   // sets $TRICKBENCH_SHARED_DATA_DIR for the children
//
// Why: every instance of a data trick (each variant's checks, its timed instance, the
// reproducibility runs) in each of a run's processes used to encode and write its own
// image set and fsync it, seconds per process of time that measured nothing. The content
// is the same every time (the key names everything it depends on, and the writer draws
// from its own seeded generator, not the harness's), so one copy serves them all. Reads
// are unchanged: tricks that time cold reads still evict the pages before each read.
//
// Where: $TRICKBENCH_SHARED_DATA_DIR when set (run_all's folder for the run); else, for a
// trick run alone, a folder of this process in DefaultDataRoot(), removed at its exit.
#pragma once

#include <functional>
#include <string>

namespace trickbench {

inline constexpr char kSharedDataEnv[] = "TRICKBENCH_SHARED_DATA_DIR";

// Where the benchmarks write their data sets: $TRICKBENCH_DATA_DIR when set, else the
// system temporary folder ($TMPDIR, /tmp). This is "the configured data dir" of
// fast_storage; set it to the storage you train from.
std::string DefaultDataRoot();

// The folder of the data set `key`. The first caller in a run calls `write(folder)` on a
// fresh folder beside the final one and renames it into place when `write` returns, so
// nobody ever sees half a data set (a writer that throws leaves nothing; the exception
// goes on). Later callers, in this process or a later one of the run, get the folder
// without writing. `key` must be a plain file name ([A-Za-z0-9._-], not starting with a
// dot) that changes whenever the content would; anything else throws
// std::invalid_argument. A folder that cannot be made throws std::runtime_error naming it.
std::string SharedDataDir(const std::string& key,
                          const std::function<void(const std::string& folder)>& write);

// run_all's folder for one run: made in DefaultDataRoot() and named to the children by
// $TRICKBENCH_SHARED_DATA_DIR; on destruction removed with everything in it, and the
// variable unset. Throws std::runtime_error when the folder cannot be made.
class RunDataDir {
 public:
  RunDataDir();
  ~RunDataDir();
  RunDataDir(const RunDataDir&) = delete;
  RunDataDir& operator=(const RunDataDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace trickbench
