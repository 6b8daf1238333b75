// Runs the reference training (reference_training.h) once and prints its per-step
// trace as JSON on stdout: the cross-process half of the reproducibility gate starts
// this binary twice and compares the traces.
//
//   bazel run //determinism:reference_training -- --seed=3 --workers=2 --threads=1
#include <ATen/Parallel.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "determinism/guard.h"
#include "determinism/reference_training.h"

namespace {

bool Flag(const std::string& arg, const std::string& name, long long* value) {
  const std::string prefix = "--" + name + "=";
  if (arg.rfind(prefix, 0) != 0) return false;
  char* end = nullptr;
  *value = std::strtoll(arg.c_str() + prefix.size(), &end, 10);
  if (*end != '\0' || arg.size() == prefix.size() || *value < 0) {
    std::cerr << "reference_training: bad value in " << arg << "\n";
    std::exit(2);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  trickbench::ReferenceOptions o;
  long long v = 0;
  int threads = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (Flag(a, "seed", &v)) {
      o.seed = static_cast<uint64_t>(v);
    } else if (Flag(a, "steps", &v)) {
      o.steps = v;
    } else if (Flag(a, "workers", &v)) {
      o.workers = static_cast<size_t>(v);
    } else if (Flag(a, "threads", &v) && v > 0) {
      threads = static_cast<int>(v);
    } else if (a == "--no_seed") {
      o.seed_rngs = false;
    } else {
      std::cerr << "usage: reference_training [--seed=N] [--steps=N] [--workers=N] "
                   "[--threads=N>0] [--no_seed]\n";
      return 2;
    }
  }
  at::set_num_threads(threads);
  trickbench::DeterministicGuard guard;
  std::cout << trickbench::RunReferenceTraining(o).trace.ToJson() << "\n";
  return 0;
}
