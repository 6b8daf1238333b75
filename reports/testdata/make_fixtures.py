#!/usr/bin/env python3
"""Writes the report fixtures: deterministic, seeded, in the exact format trick binaries
and run_all write (results/result_file.h schema 3, results/run_index.h schema 3): one
process per trick, 9 paired rounds per case.

  python3 reports/testdata/make_fixtures.py            # regenerate reports/testdata/
  python3 reports/testdata/make_fixtures.py --big=DIR  # a 40-trick run for timing

The golden Markdown (testdata/run.md) is `bazel run //reports:report -- reports/testdata/run
--out_dir=/tmp/x` and then /tmp/x/report.md copied over it, after checking the change.
"""
import json, os, random, sys

HERE = os.path.dirname(os.path.abspath(__file__))

CONTEXT = {
    "date": "2026-01-01T00:00:00+00:00", "host_name": "fixture", "executable": "/x",
    "num_cpus": 2, "mhz_per_cpu": 2600, "cpu_scaling_enabled": False,
    "caches": [], "load_avg": [0.1, 0.1, 0.1], "library_build_type": "release",
    "blas": "openblas", "blas_build_info": "generic", "blas_library": "/usr/lib/libblas.so.3",
    "cpu_cores": "2", "cpu_model": "Fixture CPU", "cuda_available": "false",
    "cuda_device_count": "0",
    "determinism": "deterministic_algorithms=0 cudnn_deterministic=0",
    "device": "cpu", "device_name": "Fixture CPU", "git_revision": "0123456789ab",
    "host": "fixture", "inter_op_threads": "1", "intra_op_threads": "2",
    "libtorch_build": "cpu", "mkldnn": "true", "torch_version": "1.13.0",
}


def samples(rng, median_ns, rel_spread, n=9):
    return [median_ns * rng.lognormvariate(0, rel_spread) for _ in range(n)]


def case_rounds(rng, case, variants, times):
    """The paired rounds of one case (SCHEMA.md section 1, trickbench.rounds[]): in round k
    every variant runs once, in an order drawn per round; variant v's sample in round k is
    times[v][k] ns per iteration."""
    cols = {k: [] for k in ("round", "position", "variant", "start_seconds", "iterations",
                            "ns_per_iteration", "cpu_ns_per_iteration", "involuntary_switches",
                            "voluntary_switches", "minor_faults_per_iteration", "steal_seconds")}
    n = len(times[0])
    clock = 0.0
    for k in range(n):
        order = list(range(len(variants)))
        rng.shuffle(order)
        for position, v in enumerate(order):
            ns = times[v][k]
            for key, value in (("round", k), ("position", position), ("variant", v),
                               ("start_seconds", round(clock, 6)), ("iterations", 10),
                               ("ns_per_iteration", ns), ("cpu_ns_per_iteration", ns * 0.99),
                               ("involuntary_switches", 0), ("voluntary_switches", 1),
                               ("minor_faults_per_iteration", 0.0), ("steal_seconds", 0.0)):
                cols[key].append(value)
            clock += ns * 10 / 1e9
    return {"case": case, "order_seed": rng.getrandbits(63), "iterations": [10] * len(variants),
            "samples": cols}


def result(tid, claim, status="ok", reason="", cases=None, variants=("baseline", "optimized"),
           times=None, peaks=None, equivalent=True, repro=None, category="Kernels", n=9,
           rng=None):
    """times: {(case, variant): [samples ns], one per round}; peaks: {(case, variant): bytes}"""
    cases = cases or [""]
    checks, rounds = [], []
    for c in cases:
        vs = []
        for i, v in enumerate(variants):
            vs.append({"name": v, "equivalent": True if i == 0 else equivalent,
                       "max_abs_diff": 0.0 if equivalent or i == 0 else 0.5, "max_rel_diff": 0.0,
                       "equivalence_detail": "" if equivalent or i == 0 else "max abs diff 0.5 > atol",
                       "active": True, "inactive_reason": "", "setup_bytes": 0,
                       "peak_bytes": (peaks or {}).get((c, v), 1 << 20),
                       "run_peak_bytes": (peaks or {}).get((c, v), 1 << 20),
                       "allocations": 4, "items_per_run": 0, "counters": {}})
        checks.append({"case": c, "variants": vs})
        if status == "ok":
            rounds.append(case_rounds(rng, c, variants, [times[(c, v)] for v in variants]))
    tb = {"schema_version": 3, "id": tid, "category": category, "source": "A1", "claim": claim,
          "needs_cuda": status == "skipped", "status": status, "reason": reason, "device": "cpu",
          "baseline": variants[0], "variants": list(variants), "cases": cases,
          "reproduced_variant": variants[-1],
          "tolerance": {"rtol": 1e-5, "atol": 1e-6, "bitwise": False},
          "settings": {"threads": 2, "min_time": 0.1, "seed": 0, "check_steps": 2,
                       "timing": "wall_clock", "rounds": n, "process": 1}, "nvtx": False}
    if status != "skipped":
        tb["checks"] = checks
    if repro is not None:
        tb["reproducibility"] = repro
    if rounds:
        tb["rounds"] = rounds
    ctx = dict(CONTEXT, trickbench_id=tid)
    return {"context": ctx, "trickbench": tb}


