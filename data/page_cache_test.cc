#include "data/page_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "data/image_set.h"
#include "data/sample_store.h"

namespace trickbench::data {
namespace {

TEST(PageCache, EvictionEmptiesTheCacheOnDiskAndNotOnTmpfs) {
  TempDir dir(DefaultDataRoot(), "cache_test");
  const std::string path = dir.path() + "/blob";
  WriteWholeFile(path, std::string(4 << 20, 'x'));
  ReadWholeFile(path);
  EXPECT_GT(ResidentFraction({path}), 0.9);  // just written and read: cached
  SyncToDisk({path});
  const EvictionReport r = EvictFromPageCache({path});
  EXPECT_EQ(r.files, 1);
  EXPECT_EQ(r.bytes, 4 << 20);
  EXPECT_EQ(r.method, "posix_fadvise(DONTNEED)");
  if (IsRamBacked(dir.path())) {
    EXPECT_GT(ResidentFraction({path}), 0.9) << "tmpfs pages are the storage itself";
  } else {
    EXPECT_LT(ResidentFraction({path}), 0.1) << "fadvise(DONTNEED) left the file cached";
  }
  const int64_t fetched_before = StorageReadBytes();
  ReadWholeFile(path);
  EXPECT_GT(ResidentFraction({path}), 0.9);
  if (fetched_before >= 0) {
    const int64_t fetched = StorageReadBytes() - fetched_before;
    if (IsRamBacked(dir.path())) {
      EXPECT_EQ(fetched, 0) << "tmpfs reads come from RAM";
    } else {
      EXPECT_GE(fetched, 4 << 20) << "the evicted file was read from the cache, not the disk";
    }
  }
  const int64_t cached_before = StorageReadBytes();
  ReadWholeFile(path);
  if (cached_before >= 0) {
    EXPECT_LT(StorageReadBytes() - cached_before, 1 << 20) << "read again: from the cache";
  }
}

TEST(PageCache, WhyNotReadFromStorageNamesTheFailure) {
  TempDir dir(DefaultDataRoot(), "cache_test");
  if (IsRamBacked(dir.path())) {
    EXPECT_NE(WhyNotReadFromStorage(dir.path(), 0, 100, 100).find("RAM-backed"), std::string::npos);
    return;
  }
  EXPECT_EQ(WhyNotReadFromStorage(dir.path(), 0, 4096, 1000), "");
  EXPECT_EQ(WhyNotReadFromStorage(dir.path(), 0.04, -1, 1000), "") << "I/O not accounted";
  EXPECT_NE(WhyNotReadFromStorage(dir.path(), 0.5, 4096, 1000).find("50 %"), std::string::npos);
  EXPECT_NE(WhyNotReadFromStorage(dir.path(), 0, 400, 1000).find("page cache served"),
            std::string::npos);
  if (std::filesystem::exists("/dev/shm")) {
    EXPECT_NE(WhyNotReadFromStorage("/dev/shm", 0, 0, 0).find("RAM-backed"), std::string::npos);
  }
}

TEST(PageCache, TmpfsIsRamBacked) {
  if (!std::filesystem::exists("/dev/shm")) GTEST_SKIP() << "no /dev/shm here";
  EXPECT_TRUE(IsRamBacked("/dev/shm"));
  EXPECT_NE(DeviceOf("/dev/shm"), DeviceOf("/"));
}

TEST(PageCache, MissingFilesAreNamed) {
  try {
    SyncToDisk({"/nonexistent/trickbench_sample.jpg"});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/trickbench_sample.jpg"), std::string::npos);
  }
  EXPECT_THROW(EvictFromPageCache({"/nonexistent/x"}), std::runtime_error);
  EXPECT_THROW(ResidentFraction({"/nonexistent/x"}), std::runtime_error);
  EXPECT_THROW(DeviceOf("/nonexistent/x"), std::runtime_error);
}

}  // namespace
}  // namespace trickbench::data
