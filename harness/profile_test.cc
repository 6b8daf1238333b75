#include "harness/profile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "results/checked_json.h"

namespace trickbench {
namespace {

namespace fs = std::filesystem;

// Two variants whose traces must differ in the op that ran: x * 2 against x + x.
class Twice : public Trick {
 public:
  void SetUp(const Instance&) override { x_ = torch::randn({64, 64}); }
  void Multiply() { y_ = x_ * 2; }
  void Add() { y_ = x_ + x_; }
  void Throws() { throw std::runtime_error("boom"); }
  Tensors Result() override { return {y_}; }

 private:
  torch::Tensor x_, y_;
};

std::unique_ptr<TrickDef> Def() {
  auto def =
      std::make_unique<TrickDef>("twice", [] { return std::unique_ptr<Trick>(new Twice()); });
  def->Claim("x*2 == x+x").Category("test").Source("test");
  def->Variant("multiply", &Twice::Multiply).Variant("add", &Twice::Add);
  return def;
}

fs::path FreshDir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The names of the events in a Chrome trace.
std::string EventNames(const std::string& path) {
  const results::Json trace = results::ReadJsonFile(path);
  // Kineto writes {"traceEvents": [...]}; the legacy profiler (no Kineto) a bare array.
  const results::Json& events = trace.is_array() ? trace : trace.at("traceEvents");
  std::string names;
  for (const auto& e : events) {
    if (e.contains("name") && e["name"].is_string()) names += e["name"].get<std::string>() + "\n";
  }
  return names;
}

TEST(TracePath, SitsInAFolderNextToTheResultFile) {
  EXPECT_EQ(TracePath("out/channels_last.json", "resnet", "nhwc"),
            "out/channels_last.profile/resnet.nhwc.trace.json");
  EXPECT_EQ(TracePath("r.json", "", "no_grad"), "r.profile/no_grad.trace.json");
  EXPECT_EQ(TracePath("r", "", "a"), "r.profile/a.trace.json");
}

TEST(ProfileVariants, OneTracePerVariantWithTheOpsThatVariantRan) {
  const fs::path dir = FreshDir("profile_ok");
  auto def = Def();
  def->Cases({"small", "other"});
  std::vector<ProfileTrace> traces;
  std::string error;
  ASSERT_TRUE(ProfileVariants(*def, torch::kCPU, 0, (dir / "twice.json").string(), &traces, &error))
      << error;
  ASSERT_EQ(traces.size(), 4u);
  EXPECT_EQ(traces[1].case_name, "small");
  EXPECT_EQ(traces[1].variant, "add");
  EXPECT_EQ(traces[1].path, (dir / "twice.profile/small.add.trace.json").string());
  const std::string mul = EventNames(traces[0].path);
  const std::string add = EventNames(traces[1].path);
  EXPECT_NE(mul.find("aten::mul"), std::string::npos) << mul;
  EXPECT_EQ(mul.find("aten::add"), std::string::npos) << mul;
  EXPECT_NE(add.find("aten::add"), std::string::npos) << add;
  EXPECT_EQ(add.find("aten::mul"), std::string::npos) << add;
  for (const auto& entry : fs::directory_iterator(dir / "twice.profile")) {
    EXPECT_EQ(entry.path().extension(), ".json") << "left behind: " << entry.path();
  }
}

TEST(ProfileVariants, AThrowingVariantIsNamedAndTheProfilerIsStopped) {
  const fs::path dir = FreshDir("profile_throws");
  auto def = Def();
  def->Variant("throws", &Twice::Throws);
  std::vector<ProfileTrace> traces;
  std::string error;
  EXPECT_FALSE(ProfileVariants(*def, torch::kCPU, 0, (dir / "t.json").string(), &traces, &error));
  EXPECT_EQ(error, "twice/throws: profile failed: boom");
  EXPECT_EQ(traces.size(), 2u);  // the two before it
  EXPECT_FALSE(fs::exists(dir / "t.profile/throws.trace.json"));
  // A profiler left running would make this one fail ("already enabled").
  traces.clear();
  auto ok = Def();
  EXPECT_TRUE(ProfileVariants(*ok, torch::kCPU, 0, (dir / "again.json").string(), &traces, &error))
      << error;
}

TEST(ProfileVariants, AnUnwritableFolderIsAnError) {
  const fs::path dir = FreshDir("profile_unwritable");
  std::ofstream(dir / "file") << "x";  // a file where the folder's parent should be
  auto def = Def();
  std::vector<ProfileTrace> traces;
  std::string error;
  EXPECT_FALSE(
      ProfileVariants(*def, torch::kCPU, 0, (dir / "file/r.json").string(), &traces, &error));
  EXPECT_NE(error.find("twice/multiply: cannot create"), std::string::npos) << error;
  EXPECT_TRUE(traces.empty());
}

}  // namespace
}  // namespace trickbench
