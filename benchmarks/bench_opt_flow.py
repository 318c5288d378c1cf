"""Exact MaxFlowTime optimum (spec §8.2) on unit jobs: n = 10^5, m = 100, d = 2 random
eligible machines, Poisson arrivals at rate ρ·m per slot (targets: ≤ 2 s at ρ = 0.9, ≤ 10 s at
ρ = 1.0), plus the general-size path (migratory bound + MIP) on small instances.
Not a test; prints a table (n, m, ρ, T*, status, seconds).

Run:  .venv/bin/python benchmarks/bench_opt_flow.py [--repeat 3] [--n 100000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline.maxflow import opt_max_flow


def poisson_instance(n: int, m: int, rho: float, d: int, seed: int, sizes: int = 1) -> Instance:
    """n jobs, Poisson(rate ρ·m/E[size]) arrivals per slot, d distinct random eligible machines,
    sizes uniform on 1..``sizes``."""
    rng = np.random.default_rng(seed)
    size = rng.integers(1, sizes + 1, size=n)
    rate = rho * m / ((sizes + 1) / 2)
    counts = rng.poisson(rate, size=int(2 * n / rate) + 10)
    release = np.repeat(np.arange(counts.size), counts)[:n]
    assert release.size == n
    eligible = np.argsort(rng.random((n, m)), axis=1)[:, :d] if m <= 1000 else None
    indptr = np.arange(0, n * d + 1, d)
    return Instance(m=m, release=release, size=size, indptr=indptr, indices=eligible.ravel(),
                    w_flow=None, w_reject=None, meta={"bench": "poisson", "rho": rho, "seed": seed})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--seeds", type=int, default=1)
    args = ap.parse_args()
    # Warm the numba cache (compilation is not what is measured).
    opt_max_flow(poisson_instance(200, 4, 0.9, 2, 0))
    opt_max_flow(poisson_instance(30, 3, 0.9, 2, 0, sizes=4))
    rows = []
    for rho, limit in ((0.9, 2.0), (1.0, 10.0)):
        for seed in range(args.seeds):
            inst = poisson_instance(args.n, 100, rho, 2, seed)
            best, res = np.inf, None
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                res = opt_max_flow(inst, time_limit=600)
                best = min(best, time.perf_counter() - t0)
            rows.append((inst.n, inst.m, rho, "1", res.value, res.status, res.solver, best, limit))
    for n, m, rho, sizes, tl in ((60, 3, 0.9, 4, 60), (200, 5, 0.9, 4, 60), (400, 10, 0.9, 8, 20)):
        inst = poisson_instance(n, m, rho, 2, 1, sizes=sizes)
        t0 = time.perf_counter()
        res = opt_max_flow(inst, time_limit=tl)
        rows.append((n, m, rho, f"1..{sizes}", res.value, f"{res.status} (lb {res.lower_bound:g})",
                     res.solver, time.perf_counter() - t0, None))
    print(f"{'n':>7} {'m':>4} {'rho':>4} {'sizes':>6} {'T*':>6} {'status':>18} {'seconds':>8} "
          f"{'target':>6}  solver")
    for n, m, rho, sizes, val, status, solver, sec, target in rows:
        tgt = f"{target:g}" if target else "-"
        print(f"{n:>7} {m:>4} {rho:>4} {sizes:>6} {val:>6g} {status:>18} {sec:>8.3f} {tgt:>6}  {solver}")


if __name__ == "__main__":
    main()
