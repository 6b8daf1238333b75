#include "data/sample_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace trickbench::data {
namespace {

constexpr char kShardMagic[8] = {'T', 'B', 'S', 'H', 'A', 'R', 'D', '1'};
constexpr size_t kFooter = 24;

[[noreturn]] void Fail(const std::string& what, const std::string& path) {
  throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

// pread until `n` bytes are in or the file ends; returns how many were read.
size_t PreadFully(int fd, char* buf, size_t n, uint64_t offset, const std::string& path) {
  size_t done = 0;
  while (done < n) {
    const ssize_t r = pread(fd, buf + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      Fail("cannot read", path);
    }
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  return done;
}

}  // namespace

std::string ReadWholeFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) Fail("cannot open sample file", path);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int e = errno;
    close(fd);
    errno = e;
    Fail("cannot stat sample file", path);
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  try {
    got = PreadFully(fd, bytes.data(), bytes.size(), 0, path);
  } catch (...) {
    close(fd);
    throw;
  }
  close(fd);
  bytes.resize(got);
  return bytes;
}

void WriteWholeFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

FileStore FileStore::Write(const std::string& dir, const std::vector<EncodedSample>& samples,
                           ImageFormat format) {
  std::filesystem::create_directories(dir);
  std::string labels;
  for (size_t i = 0; i < samples.size(); ++i) {
    const std::string name =
        std::to_string(i) + "_" + std::to_string(samples[i].label) + Extension(format);
    WriteWholeFile(dir + "/" + name, samples[i].bytes);
    labels += name + " " + std::to_string(samples[i].label) + "\n";
  }
  WriteWholeFile(dir + "/labels.txt", labels);
  return FileStore(dir);
}

FileStore::FileStore(const std::string& dir) {
  std::ifstream in(dir + "/labels.txt");
  if (!in) throw std::runtime_error("cannot open " + dir + "/labels.txt (not a FileStore folder?)");
  std::string name;
  int64_t label;
  while (in >> name >> label) {
    paths_.push_back(dir + "/" + name);
    labels_.push_back(label);
  }
  if (!in.eof()) throw std::runtime_error("malformed line in " + dir + "/labels.txt");
}

Sample FileStore::Read(size_t index) const {
  if (index >= paths_.size()) {
    throw std::out_of_range("sample " + std::to_string(index) + " of a FileStore of " +
                            std::to_string(paths_.size()));
  }
  return {ReadWholeFile(paths_[index]), labels_[index], paths_[index], paths_[index]};
}

void ShardStore::Write(const std::string& path, const std::vector<EncodedSample>& samples) {
  std::string data;
  std::vector<Entry> index;
  for (const auto& s : samples) {
    index.push_back({data.size(), s.bytes.size(), s.label});
    data += s.bytes;
  }
  const uint64_t count = index.size(), index_offset = data.size();
  data.append(reinterpret_cast<const char*>(index.data()), index.size() * sizeof(Entry));
  data.append(reinterpret_cast<const char*>(&count), sizeof count);
  data.append(reinterpret_cast<const char*>(&index_offset), sizeof index_offset);
  data.append(kShardMagic, sizeof kShardMagic);
  WriteWholeFile(path, data);
}

ShardStore::ShardStore(const std::string& path) : path_(path) {
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) Fail("cannot open shard", path);
  auto bad = [&](const std::string& why) {
    close(fd_);
    fd_ = -1;
    throw std::runtime_error("not a trickbench shard: " + path + ": " + why);
  };
  struct stat st;
  if (fstat(fd_, &st) != 0) Fail("cannot stat shard", path);
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  if (file_size < kFooter) bad("shorter than its footer");
  char footer[kFooter];
  if (PreadFully(fd_, footer, kFooter, file_size - kFooter, path) != kFooter)
    bad("footer cut short");
  if (std::memcmp(footer + 16, kShardMagic, sizeof kShardMagic) != 0) bad("bad magic");
  uint64_t count, index_offset;
  std::memcpy(&count, footer, 8);
  std::memcpy(&index_offset, footer + 8, 8);
  if (index_offset > file_size - kFooter ||
      (file_size - kFooter - index_offset) != count * sizeof(Entry)) {
    bad("index of " + std::to_string(count) + " records does not fit the file size " +
        std::to_string(file_size));
  }
  index_.resize(count);
  PreadFully(fd_, reinterpret_cast<char*>(index_.data()), count * sizeof(Entry), index_offset,
             path);
  for (size_t i = 0; i < count; ++i) {
    if (index_[i].offset + index_[i].size > index_offset) {
      bad("record " + std::to_string(i) + " runs past the data");
    }
  }
}

ShardStore::~ShardStore() {
  if (fd_ >= 0) close(fd_);
}

Sample ShardStore::Read(size_t index) const {
  if (index >= index_.size()) {
    throw std::out_of_range("record " + std::to_string(index) + " of shard " + path_ + " with " +
                            std::to_string(index_.size()));
  }
  const Entry& e = index_[index];
  Sample s{std::string(e.size, '\0'), e.label, path_ + "#" + std::to_string(index), path_};
  if (PreadFully(fd_, s.bytes.data(), e.size, e.offset, path_) != e.size) {
    throw std::runtime_error("shard " + s.name + " cut short");
  }
  return s;
}

}  // namespace trickbench::data
