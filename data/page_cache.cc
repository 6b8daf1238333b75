#include "data/page_cache.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace trickbench::data {
namespace {

[[noreturn]] void Fail(const std::string& what, const std::string& path, int err) {
  throw std::runtime_error(what + " " + path + ": " + std::strerror(err));
}

}  // namespace

void SyncToDisk(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) Fail("cannot open for fsync", path, errno);
    // fsync on a read-only descriptor is allowed on Linux and flushes the file's dirty pages.
    const int err = fsync(fd) != 0 && errno != EINVAL ? errno : 0;
    close(fd);
    if (err) Fail("cannot fsync", path, err);
  }
}

EvictionReport EvictFromPageCache(const std::vector<std::string>& paths) {
  EvictionReport report;
  for (const std::string& path : paths) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) Fail("cannot open for eviction", path, errno);
    struct stat st;
    int err = 0;
    if (fstat(fd, &st) != 0) err = errno;
    if (!err) err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
    if (err) Fail("cannot evict from the page cache", path, err);
    ++report.files;
    report.bytes += st.st_size;
  }
  return report;
}

double ResidentFraction(const std::vector<std::string>& paths, size_t max_files) {
  if (paths.empty() || max_files == 0) return 0;
  const size_t stride = std::max<size_t>(1, paths.size() / max_files);
  const long page = sysconf(_SC_PAGESIZE);
  int64_t pages = 0, resident = 0;
  for (size_t i = 0; i < paths.size(); i += stride) {
    const int fd = open(paths[i].c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) Fail("cannot open", paths[i], errno);
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size == 0) {
      close(fd);
      continue;
    }
    void* map = mmap(nullptr, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) Fail("cannot map", paths[i], errno);
    const size_t n = (static_cast<size_t>(st.st_size) + page - 1) / page;
    std::vector<unsigned char> in_core(n);
    const int rc = mincore(map, st.st_size, in_core.data());
    const int err = errno;
    munmap(map, st.st_size);
    if (rc != 0) Fail("mincore failed on", paths[i], err);
    pages += static_cast<int64_t>(n);
    for (unsigned char c : in_core) resident += c & 1;
  }
  return pages == 0 ? 0 : static_cast<double>(resident) / static_cast<double>(pages);
}

bool IsRamBacked(const std::string& path) {
  struct statfs fs;
  if (statfs(path.c_str(), &fs) != 0) Fail("cannot statfs", path, errno);
  return fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC;
}

dev_t DeviceOf(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) Fail("cannot stat", path, errno);
  return st.st_dev;
}

std::string WhyNotReadFromStorage(const std::string& dir, double resident_after_evict,
                                  int64_t fetched_bytes, int64_t bytes_read) {
  if (IsRamBacked(dir)) return dir + " is RAM-backed (tmpfs/ramfs): its pages cannot be evicted";
  if (resident_after_evict >= 0.05) {
    return std::to_string(static_cast<int>(resident_after_evict * 100)) + " % of the files in " +
           dir + " stayed in the page cache after posix_fadvise(DONTNEED)";
  }
  if (fetched_bytes >= 0 && 2 * fetched_bytes < bytes_read) {
    return "the run fetched " + std::to_string(fetched_bytes) + " bytes from storage for the " +
           std::to_string(bytes_read) + " it read from " + dir + ": the page cache served the rest";
  }
  return "";
}

int64_t StorageReadBytes() {
  std::ifstream io("/proc/self/io");
  std::string key;
  int64_t value = 0;
  while (io >> key >> value) {
    if (key == "read_bytes:") return value;
  }
  return -1;
}

}  // namespace trickbench::data
