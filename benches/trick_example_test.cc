// The worked example at the top of harness/trick.h is benches/no_grad_inference.cc,
// line for line: the example a newcomer copies is code that compiles and passes its
// tests. The two files come from args (see BUILD).
//
// The example is the first run of comment lines indented as code ("//   ...", and
// "//" for a blank line) in the header's opening comment; its lines, without that
// prefix, must be the file's lines.
#include <gtest/gtest.h>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "common/test_files.h"
#include "tools/catalog/line_diff.h"

namespace {

constexpr char kCodePrefix[] = "//   ";

std::string g_header;   // harness/trick.h
std::string g_example;  // benches/no_grad_inference.cc

// The example's lines without their comment prefix; nullopt when the header has none.
std::optional<std::vector<std::string>> ExtractExample(const std::string& header) {
  std::vector<std::string> run;
  bool has_code = false;
  for (const std::string& line : trickbench::SplitLines(header)) {
    const bool blank = line == "//";
    const bool code = line.rfind(kCodePrefix, 0) == 0;
    if (blank || code) {
      run.push_back(code ? line.substr(sizeof(kCodePrefix) - 1) : "");
      has_code = has_code || code;
      continue;
    }
    if (has_code) break;  // the first run with code in it is the example
    run.clear();          // a blank comment line between paragraphs of prose
  }
  if (!has_code) return std::nullopt;
  while (!run.empty() && run.front().empty()) run.erase(run.begin());
  while (!run.empty() && run.back().empty()) run.pop_back();
  return run;
}

std::vector<std::string> FileLines(const std::string& text) {
  std::vector<std::string> lines = trickbench::SplitLines(text);
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// Empty when the header's example is the file; else what differs and how to fix it.
std::string CompareExample(const std::string& header, const std::string& file) {
  const auto example = ExtractExample(header);
  if (!example) return "harness/trick.h has no example (comment lines starting '//   ')";
  if (const auto d = trickbench::FirstDifferingLine(*example, FileLines(file))) {
    return "harness/trick.h's example differs from benches/no_grad_inference.cc: example " +
           d->Describe("trick.h", "the file") +
           "Copy the file into the header's comment (each line prefixed '//   ', a blank line "
           "as '//'), or change both.";
  }
  return "";
}

TEST(TrickExample, IsNoGradInferenceLineForLine) {
  EXPECT_EQ(CompareExample(g_header, g_example), "");
  EXPECT_NE(g_header.find("A whole trick file, benches/no_grad_inference.cc"), std::string::npos)
      << "the header no longer says which file its example is";
}

TEST(TrickExample, ExtractsTheWholeFile) {
  const auto example = ExtractExample(g_header);
  ASSERT_TRUE(example);
  EXPECT_EQ(example->front(), FileLines(g_example).front());
  EXPECT_EQ(example->back(), "    .Bitwise();");
  EXPECT_EQ(example->size(), FileLines(g_example).size());
}

// The check above can fail: a changed, a missing and an extra line in either copy.
TEST(TrickExample, ADifferenceIsFoundAndNamed) {
  const std::string changed_line = "    .Variant(\"no_grad\", &NoGradInference::NoGrad)";
  ASSERT_NE(g_example.find(changed_line), std::string::npos);

  std::string header = g_header;
  header.replace(header.find("&NoGradInference::NoGrad)"), 25, "&NoGradInference::Other)");
  std::string message = CompareExample(header, g_example);
  EXPECT_NE(message.find("\n  trick.h:      .Variant(\"no_grad\", &NoGradInference::Other)\n"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("\n  the file: " + changed_line + "\n"), std::string::npos) << message;

  std::string file = g_example;
  file.erase(file.find(changed_line), changed_line.size() + 1);
  EXPECT_NE(CompareExample(g_header, file), "");
  EXPECT_NE(CompareExample(g_header, g_example + "// one more line\n"), "");
  EXPECT_EQ(CompareExample(g_header, g_example + "\n\n"), "");  // trailing blank lines aside
}

TEST(TrickExample, AHeaderWithoutExampleIsReported) {
  EXPECT_EQ(CompareExample("// prose\n//\n// more prose\n#pragma once\n", g_example),
            "harness/trick.h has no example (comment lines starting '//   ')");
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  std::string header_path, example_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    trickbench::test_files::ArgValue(a, "--header", &header_path);
    trickbench::test_files::ArgValue(a, "--example", &example_path);
  }
  if (header_path.empty() || example_path.empty()) {
    std::cerr << "trick_example_test: needs --header=harness/trick.h "
                 "--example=benches/no_grad_inference.cc (see BUILD)\n";
    return 2;
  }
  std::string header_error, example_error;
  g_header = trickbench::ReadFile(header_path, &header_error);
  g_example = trickbench::ReadFile(example_path, &example_error);
  if (!header_error.empty() || !example_error.empty()) {
    std::cerr << "trick_example_test: " << header_error << example_error << "\n";
    return 2;
  }
  return RUN_ALL_TESTS();
}
