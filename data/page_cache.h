// Page-cache control, so that an I/O benchmark measures the storage and not RAM.
//
//   EvictionReport r = EvictFromPageCache(store.Files());
//   double left = ResidentFraction(store.Files());   // ~0 when eviction worked
//   if (IsRamBacked(dir)) ...                        // tmpfs: nothing to evict to
//
// Method: fsync (dirty pages cannot be dropped) then posix_fadvise(POSIX_FADV_DONTNEED)
// per file, unprivileged and per file, unlike /proc/sys/vm/drop_caches. It drops file
// data pages only: directory entries and inodes stay cached, so open() stays cheap.
// On tmpfs/ramfs the pages are the storage and stay: ResidentFraction then says 1.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace trickbench::data {

struct EvictionReport {
  std::string method = "fsync+posix_fadvise(DONTNEED)";
  int64_t files = 0;
  int64_t bytes = 0;
};

// Throws std::runtime_error naming the file when one cannot be opened or advised.
EvictionReport EvictFromPageCache(const std::vector<std::string>& paths);

// Fraction of the files' pages in the page cache (mincore), over at most `max_files`
// of them spread evenly through the list (a sample keeps it cheap).
double ResidentFraction(const std::vector<std::string>& paths, size_t max_files = 16);

// True on tmpfs or ramfs.
bool IsRamBacked(const std::string& path);

// st_dev of the file system holding `path`: equal ids mean the same device.
dev_t DeviceOf(const std::string& path);

}  // namespace trickbench::data
