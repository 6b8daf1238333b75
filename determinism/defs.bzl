"""reproducibility_test: the reproducibility gate around your own training binary.

    load("@trickbench//determinism:defs.bzl", "reproducibility_test")   # from your workspace
    load("//determinism:defs.bzl", "reproducibility_test")              # inside trickbench

    reproducibility_test(
        name = "my_training_reproducible",
        binary = ":my_training",
        workers = [0, 2],     # $TRICKBENCH_LOADER_WORKERS, compared bitwise
        threads = [1, 2],     # $TRICKBENCH_THREADS, compared within rtol/atol
        resume_at = [3],      # stop after step 3 with a checkpoint, resume: bitwise
        determinism_cost = True,  # one more run times its step in deterministic mode
    )

The binary records every step with trickbench::TraceRecorder (determinism/recorder.h)
into $TRICKBENCH_TRACE and does what determinism/gate_request.h says of the variables
the listed tiers set (GateRequestFromEnvironment reads them all). The test runs it `runs`
times in fresh processes with the same seed, once per other worker and thread count, and
twice per resume step (stopped there, then resumed), diffs each trace against the first
run's with //determinism:diff, and fails with the divergence report of every tier that
does not hold, down to the first op whose output differs (determinism/gate_runner.sh).
The traces are kept in the test's undeclared outputs.
"""

def reproducibility_test(
        name,
        binary,
        runs = 2,
        workers = [],
        threads = [],
        resume_at = [],
        determinism_cost = False,
        rtol = "1e-5",
        atol = "1e-8",
        binary_args = [],
        **kwargs):
    diff = str(Label("//determinism:diff"))
    runner = str(Label("//determinism:gate_runner.sh"))
    args = [
        "--binary=$(rootpath %s)" % binary,
        "--diff=$(rootpath %s)" % diff,
        "--runs=%d" % runs,
        "--rtol=" + rtol,
        "--atol=" + atol,
    ]
    if workers:
        args.append("--workers=" + ",".join([str(w) for w in workers]))
    if threads:
        args.append("--threads=" + ",".join([str(t) for t in threads]))
    if resume_at:
        args.append("--resume_at=" + ",".join([str(k) for k in resume_at]))
    if determinism_cost:
        args.append("--determinism_cost")
    if binary_args:
        args += ["--"] + binary_args
    native.sh_test(
        name = name,
        srcs = [runner],
        args = args,
        data = [binary, diff],
        **kwargs
    )
