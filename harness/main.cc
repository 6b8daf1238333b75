// The main() of every trick binary (//benches:<id>): the trick registers itself. It ends
// without LibTorch's static destructors (end_process.h says why).
#include "harness/end_process.h"
#include "harness/runner.h"

int main(int argc, char** argv) { trickbench::EndProcess(trickbench::TrickMain(argc, argv)); }
