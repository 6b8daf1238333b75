#include "reports/claims.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <limits>

#include "reports/format.h"
#include "reports/thresholds.h"

namespace trickbench {
namespace reports {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ContainsAny(const std::string& text, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    if (text.find(w) != std::string::npos) return true;
  }
  return false;
}

std::string SavingRange(double low, double high) {
  const auto pct = [](double f) { return FormatPercent(1 - 1 / f, 0, false); };
  if (low <= 0) return "";
  if (high <= 0 || high == low) return pct(low);
  return pct(low) + "-" + pct(high);
}

}  // namespace

std::string FactorRange(double low, double high) {
  const auto x = [](double v) { return FormatFixed(v, v < 10 ? 2 : 1); };
  if (low <= 0) return "";
  if (high <= 0) return ">= " + x(low) + "x";
  if (high == low) return x(low) + "x";
  return x(low) + "-" + x(high) + "x";
}

std::string ClaimedText(const results::Expectation& e) {
  const std::string band = "beyond ±" + FormatPercent(kNoEffectBand, 0, false);
  std::string out;
  if (e.metric == "time") {
    if (e.lowers) {
      out = e.low > 0 ? FactorRange(e.low, e.high) + " faster" : "faster (" + band + ")";
    } else {
      out =
          "slower" + (e.high > 0 ? ", at most " + FactorRange(e.high, e.high) : " (" + band + ")");
    }
  } else if (e.metric == "memory" || e.metric == "host_memory") {
    const std::string what = e.metric == "memory" ? "peak memory" : "peak host memory";
    if (e.lowers) {
      out = e.low > 0 ? SavingRange(e.low, e.high) + " less " + what
                      : "less " + what + " (" + band + ")";
    } else {
      out = "more " + what + " (" + band + ")";
    }
  } else if (e.metric == "rate") {
    out = std::string(e.lowers ? "lower " : "higher ") + e.work + " per second" +
          (e.low > 0 ? " (" + FactorRange(e.low, e.high) + ")" : " (" + band + ")");
  } else {
    out = std::string(e.lowers ? "fewer " : "more ") + e.metric +
          (e.low > 0 ? " (" + FactorRange(e.low, e.high) + ")" : "");
  }
  if (e.device == "none") {
    out += " (not covered here)";
  } else if (!e.device.empty()) {
    out += " on " + e.device;
  }
  if (!e.case_name.empty()) out += " [" + e.case_name + "]";
  return out;
}

double ClaimedFactorFloor(const results::Expectation& e) {
  return std::max(e.low, 1 + kNoEffectBand);
}

SpeedupRange ClaimedSpeedups(const results::Expectation& e) {
  const double want = ClaimedFactorFloor(e);
  if (e.lowers) return {want, e.high > want ? e.high : std::numeric_limits<double>::infinity()};
  return {e.high > 0 ? 1 / e.high : 0, 1 / want};  // a cost: the inverse factor
}

std::vector<results::Expectation> ClaimFromWords(const std::string& claim) {
  bool time = false, memory = false;
  ClassifyClaim(claim, &time, &memory);
  std::vector<results::Expectation> out;
  if (time) {
    results::Expectation e;
    e.metric = "time";
    out.push_back(e);
  }
  if (memory) {
    results::Expectation e;
    e.metric = "memory";
    out.push_back(e);
  }
  return out;
}

void ClassifyClaim(const std::string& claim, bool* time, bool* memory) {
  std::string c = Lower(claim);
  // "memory access cost" is about time, not about how much memory is held.
  for (size_t at; (at = c.find("memory access")) != std::string::npos;) c.erase(at, 13);
  *memory = ContainsAny(c, {"memory", "smaller"});
  const bool time_words =
      ContainsAny(c, {"fast", "speed", "time", "\xc3\x97", "slow", "overhead", "throughput",
                      "bandwidth", "sync", "copy", "overlap", "hides", "%", "cost"});
  const bool expects_slowdown = c.find("slowdown") != std::string::npos;
  *time = expects_slowdown ? !*memory : (time_words || !*memory);
}

}  // namespace reports
}  // namespace trickbench
