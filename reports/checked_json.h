// Reading JSON that someone else wrote: every error names the file and the field.
//
//   const Json j = ReadJsonFile("run/alpha.json");          // or InputError
//   const Fields f("run/alpha.json");
//   int64_t peak = f.Int(v, "trickbench.checks[0].variants[1]", "peak_bytes", /*lo=*/0);
//   // InputError: "run/alpha.json: trickbench.checks[0].variants[1].peak_bytes:
//   //              expected an integer, got a string"
//
// Why not nlohmann's at()/get<>(): those throw type_error with no file and a path the
// user cannot act on, and a reader must never crash or half-read on a bad file.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace trickbench {
namespace reports {

using Json = nlohmann::ordered_json;

// Bad input: the file, the field (JSON path, "" for the whole file) and what is wrong.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string field, const std::string& problem);
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_, field_;
};

std::string TypeName(const Json& j);  // "a number", "a string", "null", ...
// "a.b" + "c" is "a.b.c" ("c" when the path is ""); "a.b" + 3 is "a.b[3]".
std::string JsonPath(const std::string& path, const std::string& key);
std::string JsonPath(const std::string& path, size_t index);

// Reads fields of one document, naming the file and the field in every error. `path`
// is the JSON path of `obj` itself ("" for the document).
class Fields {
 public:
  explicit Fields(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void Fail(const std::string& field, const std::string& problem) const;
  const Json& Member(const Json& obj, const std::string& path, const std::string& key) const;
  const Json& Object(const Json& obj, const std::string& path, const std::string& key) const;
  const Json& Array(const Json& obj, const std::string& path, const std::string& key) const;
  std::string String(const Json& obj, const std::string& path, const std::string& key) const;
  bool Bool(const Json& obj, const std::string& path, const std::string& key) const;
  double Number(const Json& obj, const std::string& path, const std::string& key) const;  // finite
  int64_t Int(const Json& obj, const std::string& path, const std::string& key,
              int64_t lo = INT64_MIN) const;
  std::vector<std::string> Strings(const Json& obj, const std::string& path,
                                   const std::string& key) const;
  void Version(const Json& obj, const std::string& path, int expected) const;
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// Parses `text`; on failure an InputError saying what is wrong in words a user can act
// on: empty, truncated, NaN or infinity (naming the key), not JSON, out of range.
Json ParseJsonText(const std::string& text, const std::string& file);
Json ReadJsonFile(const std::string& path);

}  // namespace reports
}  // namespace trickbench
