// Page-cache control, so that an I/O benchmark measures the storage and not RAM.
//
//   SyncToDisk(store.Files());                      // once, after writing them
//   EvictionReport r = EvictFromPageCache(store.Files());
//   double left = ResidentFraction(store.Files());   // ~0 when eviction worked
//   if (IsRamBacked(dir)) ...                        // tmpfs: nothing to evict to
//
// Method: fsync once after writing (dirty pages cannot be dropped), then
// posix_fadvise(POSIX_FADV_DONTNEED) per file before each read: unprivileged and per
// file, unlike /proc/sys/vm/drop_caches. (Not fsync per eviction: on ext4 every fsync
// flushes the disk's write cache even with nothing to write, milliseconds per file.) It drops file
// data pages only: directory entries and inodes stay cached, so open() stays cheap.
// On tmpfs/ramfs the pages are the storage and stay: ResidentFraction then says 1.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace trickbench::data {

struct EvictionReport {
  std::string method = "posix_fadvise(DONTNEED)";
  int64_t files = 0;
  int64_t bytes = 0;
};

// fsync every file. Throws std::runtime_error naming the file when one fails.
void SyncToDisk(const std::vector<std::string>& paths);

// Drops the files' clean pages. Throws std::runtime_error naming the file when one
// cannot be opened or advised.
EvictionReport EvictFromPageCache(const std::vector<std::string>& paths);

// Fraction of the files' pages in the page cache (mincore), over at most `max_files`
// of them spread evenly through the list (a sample keeps it cheap).
double ResidentFraction(const std::vector<std::string>& paths, size_t max_files = 16);

// True on tmpfs or ramfs.
bool IsRamBacked(const std::string& path);

// Bytes this process has caused to be fetched from storage since it started
// (/proc/self/io read_bytes: page-cache misses, readahead included; reads served from
// the cache or from tmpfs add nothing). -1 when the kernel does not account I/O.
// The difference over a run says whether the run really read from the storage.
int64_t StorageReadBytes();

// "" when a run that read `bytes_read` bytes of files under `dir`, right after
// EvictFromPageCache, read them from the storage; else why not, for the I/O tricks'
// Inactive() (a comparison against a cached "cold" read measures RAM twice): `dir` is
// RAM-backed, `resident_after_evict` (ResidentFraction right after the eviction) is 5 %
// or more, or `fetched_bytes` (StorageReadBytes over the run; -1: not accounted, not
// judged) is under half of `bytes_read` (readahead only adds to it).
std::string WhyNotReadFromStorage(const std::string& dir, double resident_after_evict,
                                  int64_t fetched_bytes, int64_t bytes_read);

// st_dev of the file system holding `path`: equal ids mean the same device.
dev_t DeviceOf(const std::string& path);

}  // namespace trickbench::data
