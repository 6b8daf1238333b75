// The checked-in trick catalog (docs/CATALOG.md) is what //benches:catalog generates
// from the tricks of this package; and the catalog program behaves as its usage says.
// Binaries and the page come from args (see BUILD).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "common/atomic_file.h"
#include "common/test_files.h"
#include "harness/testing/subprocess.h"

namespace {

namespace fs = std::filesystem;
using trickbench::subprocess::Proc;
using trickbench::subprocess::RunCommand;
using trickbench::subprocess::Stderr;

std::string g_catalog;  // the catalog binary
std::string g_page;     // the checked-in docs/CATALOG.md

constexpr char kRegenerate[] =
    "Regenerate it: bazel run //benches:catalog -- --out=docs/CATALOG.md";

// Both sides of every comparison here must exist: two missing files would be equal.
using trickbench::test_files::ReadExisting;
using trickbench::test_files::ScratchDir;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(Catalog, CheckedInPageIsCurrent) {
  const Proc p = RunCommand(g_catalog + " --check=" + g_page);
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_TRUE(Contains(p.output, "is up to date")) << p.output;
}

// Proves the check above can fail: a page with one changed line, and one without its
// last line, are stale, and the message shows where and how to fix it.
TEST(Catalog, AStalePageFailsNamingTheFirstDifferingLineAndTheCommand) {
  const std::string page = ReadExisting(g_page);
  const size_t row = page.find("\n| [`");
  ASSERT_NE(row, std::string::npos) << "no trick row in " << g_page;
  const int row_line = 2 + static_cast<int>(std::count(page.begin(), page.begin() + row, '\n'));
  const std::string original = page.substr(row + 1, page.find('\n', row + 1) - row - 1);

  const std::string dir = ScratchDir("stale");
  std::string error;
  ASSERT_TRUE(trickbench::WriteFileAtomically(
      dir + "/edited.md",
      page.substr(0, row + 1) + "| edited |" + page.substr(page.find('\n', row + 1)), &error));
  Proc p = RunCommand(g_catalog + " --check=" + dir + "/edited.md");
  EXPECT_EQ(p.exit_code, 1) << p.output;
  EXPECT_TRUE(Contains(p.output, dir + "/edited.md is stale")) << p.output;
  EXPECT_TRUE(Contains(p.output, "line " + std::to_string(row_line) + " differs:\n")) << p.output;
  EXPECT_TRUE(Contains(p.output, "  checked in: | edited |\n")) << p.output;
  EXPECT_TRUE(Contains(p.output, "  generated:  " + original + "\n")) << p.output;
  EXPECT_TRUE(Contains(p.output, kRegenerate)) << p.output;

  const size_t last = page.rfind('\n', page.size() - 2) + 1;
  ASSERT_TRUE(trickbench::WriteFileAtomically(dir + "/short.md", page.substr(0, last), &error));
  p = RunCommand(g_catalog + " --check=" + dir + "/short.md");
  EXPECT_EQ(p.exit_code, 1) << p.output;
  EXPECT_TRUE(Contains(p.output, "  checked in: \n  generated:  " + page.substr(last))) << p.output;
}

TEST(Catalog, AMissingPageFailsSayingHowToGenerateIt) {
  const Proc p = RunCommand(g_catalog + " --check=/nonexistent-trickbench/CATALOG.md");
  EXPECT_EQ(p.exit_code, 1) << p.output;
  EXPECT_TRUE(Contains(p.output, "cannot read /nonexistent-trickbench/CATALOG.md")) << p.output;
  EXPECT_TRUE(
      Contains(p.output, "Generate it: bazel run //benches:catalog -- --out=docs/CATALOG.md"))
      << p.output;
}

TEST(Catalog, OutWritesThePageAndWithoutFlagsItGoesToStdout) {
  const std::string dir = ScratchDir("out");
  Proc p = RunCommand(g_catalog + " --out=" + dir + "/CATALOG.md");
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_EQ(ReadExisting(dir + "/CATALOG.md"), ReadExisting(g_page));

  p = RunCommand(g_catalog, Stderr::kToTestLog);
  EXPECT_EQ(p.exit_code, 0);
  EXPECT_EQ(p.output, ReadExisting(g_page));
}

TEST(Catalog, AnUnwritableOutFailsAndWritesNothing) {
  const Proc p = RunCommand(g_catalog + " --out=/nonexistent-trickbench/CATALOG.md");
  EXPECT_EQ(p.exit_code, 1) << p.output;
  EXPECT_TRUE(Contains(p.output, "/nonexistent-trickbench")) << p.output;
  EXPECT_FALSE(fs::exists("/nonexistent-trickbench"));
}

TEST(Catalog, RejectsBadCommandLinesWithExit2) {
  const struct {
    std::string flags, message;
  } cases[] = {
      {"--bogus", "unknown flag --bogus"},
      {"page.md", "unexpected argument 'page.md'"},
      {"--out=", "--out is empty"},
      {"--out=a.md --check=b.md", "--out and --check exclude each other"},
  };
  for (const auto& c : cases) {
    const Proc p = RunCommand(g_catalog + " " + c.flags);
    EXPECT_EQ(p.exit_code, 2) << c.flags << ": " << p.output;
    EXPECT_TRUE(Contains(p.output, "catalog: " + c.message)) << c.flags << ": " << p.output;
  }
  const Proc help = RunCommand(g_catalog + " --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(Contains(help.output, "usage: catalog")) << help.output;
}

// ddp_vs_dp registers a rank main that runs before main() in any binary started with
// RANK set (distributed/rank_main.h); rank 0 without its benchmark would exit 2 at once. The
// catalog, linked with every trick, must ignore it.
TEST(Catalog, IsNeverARankProcess) {
  const Proc p = RunCommand("RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 " +
                            g_catalog + " --check=" + g_page);
  EXPECT_EQ(p.exit_code, 0) << p.output;
  EXPECT_TRUE(Contains(p.output, "is up to date")) << p.output;
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    trickbench::test_files::ArgValue(a, "--catalog", &g_catalog);
    trickbench::test_files::ArgValue(a, "--page", &g_page);
  }
  if (g_catalog.empty() || g_page.empty()) {
    std::cerr << "catalog_test: needs --catalog=BINARY --page=docs/CATALOG.md (see BUILD)\n";
    return 2;
  }
  return RUN_ALL_TESTS();
}
