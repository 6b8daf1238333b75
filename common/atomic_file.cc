#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/write_all.h"

namespace trickbench {
namespace {

std::string Folder(const std::string& path) {
  auto parent = std::filesystem::path(path).parent_path();
  return parent.empty() ? "." : parent.string();
}

bool Fail(std::string* error, const std::string& what) {
  if (error) *error = what + ": " + std::strerror(errno);
  return false;
}

}  // namespace

bool WriteFileAtomically(const std::string& path, const std::string& content, std::string* error) {
  if (path.empty()) {
    if (error) *error = "empty output path";
    return false;
  }
  std::string tmp = path + ".tmp.XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) return Fail(error, "cannot create a file in " + Folder(path));
  if (!WriteAll(fd, content)) {
    const int saved = errno;
    close(fd);
    unlink(tmp.c_str());
    errno = saved;
    return Fail(error, "cannot write " + path);
  }
  if (fsync(fd) != 0 || fchmod(fd, 0644) != 0 || close(fd) != 0) {
    const int saved = errno;
    unlink(tmp.c_str());
    errno = saved;
    return Fail(error, "cannot write " + path);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    unlink(tmp.c_str());
    errno = saved;
    return Fail(error, "cannot rename into " + path);
  }
  return true;
}

bool CheckWritable(const std::string& path, std::string* error) {
  if (path.empty()) {
    if (error) *error = "empty output path";
    return false;
  }
  if (std::filesystem::is_directory(path)) {
    if (error) *error = path + " is a directory, expected a file path";
    return false;
  }
  std::string probe = Folder(path) + "/.trickbench-probe.XXXXXX";
  int fd = mkstemp(probe.data());
  if (fd < 0) return Fail(error, "cannot write into " + Folder(path) + " (for " + path + ")");
  close(fd);
  unlink(probe.c_str());
  return true;
}

std::string ReadFile(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = "cannot read " + path + ": " + std::strerror(errno);
    return "";
  }
  std::ostringstream os;
  os << in.rdbuf();
  if (error) error->clear();
  return os.str();
}

}  // namespace trickbench
