#include "common/flags.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace trickbench {
namespace {

using Store = std::function<void()>;

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// "--name" of "--name=value".
std::string FlagName(const std::string& arg) { return arg.substr(0, arg.find('=')); }

std::string BadValue(const std::string& name, const std::string& value,
                     const std::string& expected) {
  return "bad value for --" + name + ": '" + value + "' (expected " + expected + ")";
}

// strtoll/strtod skip leading blanks and accept a sign the range check then has to
// catch; a value must start with what a number starts with.
bool LooksNumeric(const std::string& v, bool allow_minus) {
  if (v.empty()) return false;
  const size_t first = (allow_minus && v[0] == '-') ? 1 : 0;
  return first < v.size() &&
         (std::isdigit(static_cast<unsigned char>(v[first])) || v[first] == '.');
}

// 3600, 86400, 0.5: the shortest text that reads back the same.
std::string FormatNumber(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// "a", "a or b", "a, b or c".
std::string OneOf(const std::vector<std::string>& choices) {
  std::string out;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) out += i + 1 == choices.size() ? " or " : ", ";
    out += choices[i];
  }
  return out;
}

}  // namespace

Flags::Flags(std::string program) : program_(std::move(program)) {}

Flags& Flags::Add(Flag flag) {
  if (flag.name.empty() || StartsWith(flag.name, "-") || flag.name.find('=') != std::string::npos) {
    throw std::logic_error(program_ + ": bad flag name '" + flag.name + "'");
  }
  if (Find(flag.name)) {
    throw std::logic_error(program_ + ": flag --" + flag.name + " declared twice");
  }
  flags_.push_back(std::move(flag));
  return *this;
}

