"""The compiled flow-time paths: throughput, memory, cost as m grows, speed-up over the step path
(not a test; the figures go to benchmarks/README.md).

Instance family (one per size law): n jobs, m machines, d = 2 distinct random eligible
machines per job, Poisson arrivals at load 0.9 (integer release = ⌊arrival time⌋), sizes 1
(unit) or uniform on 1..16 (sized), weights 1, seed 7. Every algorithm with a compiled path
runs with its default parameters at ε = 1/4 (speed 1.25 for the speed model); an algorithm
that assumes T* gets T = 4 (unit) or 32 (sized): a stand-in (the exact OPT of a 10⁶-job
instance is not computed here) that makes the caps bind on part of the jobs. Each figure is
the whole run through :func:`schedbench.scheduling.play.execute` — kernel, outcome arrays and
the independent validator — best of ``--repeat`` runs after a warm-up, one core, each
algorithm in a fresh process so that its peak resident memory (``ru_maxrss``) is its own.

Parts:
1. n = 10⁶, m = 1000, unit and sized: seconds, jobs/s, peak memory (targets: ≥ 10⁶ jobs/s,
   ``anand-batch`` ≥ 10⁵, ≤ 1.5 GB), next to the LoadBalancing fast path (``greedy``) on the
   same instance.
2. n = 10⁶ unit jobs at m = 10, 100, 1000, 10⁴: the cost as m grows (target: flat within 2×).
3. n = 10⁵, m = 1000, sized (unit for the unit-only rules): the compiled path and the step
   path of the same run, and the speed-up.
4. A user's compiled plug-in (``schedbench new algorithm --compiled``, written into a fresh
   folder outside the package and loaded from there) next to its built-in twin ``ll-fifo
   dispatch=work`` (the same rule up to ties), n = 10⁶, m = 1000, unit and sized.

``--one NAME`` times one algorithm (``NAME:oracle`` sets ``oracle``, ``NAME@key=value`` any
parameter); ``--plugins DIR`` loads plug-ins first; ``PYTHONPATH=<other checkout>/src`` times
another version of the suite the same way (the README's before/after rows).

Run:  .venv/bin/python benchmarks/bench_compiled.py [--repeat 2] [--part 1,2,3]
Raw numbers: benchmarks/out/compiled.json (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ALGORITHMS = [
    "mft-unit",
    "ll-fifo",
    "ll-fifo-drop",
    "drop-every-k-flow",
    "random-two-flow",
    "imd",
    "edf",
    "ssf-edf",
    "lwf",
    "wmft-A",
    "wmft-B",
    "gwmft",
    "class-ll-srpt",
    "lb-unit-reject:phases",
    "lb-unit-reject:doubling",
    "greedy",
]
UNIT_ONLY = {"mft-unit", "lb-unit-reject:phases", "lb-unit-reject:doubling"}
#: Every algorithm runs at n = 10⁶ (lb-unit-reject phases was capped at 10⁵ while its prefix
#: optimum was superlinear; it is near-linear since the machine-graph augmenting search).
N_OVERRIDE: dict[str, int] = {}


def instance(n: int, m: int, sizes: int, seed: int = 7):
    from schedbench.scheduling.model import Instance

    rng = np.random.default_rng(seed)
    mean = 1.0 if sizes == 1 else (sizes + 1) / 2
    release = np.floor(np.cumsum(rng.exponential(mean / (0.9 * m), n))).astype(np.int64)
    size = np.ones(n, np.int64) if sizes == 1 else rng.integers(1, sizes + 1, n)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m  # a second machine, distinct from the first
    indices = np.stack([np.minimum(a, b), np.maximum(a, b)], axis=1).reshape(-1)
    return Instance(m, release, size, np.arange(n + 1, dtype=np.int64) * 2, indices, None, None)


def one(spec: str, n: int, m: int, sizes: int, repeat: int, fast: bool) -> dict:
    """One algorithm in this process: warm-up on a small instance, then the timed runs."""
    from schedbench.scheduling.play import execute
    from schedbench.scheduling.registry import get_algorithm

    spec_name, _, setting = spec.partition("@")
    name, _, oracle = spec_name.partition(":")
    cls = get_algorithm(name)
    params = {"oracle": oracle} if oracle else {}
    if setting:
        key, _, value = setting.partition("=")
        params[key] = value
    eps = None if cls.model == "plain" else 0.25
    T = 4.0 if sizes == 1 else 32.0
    opt = T if cls.uses_oracle(cls.resolve_params(params)) else None
    execute(cls, instance(2000, min(m, 50), sizes, seed=1), eps=eps, params=params, oracle=opt, fast=fast)
    inst = instance(n, m, sizes)
    best, record = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        record = execute(cls, inst, eps=eps, params=params, oracle=opt, fast=fast)
        best = min(best, time.perf_counter() - t0)
    return {
        "algorithm": spec,
        "n": n,
        "m": m,
        "sizes": "unit" if sizes == 1 else f"U{{1..{sizes}}}",
        "path": record.path,
        "status": record.status,
        "objective": record.objective,
        "rejected_frac": record.rejected_frac,
        "seconds": best,
        "jobs_per_s": n / best,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def run_child(spec, n, m, sizes, repeat, fast=True, plugins=None) -> dict:
    cmd = [sys.executable, __file__, "--one", spec, "--n", str(n), "--m", str(m), "--sizes", str(sizes)]
    cmd += ["--repeat", str(repeat)] + ([] if fast else ["--step"]) + (["--plugins", plugins] if plugins else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    row = json.loads(out.stdout.strip().splitlines()[-1])
    print(
        f"{row['algorithm']:24s} n={n:>8d} m={m:>5d} {row['sizes']:8s} {row['path']:8s} "
        f"{row['seconds']:7.3f} s {row['jobs_per_s'] / 1e6:6.2f} M/s {row['peak_rss_mb']:7.0f} MB {row['status']}",
        flush=True,
    )
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--part", default="1,2,3,4")
    ap.add_argument("--one")
    ap.add_argument("--n", type=int)
    ap.add_argument("--m", type=int)
    ap.add_argument("--sizes", type=int)
    ap.add_argument("--step", action="store_true")
    ap.add_argument("--plugins", help="a plug-in file or folder to load before --one")
    args = ap.parse_args()
    if args.plugins:
        from schedbench.scheduling.registry import use_plugins

        use_plugins([args.plugins], source="bench_compiled --plugins")
    if args.one:
        print(json.dumps(one(args.one, args.n, args.m, args.sizes, args.repeat, fast=not args.step)))
        return
    parts = {int(p) for p in args.part.split(",")}
    results: dict[str, list] = {"throughput": [], "machines": [], "speedup": [], "plugin": []}
    if 1 in parts:
        for sizes in (1, 16):
            for spec in ALGORITHMS + ["anand-batch"]:
                if sizes > 1 and spec in UNIT_ONLY:
                    continue
                results["throughput"].append(run_child(spec, N_OVERRIDE.get(spec, 10**6), 1000, sizes, args.repeat))
    if 2 in parts:
        for spec in ALGORITHMS + ["anand-batch"]:
            for m in (10, 100, 1000, 10_000):
                results["machines"].append(run_child(spec, N_OVERRIDE.get(spec, 10**6), m, 1, args.repeat))
    if 3 in parts:
        for spec in ALGORITHMS[:-1] + ["anand-batch"]:  # greedy: no step path worth timing
            sizes = 1 if spec in UNIT_ONLY else 16
            fast = run_child(spec, 10**5, 1000, sizes, args.repeat)
            step = run_child(spec, 10**5, 1000, sizes, 1, fast=False)
            results["speedup"].append(
                {"algorithm": spec, "compiled": fast, "step": step, "speedup": step["seconds"] / fast["seconds"]}
            )
            print(f"  speed-up {step['seconds'] / fast['seconds']:.0f}x", flush=True)
    if 4 in parts:
        import tempfile

        from schedbench.scheduling.scaffold import new_plugin

        folder = Path(tempfile.mkdtemp(prefix="bench_plugin_"))
        new_plugin("algorithm", "user-lw", folder, problem="maxflow", model="speed", with_compiled=True)
        for sizes in (1, 16):
            results["plugin"].append(run_child("user-lw", 10**6, 1000, sizes, args.repeat, plugins=str(folder)))
            results["plugin"].append(run_child("ll-fifo@dispatch=work", 10**6, 1000, sizes, args.repeat))
    out = Path(__file__).resolve().parent / "out"
    out.mkdir(exist_ok=True)
    meta = {"python": platform.python_version(), "machine": platform.machine(), "date": time.strftime("%Y-%m-%d")}
    (out / "compiled.json").write_text(json.dumps({"meta": meta, "results": results}, indent=2))


if __name__ == "__main__":
    main()
