// `bazel run //reports:compare -- OLD NEW`: see reports/cli.h.
#include <iostream>

#include "reports/cli.h"

int main(int argc, char** argv) {
  return trickbench::reports::CompareMain({argv + 1, argv + argc}, std::cout, std::cerr);
}
