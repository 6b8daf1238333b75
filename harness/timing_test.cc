#include "harness/timing.h"

#include <gtest/gtest.h>

#include <thread>

namespace trickbench {
namespace {

// A backend for one made-up device (cuda:7), registered like the CUDA one is.
class FakeBackend : public TimingBackend {
 public:
  explicit FakeBackend(bool fast) : fast_(fast) {}
  std::string name() const override { return "fake_clock"; }
  double TimeSample(int64_t iterations, const std::function<void()>& body) override {
    for (int64_t i = 0; i < iterations; ++i) body();
    return 1e-3 * iterations;
  }
  double LastSampleHostSeconds() const override { return 0; }
  results::Json Settings() const override { return {{"fast", fast_}}; }
  std::unique_ptr<IntervalTimer> NewIntervalTimer() const override { return nullptr; }

 private:
  bool fast_;
};

bool IsFakeDevice(const torch::Device& d) { return d.is_cuda() && d.index() == 7; }

const bool registered = TimingBackends::Register(
    {"fake_clock",
     "\nfake: a test backend\n",
     {{"fast", "the fake backend's switch"}},
     IsFakeDevice,
     [](const torch::Device&, const TimingBackends::Switches& s) {
       return std::unique_ptr<TimingBackend>(new FakeBackend(s.count("fast") && s.at("fast")));
     }});

TEST(TimingBackends, TheWallClockTimesEveryDeviceNoBackendClaims) {
  ASSERT_TRUE(registered);
  EXPECT_EQ(TimingBackends::For(torch::kCPU)->name(), "wall_clock");
  EXPECT_EQ(TimingBackends::For(torch::Device(torch::kCUDA, 0))->name(),
            TimingBackends::Find("cuda_events") ? "cuda_events" : "wall_clock");
  const auto fake = TimingBackends::For(torch::Device(torch::kCUDA, 7), {{"fast", true}});
  EXPECT_EQ(fake->name(), "fake_clock");
  EXPECT_EQ(fake->Settings(), (results::Json{{"fast", true}}));
  EXPECT_TRUE(MakeWallClockBackend()->Settings().empty());
}

TEST(TimingBackends, RegisteredSwitchesBecomeFlags) {
  TimingBackends::Switches switches;
  Flags flags("test");
  TimingBackends::Declare(flags, &switches);
  std::string error;
  ASSERT_TRUE(flags.Parse({"--fast"}, &error)) << error;
  EXPECT_TRUE(switches.at("fast"));
  EXPECT_NE(flags.Help().find("the fake backend's switch"), std::string::npos);
  EXPECT_NE(TimingBackends::Usage().find("fake: a test backend"), std::string::npos);
  // On for a device its backend does not time: reported as ignored.
  EXPECT_EQ(TimingBackends::IgnoredSwitches(*MakeWallClockBackend(), switches),
            std::vector<std::string>{"fast"});
  EXPECT_TRUE(TimingBackends::IgnoredSwitches(*TimingBackends::For(torch::Device(torch::kCUDA, 7)),
                                              switches)
                  .empty());
}

TEST(TimingBackends, RefusesBadRegistrations) {
  TimingBackends::Registration twice{
      "fake_clock",
      "",
      {},
      IsFakeDevice,
      [](const torch::Device&, const TimingBackends::Switches&) { return MakeWallClockBackend(); }};
  EXPECT_THROW(TimingBackends::Register(twice), std::logic_error);
  twice.name = "";
  EXPECT_THROW(TimingBackends::Register(twice), std::logic_error);
  EXPECT_EQ(TimingBackends::Find("no_such_backend"), nullptr);
}

TEST(WallClock, TimesASampleOfIterationsBackToBack) {
  const auto clock = MakeWallClockBackend();
  int calls = 0;
  const double s = clock->TimeSample(4, [&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  });
  EXPECT_EQ(calls, 4);
  EXPECT_GE(s, 0.019);
  EXPECT_LT(s, 5.0);
  // A backend's time is its own clock's, whatever the host spent: the fake says 1 ms.
  const auto fake = TimingBackends::For(torch::Device(torch::kCUDA, 7));
  EXPECT_DOUBLE_EQ(fake->TimeSample(3, [] {}), 3e-3);
}

TEST(WallClock, IntervalTimerMeasuresElapsedTime) {
  const auto timer = MakeWallClockBackend()->NewIntervalTimer();
  timer->Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const double s = timer->StopSeconds();
  EXPECT_GE(s, 0.019);
  EXPECT_LT(s, 5.0);
}

}  // namespace
}  // namespace trickbench
