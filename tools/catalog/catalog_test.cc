#include "tools/catalog/catalog.h"

#include <gtest/gtest.h>

#include <memory>

namespace trickbench::catalog {
namespace {

class Toy : public Trick {
 public:
  void Slow() {}
  void Fast() {}
  void Faster() {}
  Tensors Result() override { return {}; }
};

// A registration as a trick file states it, built without registering it.
std::unique_ptr<TrickDef> Def(const std::string& id, const std::string& category = "Kernels") {
  auto def = std::make_unique<TrickDef>(id, [] { return std::make_unique<Toy>(); });
  def->Category(category)
      .Source("A8, B")
      .Claim("faster")
      .Variant("slow", &Toy::Slow)
      .Variant("fast", &Toy::Fast)
      .Bitwise()
      .HostSide("a toy does no device work");
  return def;
}

// A trick with no sizing declaration, as a trick file written before .Work() would be.
std::unique_ptr<TrickDef> Unsized(const std::string& id) {
  auto def = std::make_unique<TrickDef>(id, [] { return std::make_unique<Toy>(); });
  def->Category("Kernels").Source("A8").Claim("faster");
  def->Variant("slow", &Toy::Slow).Variant("fast", &Toy::Fast);
  return def;
}

struct Rendered {
  bool ok = false;
  std::string page;
  std::vector<std::string> problems;
};

Rendered Render(const std::vector<const TrickDef*>& tricks, const std::vector<std::string>& files) {
  Rendered r;
  r.page = "untouched";
  r.ok = RenderCatalog(tricks, files, &r.page, &r.problems);
  return r;
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The one problem a bad registration or file list must produce, and no page.
void ExpectProblem(const std::vector<const TrickDef*>& tricks,
                   const std::vector<std::string>& files, const std::string& problem) {
  const Rendered r = Render(tricks, files);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.page, "untouched");
  ASSERT_EQ(r.problems.size(), 1u) << ::testing::PrintToString(r.problems);
  EXPECT_EQ(r.problems[0], problem);
}

TEST(RenderCatalog, PageSaysWhereItComesFromAndHowToRegenerateIt) {
  const auto toy = Def("toy");
  const Rendered r = Render({toy.get()}, {"benches/toy.cc"});
  ASSERT_TRUE(r.ok) << ::testing::PrintToString(r.problems);
  EXPECT_EQ(r.page.rfind("# Trick catalog\n", 0), 0u);
  EXPECT_TRUE(Contains(r.page, "    bazel run //benches:catalog -- --out=docs/CATALOG.md\n"));
  EXPECT_TRUE(Contains(r.page, "bazel test //benches:catalog_test"));
  EXPECT_TRUE(Contains(r.page, "[harness/trick.h](../harness/trick.h)"));
  // Both source articles, linked where they are published, not to a local copy.
  EXPECT_TRUE(Contains(r.page, "(https://medium.com/towards-data-science/optimize-pytorch-"));
  EXPECT_TRUE(Contains(r.page, "[PyTorchTricks](https://www.yuque.com/lart/ugkv9f/ugysgn)"));
  EXPECT_FALSE(Contains(r.page, "../shared"));
  EXPECT_TRUE(Contains(r.page, "1 tricks in 1 categories: [Kernels](#kernels) (1).\n"));
}

TEST(RenderCatalog, ARowShowsEveryRegisteredFact) {
  auto t = Def("pin", "Data loading");
  t->Source("A3, B")
      .Claim("skips the staging copy")
      .NeedsCuda("host-to-device copy bandwidth")
      .Cases({"small", "large"})
      .Variant("faster", &Toy::Faster)
      .Reproduce("fast")
      .Tolerance(1e-5, 1e-6);
  const Rendered r = Render({t.get()}, {"benches/pin.cc", "benches/pin_cuda.cc"});
  ASSERT_TRUE(r.ok) << ::testing::PrintToString(r.problems);
  EXPECT_TRUE(Contains(r.page,
                       "\n## Data loading\n\n"
                       "| trick | source | claim | variants | reproduced | equivalence | cases | "
                       "device |\n|---|---|---|---|---|---|---|---|\n"
                       "| [`pin`](../benches/pin.cc) ([`_cuda.cc`](../benches/pin_cuda.cc)) | "
                       "A3, B | skips the staging copy | `slow`, `fast`, `faster` | `fast` | "
                       "rtol 1e-05, atol 1e-06 | `small`, `large` | "
                       "CUDA only: host-to-device copy bandwidth |\n"))
      << r.page;
}

TEST(RenderCatalog, DefaultsShowAsTheHarnessUsesThem) {
  const auto toy = Def("toy");  // one unnamed case, reproduce the last variant, any device
  const Rendered r = Render({toy.get()}, {"benches/toy.cc"});
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(Contains(r.page,
                       "| [`toy`](../benches/toy.cc) | A8, B | faster | `slow`, `fast` | "
                       "`fast` | bitwise | one | any |\n"))
      << r.page;
}

TEST(RenderCatalog, GroupsByCategoryAndSortsWhateverTheLinkOrder) {
  const auto b = Def("b_trick", "Zeta"), a = Def("a_trick", "Zeta"), c = Def("c_trick", "Alpha");
  const std::vector<std::string> files = {"benches/a_trick.cc", "benches/b_trick.cc",
                                          "benches/c_trick.cc"};
  const Rendered forward = Render({b.get(), a.get(), c.get()}, files);
  const Rendered backward = Render({c.get(), a.get(), b.get()}, files);
  ASSERT_TRUE(forward.ok);
  EXPECT_EQ(forward.page, backward.page);
  const std::string& p = forward.page;
  EXPECT_LT(p.find("## Alpha"), p.find("## Zeta"));
  EXPECT_LT(p.find("## Alpha"), p.find("`c_trick`"));
  EXPECT_LT(p.find("## Zeta"), p.find("`a_trick`"));
  EXPECT_LT(p.find("`a_trick`"), p.find("`b_trick`"));
  EXPECT_TRUE(Contains(p, "3 tricks in 2 categories: [Alpha](#alpha) (1), [Zeta](#zeta) (2).\n"));
}

TEST(RenderCatalog, ProseCannotBreakTheTableOrTurnIntoMarkup) {
  auto t = Def("toy");
  t->Claim("a|b *bold* <em> `x` [l] _i_ set_to_none\nnext");
  const Rendered r = Render({t.get()}, {"benches/toy.cc"});
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(
      Contains(r.page, "| a\\|b \\*bold\\* \\<em> \\`x\\` \\[l] \\_i\\_ set_to_none next |"))
      << r.page;
}

TEST(RenderCatalog, RefusesIncompleteRegistrations) {
  const std::vector<std::string> files = {"benches/toy.cc"};
  auto t = Def("toy");
  t->Category("");
  ExpectProblem({t.get()}, files, "toy: no .Category()");
  t = Def("toy");
  t->Claim("");
  ExpectProblem({t.get()}, files, "toy: no .Claim() (the article's claim, quoted)");
  t = Def("toy");
  t->Source("");
  ExpectProblem({t.get()}, files, "toy: no .Source() (article markers such as \"A14, B\")");
  t = Def("toy");
  t->NeedsCuda(" ");
  ExpectProblem({t.get()}, files, "toy: .NeedsCuda() without a reason (the skip message shows it)");
}

TEST(RenderCatalog, RefusesSourceMarkersTheArticlesDoNotHave) {
  for (const std::string bad : {"A19", "A0", "A01", "C", "A", "A1 B", "a3"}) {
    auto t = Def("toy");
    t->Source("A2, " + bad);
    ExpectProblem(
        {t.get()}, {"benches/toy.cc"},
        "toy: .Source(\"A2, " + bad + "\"): '" + bad + "' is not a marker (A1..A18 or B)");
  }
  auto t = Def("toy");
  t->Source("A1,A18 , B");
  EXPECT_TRUE(Render({t.get()}, {"benches/toy.cc"}).ok);
}

TEST(RenderCatalog, RefusesTricksWithoutAComparison) {
  auto none = std::make_unique<TrickDef>("toy", [] { return std::make_unique<Toy>(); });
  none->Category("K").Source("B").Claim("c").HostSide("a toy");
  ExpectProblem({none.get()}, {"benches/toy.cc"},
                "toy: 0 variant(s): a trick needs a baseline and at least one variant to compare");
  none->Variant("only", &Toy::Slow);
  ExpectProblem({none.get()}, {"benches/toy.cc"},
                "toy: 1 variant(s): a trick needs a baseline and at least one variant to compare");
}

TEST(RenderCatalog, RefusesAReproducedVariantThatDoesNotExist) {
  auto t = Def("toy");
  t->Reproduce("fastest");
  ExpectProblem({t.get()}, {"benches/toy.cc"}, "toy: .Reproduce(\"fastest\") names no variant");
}

TEST(RenderCatalog, RefusesNamesThatWouldBreakTheTable) {
  auto t = Def("toy");
  t->Variant("a|b", &Toy::Faster);
  ExpectProblem({t.get()}, {"benches/toy.cc"},
                "toy: variant name 'a|b' contains '|', '`' or a newline");
  t = Def("toy");
  t->Cases({"small", "`big`"});
  ExpectProblem({t.get()}, {"benches/toy.cc"},
                "toy: case name '`big`' contains '|', '`' or a newline");
  t = Def("toy");
  t->Cases({"small", ""});
  ExpectProblem({t.get()}, {"benches/toy.cc"}, "toy: case name '' is empty");
  t = Def("toy");
  t->CudaCases({"resnet|50"});
  ExpectProblem({t.get()}, {"benches/toy.cc"},
                "toy: case name 'resnet|50' contains '|', '`' or a newline");
}

TEST(RenderCatalog, ACudaCaseWithoutANameIsOneCase) {
  auto t = Def("toy");
  t->Axis(Axis::String("allocator", {"reused", "fresh"}).OnCuda({""}));
  const Rendered r = Render({t.get()}, {"benches/toy.cc"});
  ASSERT_TRUE(r.ok) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_TRUE(Contains(r.page, "| `reused`, `fresh`; on CUDA one |")) << r.page;
}

TEST(RenderCatalog, ListsTheCudaCasesBesideTheCpuOnes) {
  auto t = Def("toy");
  t->CudaCases({"resnet50_stage2"});  // the CPU keeps its one unnamed case
  const Rendered r = Render({t.get()}, {"benches/toy.cc"});
  ASSERT_TRUE(r.ok) << (r.problems.empty() ? "" : r.problems[0]);
  EXPECT_TRUE(Contains(r.page, "| one; on CUDA `resnet50_stage2` |")) << r.page;
}

TEST(RenderCatalog, ListsEachCudaCaseWithItsWorkAndTheExemptions) {
  auto sized = Unsized("gemm");
  sized->Axis(Axis::Int("n", {256}).OnCuda({8192})).TrafficBound().Work([](const Instance& s) {
    const double n = static_cast<double>(s.params.Int("n"));
    const double scale = s.variant == "fast" ? 1.0 : 2.0;
    return CaseWork{
        .flop = scale * 2 * n * n * n, .bytes = 3 * 4 * n * n, .working_set = 3 * 4 * n * n};
  });
  const auto toy = Def("toy");
  const Rendered r = Render({toy.get(), sized.get()}, {"benches/toy.cc", "benches/gemm.cc"});
  ASSERT_TRUE(r.ok) << ::testing::PrintToString(r.problems);
  EXPECT_TRUE(Contains(r.page, "## Sizing on an H200\n")) << r.page;
  // The fast variant's 1.1 TFLOP: 1392 us at 790 TFLOP/s; 805 MB held.
  EXPECT_TRUE(Contains(r.page,
                       "| `gemm` (traffic) | `n8192` | `fast` | 1099.5 | 0.81 | 0.0 | 805.3 | "
                       "1392 |\n"))
      << r.page;
  EXPECT_TRUE(Contains(r.page, "| `toy` | exempt | host side: a toy does no device work |"));
}

TEST(RenderCatalog, RefusesACudaCaseUnderTheH200FloorOrWithoutDeclaredWork) {
  const std::vector<std::string> files = {"benches/gemm.cc"};
  auto t = Unsized("gemm");
  ExpectProblem({t.get()}, files,
                "gemm: CUDA case '': declares no work: .Work(), or .LaunchBound(why) / "
                ".HostSide(why) where the floor does not apply");
  t->Work([](const Instance&) { return CaseWork{.flop = 1e9}; });
  ExpectProblem({t.get()}, files,
                "gemm: CUDA case '': variant slow does 1.3 us of work at an H200's peaks, under "
                "the 100.0 us floor: a GPU would time its launches");
  t->LaunchBound("the claim is the launches");
  EXPECT_TRUE(Render({t.get()}, files).ok);
}

TEST(RenderCatalog, RefusesIdsAndFilesThatDisagree) {
  const auto toy = Def("toy");
  ExpectProblem({toy.get()}, {"benches/toy.cc", "benches/other_toy.cc"},
                "benches/other_toy.cc: no trick registered under its stem "
                "(TRICKBENCH_TRICK(other_toy, ...))");
  const Rendered r = Render({toy.get()}, {});
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0],
            "toy: registered, but no trick source file is named toy.cc (the id must be the "
            "file's stem)");
  ExpectProblem({toy.get()}, {"benches/toy.cc", "benches/gone_cuda.cc"},
                "benches/gone_cuda.cc: CUDA-only file without its trick file gone.cc");
  ExpectProblem({toy.get()}, {"benches/toy.cc", "benches/notes.txt"},
                "benches/notes.txt: not a trick source (expected <id>.cc or <id>_cuda.cc)");
  ExpectProblem({toy.get()}, {"benches/toy.cc", "other/toy.cc"},
                "other/toy.cc: a second file for trick id toy");
}

TEST(RenderCatalog, RefusesDuplicateIdsAndCategoriesSpelledTwoWays) {
  const auto a = Def("toy"), b = Def("toy");
  ExpectProblem({a.get(), b.get()}, {"benches/toy.cc"}, "toy: registered twice");
  const auto c = Def("c_toy", "Data loading"), d = Def("d_toy", "Data Loading");
  ExpectProblem({c.get(), d.get()}, {"benches/c_toy.cc", "benches/d_toy.cc"},
                "d_toy: category \"Data Loading\" differs from \"Data loading\" only in case");
}

TEST(RenderCatalog, ListsEveryProblemAtOnce) {
  auto t = Def("toy");
  t->Category("").Claim("");
  const Rendered r = Render({t.get()}, {});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.problems.size(), 3u) << ::testing::PrintToString(r.problems);
}

}  // namespace
}  // namespace trickbench::catalog
