// The trick catalog: docs/CATALOG.md, one Markdown page generated from the trick
// registrations, so the list a user reads is the list the build runs.
//
//   std::vector<std::string> problems;
//   std::string page;
//   if (!trickbench::catalog::RenderCatalog(tricks, {"benches/no_grad_inference.cc"},
//                                           &page, &problems)) {
//     for (const auto& p : problems) std::cerr << "catalog: " << p << "\n";
//   }
//
// `bazel run //benches:catalog -- --out=docs/CATALOG.md` writes the page from every
// trick linked into that binary (benches/defs.bzl); `bazel test //benches:catalog_test`
// fails while the checked-in page is stale. Per trick the page shows what its
// TRICKBENCH_TRICK chain registers: id, category, source markers, claim, cases,
// variants (baseline first), the reproduced variant, tolerance, CUDA need and its
// files; and, per CUDA case, its declared work held to an H200's floor
// (harness/sizing.h), or the trick's exemption.
//
// Why it refuses incomplete registrations rather than printing blanks: the catalog
// is where a missing claim or a typo in a source marker is seen by a reviewer, and a
// blank cell is easy to miss. The checks are the ones the harness does not make
// (it runs a trick without a claim), plus the id <-> file agreement.
#pragma once

#include <string>
#include <vector>

#include "harness/trick.h"

namespace trickbench::catalog {

// Where the page lives (its links to benches/ are relative to it) and the command that
// writes it there, as the page and the stale-page message print it.
inline constexpr char kPagePath[] = "docs/CATALOG.md";
inline constexpr char kRegenerateCommand[] = "bazel run //benches:catalog -- --out=docs/CATALOG.md";

// Renders the page for `tricks` (any order: the page is sorted by category, then id).
// `sources` are the trick source files as the build globbed them, relative to the
// workspace: "benches/<id>.cc", and "benches/<id>_cuda.cc" where a trick has one.
// Returns false with one line per problem (each naming the trick or file), and leaves
// *page alone, when a registration is incomplete or ids and files disagree.
bool RenderCatalog(const std::vector<const TrickDef*>& tricks,
                   const std::vector<std::string>& sources, std::string* page,
                   std::vector<std::string>* problems);

}  // namespace trickbench::catalog
