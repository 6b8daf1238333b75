// The main() of every trick binary (//benches:<id>): the trick registers itself.
#include "harness/runner.h"

int main(int argc, char** argv) { return trickbench::TrickMain(argc, argv); }
