// bazel run //determinism:cost -- [--processes=N --rounds=R --min_time=S]
//
// The cost of deterministic mode on the reference training (reference_training.h: the
// run the gate checks, 24 Adam steps with 2 loader workers), timed with and without
// DeterministicGuard in paired rounds in N fresh processes (this binary run again with
// --child), pooled into one ratio with an interval over processes. To measure your own
// step, call TimeDeterminismCost (cost.h) in your binary the same way.
#include <ATen/Parallel.h>

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/flags.h"
#include "determinism/cost.h"
#include "determinism/reference_training.h"

namespace {

constexpr char kUsage[] =
    "usage: cost [flags]\n"
    "Times the reference training run with and without deterministic mode in paired rounds,\n"
    "in several fresh processes, and prints deterministic / default time with its interval.\n"
    "Exit status: 0 measured, 1 the run failed in deterministic mode, 2 bad command line.\n\n";

// The child's one line: "log_ratios <steps per sample> v1 v2 ..." or "error <what>".
int Child(const trickbench::CostOptions& options) {
  trickbench::ReferenceOptions reference;
  const trickbench::CostSamples s = trickbench::TimeDeterminismCost(
      [&] { trickbench::RunReferenceTraining(reference); }, options);
  if (!s.error.empty()) {
    std::cout << "error " << s.error << "\n";
    return 1;
  }
  std::cout.precision(17);
  std::cout << "log_ratios " << s.steps_per_sample;
  for (double v : s.log_ratios) std::cout << " " << v;
  std::cout << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int processes = 5, rounds = 10, threads = 1;
  double min_time = 0.05;
  bool child = false, help = false;
  uint64_t seed = 0;
  trickbench::Flags flags("cost");
  flags.Int("processes", &processes, 1, 1000, "fresh processes, each its own rounds")
      .Int("rounds", &rounds, 1, 100000, "paired rounds per process")
      .Seconds("min_time", &min_time, 3600, "minimum time of one sample")
      .Int("threads", &threads, 1, 1024, "intra-op threads")
      .Uint64("seed", &seed, "seed of the rounds' order (process p uses seed + p)")
      .Bool("child", &child, "(internal) measure in this process and print the log ratios")
      .Bool("help", &help, "this text");
  std::string error;
  if (!flags.Parse(std::vector<std::string>(argv + 1, argv + argc), &error)) {
    std::cerr << "cost: " << error << "\n";
    return 2;
  }
  if (help) {
    std::cout << kUsage << flags.Help();
    return 0;
  }
  at::set_num_threads(threads);
  const trickbench::CostOptions options{
      .rounds = rounds, .min_sample_seconds = min_time, .seed = seed};
  if (child) return Child(options);

  std::vector<std::vector<double>> log_ratios;
  for (int p = 0; p < processes; ++p) {
    std::ostringstream cmd;
    cmd.precision(17);
    cmd << "'" << argv[0] << "' --child --rounds=" << rounds << " --min_time=" << min_time
        << " --threads=" << threads << " --seed=" << seed + p;
    FILE* pipe = popen(cmd.str().c_str(), "r");
    std::string line;
    if (pipe) {
      char buf[4096];
      while (fgets(buf, sizeof buf, pipe)) line += buf;
      pclose(pipe);
    }
    std::istringstream in(line);
    std::string tag;
    in >> tag;
    if (tag != "log_ratios") {
      std::cerr << "cost: process " << p + 1 << ": " << (line.empty() ? "no output\n" : line);
      return 1;
    }
    int64_t steps = 0;
    in >> steps;
    log_ratios.emplace_back();
    for (double v; in >> v;) log_ratios.back().push_back(v);
    if (p == 0) std::cout << "reference training runs per sample: " << steps << "\n";
  }
  std::cout << trickbench::EstimateDeterminismCost(log_ratios).Describe() << "\n"
            << "(the reference training on the CPU, " << threads << " intra-op thread(s), 2 loader "
            << "workers; samples of at least " << min_time << " s)\n";
  return 0;
}
