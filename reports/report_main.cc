// `bazel run //reports:report -- RUN_DIR`: see reports/cli.h.
#include <iostream>

#include "reports/cli.h"

int main(int argc, char** argv) {
  return trickbench::reports::ReportMain({argv + 1, argv + argc}, std::cout, std::cerr);
}