def fixture_run(rng, slow_factor=1.0):
    out = {}
    t = lambda m, s: samples(rng, m, s)
    out["alpha_fast"] = result("alpha_fast", "faster (2x)", rng=rng, times={
        ("", "baseline"): t(2e6, 0.02), ("", "optimized"): [x * slow_factor for x in t(1e6, 0.02)]},
        repro={"checked": True, "bitwise_reproducible": True, "fingerprint": "a1b2c3d4e5f60718",
               "detail": "two runs under the guard agree"})
    out["beta_memory"] = result("beta_memory", "saves memory", rng=rng, times={
        ("", "baseline"): t(5e5, 0.02), ("", "optimized"): t(5e5, 0.02)},
        peaks={("", "baseline"): 8 << 20, ("", "optimized"): 3 << 20},
        repro={"checked": True, "bitwise_reproducible": False, "fingerprint": "ffee",
               "detail": "run 2 differs at step 1, parameter fc.weight"})
    out["gamma_noeffect"] = result("gamma_noeffect", "faster", cases=["small", "large"], rng=rng, times={
        ("small", "baseline"): t(1e5, 0.005), ("small", "optimized"): t(1e5, 0.005),
        ("large", "baseline"): t(1e7, 0.005), ("large", "optimized"): t(1.003e7, 0.005)})
    # Noisy: imprecise (half-width above 10 %), but wholly beyond +5 %.
    out["delta_noisy"] = result("delta_noisy", "large speedup", rng=rng, times={
        ("", "baseline"): t(3e6, 0.2), ("", "optimized"): t(1e6, 0.2)})
    out["epsilon_unsettled"] = result("epsilon_unsettled", "less time", rng=rng,
                                      variants=("plain", "fused", "batched"), times={
        ("", "plain"): t(1e6, 0.04), ("", "fused"): t(0.97e6, 0.04), ("", "batched"): t(1.2e6, 0.02)})
    out["zeta_gpu"] = result("zeta_gpu", "1.27x forward", status="skipped",
                             reason="needs CUDA (cuDNN autotuning); no CUDA device here")
    out["eta_invalid"] = result("eta_invalid", "same output, faster", status="invalid",
                                reason="optimized differs from baseline: max abs diff 0.5 > atol",
                                equivalent=False)
    return out


def write_run(folder, results, extra_index=()):
    os.makedirs(folder, exist_ok=True)
    tricks = []
    for tid, r in results.items():
        name = tid + ".json"
        with open(os.path.join(folder, name), "w") as f:
            json.dump(r, f, indent=1)
        st = r["trickbench"]["status"]
        tricks.append({"id": tid, "outcome": st, "reason": r["trickbench"]["reason"],
                       "exit_code": 3 if st == "invalid" else 0, "seconds": 1.0,
                       "result": name, "log": tid + ".log", "process": 1})
    tricks.extend(extra_index)
    index = {"schema_version": 3, "kind": "trickbench-run-index", "started": "2026-01-01T00:00:00Z",
             "finished": "2026-01-01T00:10:00Z", "complete": True, "interrupted_by": None,
             "out_dir": "/x", "timeout_seconds": 300, "forwarded_flags": [], "processes": 1,
             "machine": {"load_start": 0.1, "load_end": 0.1, "steal_seconds": 0.0,
                         "involuntary_switches": 0},
             "tricks": tricks}
    with open(os.path.join(folder, "index.json"), "w") as f:
        json.dump(index, f, indent=1)


CRASHED = [{"id": "theta_crashed", "outcome": "crashed",
            "reason": "killed by signal 11 (Segmentation fault)", "exit_code": -1,
            "seconds": 0.5, "result": None, "log": "theta_crashed.log", "process": 1}]


def main():
    big = [a[6:] for a in sys.argv[1:] if a.startswith("--big=")]
    if big:
        rng = random.Random(40)
        results = {}
        for i in range(40):
            tid = "trick_%02d" % i
            results[tid] = result(tid, "faster", cases=["small", "large"], rng=rng,
                                  variants=("baseline", "optimized", "other"), n=15, times={
                (c, v): samples(rng, 1e6 * (1 + i % 7) * (0.7 if v == "optimized" else 1),
                                0.03, 15)
                for c in ("small", "large") for v in ("baseline", "optimized", "other")})
        write_run(big[0], results)
        return
    write_run(os.path.join(HERE, "run"), fixture_run(random.Random(7)), CRASHED)
    # The same code measured again (new seed), and once with alpha_fast 30 % slower.
    write_run(os.path.join(HERE, "run_again"), fixture_run(random.Random(8)), CRASHED)
    write_run(os.path.join(HERE, "run_regressed"), fixture_run(random.Random(8), 1.3), CRASHED)


if __name__ == "__main__":
    main()
