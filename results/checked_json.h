// Reading JSON that someone else wrote: every error names the file and the field.
//
//   const results::Json j = results::ReadJsonFile("run/alpha.json");   // or InputError
//   const results::Fields f("run/alpha.json");
//   const results::Json& tb = f.Object(j, "", "trickbench");
//   int64_t peak = f.Int(tb["checks"][0]["variants"][1], "trickbench.checks[0].variants[1]",
//                        "peak_bytes", /*lo=*/0);
//   // throws InputError: "run/alpha.json: trickbench.checks[0].variants[1].peak_bytes:
//   //                     expected an integer, got a string"
//
// Why a class and not nlohmann's at()/get<>(): those throw type_error with no file and
// a path the user cannot act on, and a reader must never crash or half-read on a bad
// file. Every reader of trickbench's files (results/, reports/) goes through here, so
// one bad input gets the same one-line message whichever tool met it.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace trickbench {
namespace results {

// Ordered: files are written in the order fields are set, so they read like SCHEMA.md.
using Json = nlohmann::ordered_json;

// Bad input: the file, the field (JSON path, "" for the whole file) and what is wrong.
// what() is "<file>: <field>: <problem>" (no field part when field is "").
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string field, const std::string& problem);
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }

 private:
  std::string file_, field_;
};

// "a number", "a string", "null", ...: for "expected X, got Y".
std::string TypeName(const Json& j);

// Field paths as errors print them: JsonPath("a.b", "c") is "a.b.c" ("c" when the path
// is ""); JsonPath("a.b", 3) is "a.b[3]".
std::string JsonPath(const std::string& path, const std::string& key);
std::string JsonPath(const std::string& path, size_t index);

// Reads fields of one document, naming the file and the field in every error. `path`
// is the JSON path of `obj` itself ("" for the document).
class Fields {
 public:
  explicit Fields(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void Fail(const std::string& field, const std::string& problem) const;

  // `obj` must be an object (else an error naming `path`); is `key` in it?
  bool Has(const Json& obj, const std::string& path, const std::string& key) const;

  const Json& Member(const Json& obj, const std::string& path, const std::string& key) const;
  const Json& Object(const Json& obj, const std::string& path, const std::string& key) const;
  const Json& Array(const Json& obj, const std::string& path, const std::string& key) const;
  std::string String(const Json& obj, const std::string& path, const std::string& key) const;
  bool Bool(const Json& obj, const std::string& path, const std::string& key) const;
  // Finite numbers only.
  double Number(const Json& obj, const std::string& path, const std::string& key) const;
  // A finite number, or null for a value that was not finite when written (JSON has
  // no NaN or infinity; nlohmann writes them as null): null reads as `null_means`.
  double NumberOrNull(const Json& obj, const std::string& path, const std::string& key,
                      double null_means) const;
  // Integers only (1.5 is refused); values above INT64_MAX read as INT64_MAX.
  int64_t Int(const Json& obj, const std::string& path, const std::string& key,
              int64_t lo = INT64_MIN) const;
  std::vector<std::string> Strings(const Json& obj, const std::string& path,
                                   const std::string& key) const;
  // Elements of the array `arr` (whose path is `path`): errors name "path[i]".
  double NumberAt(const Json& arr, const std::string& path, size_t i) const;
  int64_t IntAt(const Json& arr, const std::string& path, size_t i, int64_t lo = INT64_MIN,
                int64_t hi = INT64_MAX) const;
  // `obj`'s schema_version must be `expected`.
  void Version(const Json& obj, const std::string& path, int expected) const;
  // ... or between `oldest` and `newest`; returns it.
  int Version(const Json& obj, const std::string& path, int oldest, int newest) const;

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

// Parses `text`; on failure an InputError naming `file` and saying what is wrong in
// words a user can act on: empty, truncated, NaN or infinity (naming the key), not
// JSON, a number too large for a double.
Json ParseJsonText(const std::string& text, const std::string& file);

// Reads and parses the file at `path` (InputError "cannot read: ..." when it cannot).
Json ReadJsonFile(const std::string& path);

}  // namespace results
}  // namespace trickbench
