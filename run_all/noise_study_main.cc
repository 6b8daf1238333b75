// The noise_study binary (noise_study.h). //run_all:noise_study binds the trick binaries.
#include <iostream>
#include <string>
#include <vector>

#include "run_all/noise_study.h"

int main(int argc, char** argv) {
  return trickbench::run_all::noise::NoiseStudyMain(std::vector<std::string>(argv + 1, argv + argc),
                                                    std::cout, std::cerr);
}