const Flags::Flag* Flags::Find(const std::string& name) const {
  for (const Flag& f : flags_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Flags& Flags::Int(const std::string& name, int* out, long long lo, long long hi, std::string help) {
  if (lo > hi || lo < INT_MIN || hi > INT_MAX) {
    throw std::logic_error(program_ + ": --" + name + ": range " + std::to_string(lo) + ".." +
                           std::to_string(hi) + " does not fit an int");
  }
  return Add({name, "N", std::move(help),
              [name, out, lo, hi](const std::string& v, std::string* error) -> Store {
                errno = 0;
                char* end = nullptr;
                const long long n = std::strtoll(v.c_str(), &end, 10);
                if (!LooksNumeric(v, true) || *end != '\0' || errno == ERANGE || n < lo || n > hi) {
                  *error = BadValue(
                      name, v,
                      "an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
                  return nullptr;
                }
                return [out, n] { *out = static_cast<int>(n); };
              }});
}

Flags& Flags::Uint64(const std::string& name, uint64_t* out, std::string help) {
  return Add(
      {name, "N", std::move(help), [name, out](const std::string& v, std::string* error) -> Store {
         errno = 0;
         char* end = nullptr;
         const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
         // strtoull reads "-1" as 2^64-1: digits only.
         if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || *end != '\0' ||
             errno == ERANGE) {
           *error = BadValue(name, v, "an integer from 0 to " + std::to_string(UINT64_MAX));
           return nullptr;
         }
         return [out, n] { *out = static_cast<uint64_t>(n); };
       }});
}

Flags& Flags::Seconds(const std::string& name, double* out, double max, std::string help) {
  if (!(max > 0) || !std::isfinite(max)) {
    throw std::logic_error(program_ + ": --" + name + ": maximum must be > 0 and finite");
  }
  return Add({name, "SECONDS", std::move(help),
              [name, out, max](const std::string& v, std::string* error) -> Store {
                char* end = nullptr;
                const double s = std::strtod(v.c_str(), &end);
                if (!LooksNumeric(v, true) || *end != '\0' || !std::isfinite(s) || s <= 0 ||
                    s > max) {
                  *error = BadValue(name, v, "seconds, > 0 and <= " + FormatNumber(max));
                  return nullptr;
                }
                return [out, s] { *out = s; };
              }});
}

Flags& Flags::Percent(const std::string& name, double* out, std::string help) {
  return Add({name, "PCT", std::move(help),
              [name, out](const std::string& v, std::string* error) -> Store {
                char* end = nullptr;
                const double p = std::strtod(v.c_str(), &end);
                if (!LooksNumeric(v, true) || *end != '\0' || !std::isfinite(p) || p < 0) {
                  *error = BadValue(name, v, "a percentage >= 0");
                  return nullptr;
                }
                return [out, p] { *out = p; };
              }});
}

Flags& Flags::String(const std::string& name, std::string* out, std::string help) {
  return Add({name, "VALUE", std::move(help),
              [name, out](const std::string& v, std::string* error) -> Store {
                if (v.empty()) {
                  *error = "--" + name + " is empty";
                  return nullptr;
                }
                return [out, v] { *out = v; };
              }});
}

Flags& Flags::Choice(const std::string& name, std::string* out, std::vector<std::string> choices,
                     std::string help) {
  if (choices.empty()) throw std::logic_error(program_ + ": --" + name + ": no choices");
  std::string value_name;
  for (const auto& c : choices) value_name += (value_name.empty() ? "" : "|") + c;
  return Add({name, value_name, std::move(help),
              [name, out, choices](const std::string& v, std::string* error) -> Store {
                for (const auto& c : choices) {
                  if (v == c) return [out, v] { *out = v; };
                }
                *error = BadValue(name, v, OneOf(choices));
                return nullptr;
              }});
}

Flags& Flags::Bool(const std::string& name, bool* out, std::string help) {
  // Parse never hands a Bool a value ("--name=..." is refused before): it is set.
  return Add({name, "", std::move(help),
              [out](const std::string&, std::string*) -> Store { return [out] { *out = true; }; }});
}

Flags& Flags::List(const std::string& name, std::vector<std::string>* out, std::string help) {
  return Add({name, "A,B,...", std::move(help),
              [name, out](const std::string& v, std::string* error) -> Store {
                if (v.empty()) {
                  *error = "--" + name + " is empty";
                  return nullptr;
                }
                std::vector<std::string> items;
                std::stringstream ss(v + ",");  // so that a trailing comma shows as an empty item
                std::string item;
                while (std::getline(ss, item, ',')) {
                  if (item.empty()) {
                    *error = BadValue(name, v, "a comma-separated list without empty items");
                    return nullptr;
                  }
                  items.push_back(item);
                }
                return [out, items] { *out = items; };
              }});
}

Flags& Flags::PassThrough(const std::string& prefix, std::vector<std::string>* out,
                          std::vector<std::string> refused, std::string instead) {
  if (!StartsWith(prefix, "--") || prefix.size() < 3) {
    throw std::logic_error(program_ + ": pass-through prefix '" + prefix + "' is not --...");
  }
  pass_through_.push_back({prefix, out, std::move(refused), std::move(instead)});
  return *this;
}

Flags& Flags::Positional(std::vector<std::string>* out) {
  positional_ = out;
  return *this;
}

bool Flags::Parse(const std::vector<std::string>& args, std::string* error) {
  std::vector<Store> stores;
  std::set<std::string> given;
  std::vector<std::string> seen;
  auto fail = [&](std::string message) {
    *error = std::move(message);
    return false;
  };
  for (const std::string& arg : args) {
    const Prefix* pass = nullptr;
    for (const Prefix& p : pass_through_) {
      if (StartsWith(arg, p.prefix)) pass = &p;
    }
    if (pass) {
      for (const std::string& r : pass->refused) {
        if (StartsWith(arg, r)) {
          return fail(FlagName(arg) + " is set by the harness" +
                      (pass->instead.empty() ? "" : "; use " + pass->instead));
        }
      }
      std::vector<std::string>* out = pass->out;
      stores.push_back([out, arg] { out->push_back(arg); });
      seen.push_back(arg);
      continue;
    }
    if (!StartsWith(arg, "-") || arg == "-") {
      if (!positional_) {
        return fail("unexpected argument '" + arg + "' (flags are --name=value; see --help)");
      }
      std::vector<std::string>* out = positional_;
      stores.push_back([out, arg] { out->push_back(arg); });
      continue;
    }
    if (!StartsWith(arg, "--") || arg == "--") {
      return fail("unexpected argument '" + arg + "' (flags are --name=value; see --help)");
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const Flag* flag = Find(name);
    if (!flag) return fail("unknown flag --" + name + " (see --help)");
    if (given.count(name)) return fail("--" + name + " is given twice");
    const bool is_bool = flag->value_name.empty();
    if (is_bool && eq != std::string::npos) return fail("--" + name + " takes no value");
    if (!is_bool && eq == std::string::npos) {
      return fail("--" + name + " needs a value (--" + name + "=...)");
    }
    Store store = flag->check(is_bool ? "" : arg.substr(eq + 1), error);
    if (!store) return false;
    stores.push_back(std::move(store));
    given.insert(name);
    seen.push_back(arg);
  }
  for (const Store& s : stores) s();
  given_ = std::move(given);
  seen_ = std::move(seen);
  return true;
}

bool Flags::Given(const std::string& name) const {
  if (!Find(name)) throw std::logic_error(program_ + ": Given(\"" + name + "\"): no such flag");
  return given_.count(name) > 0;
}

std::string Flags::Help() const {
  std::vector<std::string> left;
  size_t width = 0;
  for (const Flag& f : flags_) {
    left.push_back("  --" + f.name + (f.value_name.empty() ? "" : "=" + f.value_name));
    width = std::max(width, left.back().size());
  }
  width += 2;
  std::string out;
  for (size_t i = 0; i < flags_.size(); ++i) {
    std::string line = left[i] + std::string(width - left[i].size(), ' ');
    for (char c : flags_[i].help) {
      line += c;
      if (c == '\n') line += std::string(width, ' ');
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace trickbench
