#include "tools/catalog/line_diff.h"

#include <algorithm>

namespace trickbench {
namespace {

constexpr char kEnd[] = "(end of text)";

}  // namespace

std::string LineDifference::Describe(const std::string& expected_name,
                                     const std::string& actual_name) const {
  const size_t width = std::max(expected_name.size(), actual_name.size()) + 1;
  auto row = [width](const std::string& name, const std::string& text) {
    return "  " + name + ":" + std::string(width - name.size(), ' ') + text + "\n";
  };
  return "line " + std::to_string(line) + " differs:\n" + row(expected_name, expected) +
         row(actual_name, actual);
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    const size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      // The empty remainder after a final '\n' stays: it is what tells "a\n" from "a".
      lines.push_back(text.substr(start));
      return lines;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

std::optional<LineDifference> FirstDifferingLine(const std::vector<std::string>& expected,
                                                 const std::vector<std::string>& actual) {
  const size_t n = std::max(expected.size(), actual.size());
  for (size_t i = 0; i < n; ++i) {
    const bool in_expected = i < expected.size(), in_actual = i < actual.size();
    if (in_expected && in_actual && expected[i] == actual[i]) continue;
    return LineDifference{static_cast<int>(i + 1), in_expected ? expected[i] : kEnd,
                          in_actual ? actual[i] : kEnd};
  }
  return std::nullopt;
}

std::optional<LineDifference> FirstDifferingLine(const std::string& expected,
                                                 const std::string& actual) {
  return FirstDifferingLine(SplitLines(expected), SplitLines(actual));
}

}  // namespace trickbench
