// Where two texts first differ, line by line: for the tests that keep a checked-in
// copy equal to its source of truth (docs/CATALOG.md and the generator, the example in
// harness/trick.h and benches/no_grad_inference.cc).
//
//   if (auto d = trickbench::FirstDifferingLine(checked_in, generated)) {
//     std::cerr << "docs/CATALOG.md is stale: " << d->Describe("checked in", "generated");
//   }
//
// Why a first line and not a full diff: the fix is always to regenerate (or copy), so
// the message only has to show that the copy is stale and where, in a test log.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace trickbench {

struct LineDifference {
  int line = 0;          // 1-based
  std::string expected;  // that line of the first text, "(end of text)" past its end
  std::string actual;    // that line of the second text, likewise

  // "line 12 differs:\n  <expected_name>: ...\n  <actual_name>:   ...\n", the names
  // padded so the two lines align.
  std::string Describe(const std::string& expected_name, const std::string& actual_name) const;
};

// The text's lines without their '\n'. A final '\n' leaves an empty last line, so
// "a\n" and "a" differ (at line 2): a regenerated file must be byte-identical.
std::vector<std::string> SplitLines(const std::string& text);

// nullopt when the two are equal.
std::optional<LineDifference> FirstDifferingLine(const std::vector<std::string>& expected,
                                                 const std::vector<std::string>& actual);
std::optional<LineDifference> FirstDifferingLine(const std::string& expected,
                                                 const std::string& actual);

}  // namespace trickbench
