#include "reports/format.h"

#include <cmath>
#include <sstream>

namespace trickbench {
namespace reports {

std::string FormatFixed(double v, int digits) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

std::string FormatNs(double ns) {
  const double a = std::fabs(ns);
  auto three = [](double v, const char* unit) {
    const int digits = v >= 100 ? 0 : v >= 10 ? 1 : 2;
    return FormatFixed(v, digits) + " " + unit;
  };
  if (a >= 1e9) return three(ns / 1e9, "s");
  if (a >= 1e6) return three(ns / 1e6, "ms");
  if (a >= 1e3) return three(ns / 1e3, "us");
  return three(ns, "ns");
}

std::string FormatDuration(double seconds) {
  if (seconds < 120) return FormatFixed(seconds, 0) + " s";
  if (seconds < 2 * 3600) return FormatFixed(seconds / 60, 1) + " min";
  return FormatFixed(seconds / 3600, 1) + " h";
}

std::string FormatBytes(int64_t bytes) {
  const double a = std::fabs(static_cast<double>(bytes));
  if (a >= 1024.0 * 1024 * 1024) return FormatFixed(bytes / (1024.0 * 1024 * 1024), 2) + " GiB";
  if (a >= 1024.0 * 1024) return FormatFixed(bytes / (1024.0 * 1024), 2) + " MiB";
  if (a >= 1024.0) return FormatFixed(bytes / 1024.0, 1) + " KiB";
  return std::to_string(bytes) + " B";
}

std::string FormatPercent(double fraction, int digits, bool sign) {
  const double p = fraction * 100;
  std::string s = FormatFixed(p, digits);
  if (s == "-" + FormatFixed(0, digits)) s = FormatFixed(0, digits);
  if (sign && p >= 0 && s[0] != '-') s = "+" + s;
  return s + "%";
}

std::string FormatP(double p) {
  if (p < 0.0001) return "<0.0001";
  return FormatFixed(p, 4);
}

std::string FormatRatio(double r) { return FormatFixed(r, 2) + "x"; }

}  // namespace reports
}  // namespace trickbench
