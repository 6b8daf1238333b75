#include "results/checked_json.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

namespace trickbench {
namespace results {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The key whose value starts before `pos`: `"key": <here>`. Parse errors come with a
// byte offset only; the key is what the user can find in the file.
std::string KeyBefore(const std::string& text, size_t pos) {
  size_t colon = text.rfind(':', std::min(pos, text.size()));
  if (colon == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\r\n", colon - (colon > 0));
  if (end == std::string::npos || text[end] != '"' || end == 0) return "";
  size_t start = text.rfind('"', end - 1);
  if (start == std::string::npos) return "";
  return text.substr(start + 1, end - start - 1);
}

}  // namespace

InputError::InputError(std::string file, std::string field, const std::string& problem)
    : std::runtime_error(file + ": " + (field.empty() ? "" : field + ": ") + problem),
      file_(std::move(file)),
      field_(std::move(field)) {}

std::string TypeName(const Json& j) {
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_null()) return "null";
  if (j.is_array()) return "an array";
  if (j.is_object()) return "an object";
  return "something else";
}

std::string JsonPath(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string JsonPath(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

void Fields::Fail(const std::string& field, const std::string& problem) const {
  throw InputError(file_, field, problem);
}

bool Fields::Has(const Json& obj, const std::string& path, const std::string& key) const {
  if (!obj.is_object()) Fail(path, "expected an object, got " + TypeName(obj));
  return obj.contains(key);
}

const Json& Fields::Member(const Json& obj, const std::string& path, const std::string& key) const {
  if (!obj.is_object()) Fail(path, "expected an object, got " + TypeName(obj));
  const auto it = obj.find(key);
  if (it == obj.end()) Fail(JsonPath(path, key), "missing");
  return *it;
}

const Json& Fields::Object(const Json& obj, const std::string& path, const std::string& key) const {
  const Json& m = Member(obj, path, key);
  if (!m.is_object()) Fail(JsonPath(path, key), "expected an object, got " + TypeName(m));
  return m;
}

const Json& Fields::Array(const Json& obj, const std::string& path, const std::string& key) const {
  const Json& m = Member(obj, path, key);
  if (!m.is_array()) Fail(JsonPath(path, key), "expected an array, got " + TypeName(m));
  return m;
}

std::string Fields::String(const Json& obj, const std::string& path, const std::string& key) const {
  const Json& m = Member(obj, path, key);
  if (!m.is_string()) Fail(JsonPath(path, key), "expected a string, got " + TypeName(m));
  return m.get<std::string>();
}

bool Fields::Bool(const Json& obj, const std::string& path, const std::string& key) const {
  const Json& m = Member(obj, path, key);
  if (!m.is_boolean()) Fail(JsonPath(path, key), "expected a boolean, got " + TypeName(m));
  return m.get<bool>();
}

double Fields::Number(const Json& obj, const std::string& path, const std::string& key) const {
  const Json& m = Member(obj, path, key);
  if (!m.is_number()) Fail(JsonPath(path, key), "expected a number, got " + TypeName(m));
  const double v = m.get<double>();
  if (!std::isfinite(v)) Fail(JsonPath(path, key), "not a finite number");
  return v;
}

double Fields::NumberOrNull(const Json& obj, const std::string& path, const std::string& key,
                            double null_means) const {
  const Json& m = Member(obj, path, key);
  if (m.is_null()) return null_means;
  if (!m.is_number()) Fail(JsonPath(path, key), "expected a number or null, got " + TypeName(m));
  const double v = m.get<double>();
  if (!std::isfinite(v)) Fail(JsonPath(path, key), "not a finite number");
  return v;
}

int64_t Fields::Int(const Json& obj, const std::string& path, const std::string& key,
                    int64_t lo) const {
  const Json& m = Member(obj, path, key);
  if (!m.is_number_integer()) Fail(JsonPath(path, key), "expected an integer, got " + TypeName(m));
  const int64_t v =
      m.is_number_unsigned() && m.get<uint64_t>() > INT64_MAX ? INT64_MAX : m.get<int64_t>();
  if (v < lo) Fail(JsonPath(path, key), "out of range: " + std::to_string(v));
  return v;
}

double Fields::NumberAt(const Json& arr, const std::string& path, size_t i) const {
  const Json& m = arr.at(i);
  if (!m.is_number()) Fail(JsonPath(path, i), "expected a number, got " + TypeName(m));
  const double v = m.get<double>();
  if (!std::isfinite(v)) Fail(JsonPath(path, i), "not a finite number");
  return v;
}

int64_t Fields::IntAt(const Json& arr, const std::string& path, size_t i, int64_t lo,
                      int64_t hi) const {
  const Json& m = arr.at(i);
  if (!m.is_number_integer()) Fail(JsonPath(path, i), "expected an integer, got " + TypeName(m));
  const int64_t v =
      m.is_number_unsigned() && m.get<uint64_t>() > INT64_MAX ? INT64_MAX : m.get<int64_t>();
  if (v < lo || v > hi) Fail(JsonPath(path, i), "out of range: " + std::to_string(v));
  return v;
}

std::vector<std::string> Fields::Strings(const Json& obj, const std::string& path,
                                         const std::string& key) const {
  const Json& a = Array(obj, path, key);
  std::vector<std::string> out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string()) {
      Fail(JsonPath(JsonPath(path, key), i), "expected a string, got " + TypeName(a[i]));
    }
    out.push_back(a[i].get<std::string>());
  }
  return out;
}

void Fields::Version(const Json& obj, const std::string& path, int expected) const {
  Version(obj, path, expected, expected);
}

int Fields::Version(const Json& obj, const std::string& path, int oldest, int newest) const {
  const int64_t v = Int(obj, path, "schema_version");
  if (v < oldest || v > newest) {
    const std::string reads =
        oldest == newest ? "version " + std::to_string(newest)
                         : "versions " + std::to_string(oldest) + " to " + std::to_string(newest);
    Fail(JsonPath(path, "schema_version"),
         "wrong schema version " + std::to_string(v) + " (this build reads " + reads + ")");
  }
  return static_cast<int>(v);
}

Json ParseJsonText(const std::string& text, const std::string& file) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    const size_t pos = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      throw InputError(file, "", "not JSON: the file is empty");
    }
    if (pos >= text.size() || e.byte > text.size()) {
      throw InputError(
          file, "",
          "truncated: the JSON text ends early (byte " + std::to_string(text.size()) + ")");
    }
    const std::string around = Lower(text.substr(pos, 9));
    for (const char* bad : {"nan", "-nan", "inf", "-inf", "infinity", "-infinity"}) {
      if (around.rfind(bad, 0) == 0) {
        throw InputError(file, KeyBefore(text, pos),
                         "NaN or infinite number (not valid JSON, not a valid time) at byte " +
                             std::to_string(pos + 1));
      }
    }
    std::string what = e.what();
    const auto at = what.find("syntax error");
    throw InputError(file, "", "not JSON: " + (at == std::string::npos ? what : what.substr(at)));
  } catch (const Json::exception& e) {
    // A number too large for a double ("1e999"): name the key it belongs to.
    const std::string what = e.what();
    const auto q1 = what.find('\''), q2 = what.rfind('\'');
    std::string field;
    if (q1 != std::string::npos && q2 > q1) {
      const auto at = text.find(what.substr(q1 + 1, q2 - q1 - 1));
      if (at != std::string::npos) field = KeyBefore(text, at);
    }
    throw InputError(file, field, "number out of range (not a finite number)");
  }
}

Json ReadJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", std::string("cannot read: ") + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  return ParseJsonText(s.str(), path);
}

}  // namespace results
}  // namespace trickbench
