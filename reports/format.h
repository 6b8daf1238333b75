// Number formatting for people: times, sizes, percentages, p-values. Shared by the
// report, compare and the document printers so that a number reads the same everywhere.
//
//   FormatNs(15.3e6)        // "15.3 ms"   (three significant digits)
//   FormatBytes(13212057)   // "12.60 MiB"
//   FormatPercent(0.12)     // "+12.0%"    (signed: it is a change)
//   FormatP(0.00001)        // "<0.0001"
//
// Fixed notation, never scientific, and no locale: outputs are golden-tested.
#pragma once

#include <cstdint>
#include <string>

namespace trickbench {
namespace reports {

std::string FormatFixed(double v, int digits);
std::string FormatNs(double ns);
std::string FormatBytes(int64_t bytes);
// A fraction as a percentage; `sign` adds "+" to non-negative values, and "-0.0%" is
// never printed (a change that rounds to zero is no change).
std::string FormatPercent(double fraction, int digits = 1, bool sign = true);
std::string FormatP(double p);
std::string FormatRatio(double r);           // "2.01x"
std::string FormatDuration(double seconds);  // "45 s", "4.5 min", "2.1 h"

}  // namespace reports
}  // namespace trickbench
