// The run_all binary (run.h). //benches:run_all binds every trick binary to it.
#include <iostream>
#include <string>
#include <vector>

#include "run_all/run.h"

int main(int argc, char** argv) {
  return trickbench::run_all::RunAllMain(std::vector<std::string>(argv + 1, argv + argc), std::cout,
                                         std::cerr);
}
