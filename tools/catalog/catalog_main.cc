#include "tools/catalog/catalog_main.h"

#include <cstdlib>
#include <iostream>

#include "common/atomic_file.h"
#include "common/flags.h"
#include "harness/trick.h"
#include "tools/catalog/catalog.h"
#include "tools/catalog/line_diff.h"

// The catalog links every trick, and a trick may register a rank main
// (TRICKBENCH_RANK_MAIN, distributed/rank_main.h): its static initialiser turns a binary
// started with RANK in the environment into a rank process, which the catalog must
// never become (in a shell of a distributed job, RANK is set). Naming no entry keeps
// every rank main idle; priority 101 runs this before all default-priority static
// initialisers of the binary, the trick files' among them.
__attribute__((constructor(101))) static void NeverARankProcess() {
  setenv("TRICKBENCH_RANK_ENTRY", "(the catalog runs no rank main)", /*overwrite=*/1);
}

namespace trickbench::catalog {
namespace {

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

constexpr char kUsage[] =
    "usage: catalog [--out=PATH | --check=PATH]\n"
    "Writes the trick catalog (Markdown, generated from the trick registrations) to\n"
    "stdout, to PATH, or compares it with PATH. Relative paths resolve against the\n"
    "workspace under `bazel run`. Regenerate the checked-in page with\n"
    "  bazel run //benches:catalog -- --out=docs/CATALOG.md\n\n";

std::string InWorkspace(const std::string& path) {
  const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (path.empty() || path[0] == '/' || ws == nullptr || *ws == '\0') return path;
  return std::string(ws) + "/" + path;
}

}  // namespace

int CatalogMain(int argc, char** argv, const std::vector<std::string>& sources) {
  std::string out, check;
  bool help = false;
  Flags flags("catalog");
  flags.String("out", &out, "write the page to PATH (atomically)")
      .String("check", &check, "compare PATH with the page; exit 1 when it is stale")
      .Bool("help", &help, "this text");
  std::string error;
  if (!flags.Parse(std::vector<std::string>(argv + 1, argv + argc), &error)) {
    std::cerr << "catalog: " << error << "\n";
    return kExitUsage;
  }
  if (help) {
    std::cout << kUsage << flags.Help();
    return 0;
  }
  if (!out.empty() && !check.empty()) {
    std::cerr << "catalog: --out and --check exclude each other\n";
    return kExitUsage;
  }

  const std::vector<TrickDef*>& registered = RegisteredTricks();
  std::string page;
  std::vector<std::string> problems;
  if (!RenderCatalog({registered.begin(), registered.end()}, sources, &page, &problems)) {
    for (const auto& p : problems) std::cerr << "catalog: " << p << "\n";
    std::cerr << "catalog: " << problems.size() << " problem(s) in the trick registrations; "
              << "nothing written\n";
    return kExitFailed;
  }

  if (!check.empty()) {
    const std::string checked_in = ReadFile(InWorkspace(check), &error);
    if (!error.empty()) {
      std::cerr << "catalog: " << error << "\nGenerate it: " << kRegenerateCommand << "\n";
      return kExitFailed;
    }
    if (const auto diff = FirstDifferingLine(checked_in, page)) {
      std::cerr << "catalog: " << check << " is stale (the trick registrations changed); "
                << diff->Describe("checked in", "generated")
                << "Regenerate it: " << kRegenerateCommand << "\n";
      return kExitFailed;
    }
    std::cout << "catalog: " << check << " is up to date (" << registered.size() << " tricks)\n";
    return 0;
  }
  if (!out.empty()) {
    if (!WriteFileAtomically(InWorkspace(out), page, &error)) {
      std::cerr << "catalog: " << error << "\n";
      return kExitFailed;
    }
    std::cerr << "catalog: wrote " << InWorkspace(out) << " (" << registered.size() << " tricks)\n";
    return 0;
  }
  std::cout << page;
  return 0;
}

}  // namespace trickbench::catalog
