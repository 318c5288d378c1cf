"""Exact MaxFlowTime optimum (spec §8.2) on unit jobs: n = 10^5, m = 100, d = 2 random
eligible machines, Poisson arrivals at rate ρ·m per slot (targets: ≤ 2 s at ρ = 0.9, ≤ 10 s at
ρ = 1.0), plus the general-size path (migratory bound + MIP) on small instances; then the
§8.3 objectives on the same instances: weighted max flow (w_flow uniform on {1, 4, 16}) on the
unit n = 10^5 instances, and max stretch / weighted max flow on small sized instances (MIP).
Not a test; prints a table (objective, n, m, ρ, sizes, OPT, status, seconds).

Run:  .venv/bin/python benchmarks/bench_opt_flow.py [--repeat 3] [--n 100000] [--no-flow]

Part "scale" (sized jobs at scale, lazy windows vs the full window MIP): sizes U{1..16},
d = 2 random eligible machines, Poisson load 0.9; m = 10, n = 1000 over 10 seeds (targets: all
proven optimal, median ≤ 30 s), m = 20, n = 2000 (proven or gap ≤ 2 % within 120 s) and
m = 100, n = 10^4 (the gap reached in the limit); per seed status, wall and CPU seconds, probes,
value, lower bound and gap, for the lazy search and for the full MIP (``method="mip-full"``),
each under its own time limit. Run only this part:

      .venv/bin/python benchmarks/bench_opt_flow.py --scale [--scale-sets 1000,2000,10000]
          [--scale-seeds 10] [--lazy-limit 120] [--mip-limit 120] [--solver cpsat]
"""

from __future__ import annotations

import argparse
import re
import time

import numpy as np

from schedbench.hall.effort import Effort
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import maxflow as mf
from schedbench.scheduling.offline.maxflow import opt_max_flow

WEIGHTS = (1.0, 4.0, 16.0)


def poisson_instance(
    n: int, m: int, rho: float, d: int, seed: int, sizes: int = 1, weights: tuple[float, ...] | None = None
) -> Instance:
    """n jobs, Poisson(rate ρ·m/E[size]) arrivals per slot, d distinct random eligible machines,
    sizes uniform on 1..``sizes``; ``w_flow`` uniform on ``weights`` (drawn after everything
    else, so the jobs are those of the unweighted instance)."""
    rng = np.random.default_rng(seed)
    size = rng.integers(1, sizes + 1, size=n)
    rate = rho * m / ((sizes + 1) / 2)
    counts = rng.poisson(rate, size=int(2 * n / rate) + 10)
    release = np.repeat(np.arange(counts.size), counts)[:n]
    assert release.size == n
    eligible = np.argsort(rng.random((n, m)), axis=1)[:, :d] if m <= 1000 else None
    indptr = np.arange(0, n * d + 1, d)
    w_flow = None if weights is None else rng.choice(np.asarray(weights, dtype=np.float64), n)
    return Instance(
        m=m,
        release=release,
        size=size,
        indptr=indptr,
        indices=eligible.ravel(),
        w_flow=w_flow,
        w_reject=None,
        meta={"bench": "poisson", "rho": rho, "seed": seed},
    )


def _timed(inst: Instance, objective: str, limit: float, repeat: int):
    best, res = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = opt_max_flow(inst, objective=objective, time_limit=limit)
        best = min(best, time.perf_counter() - t0)
    return res, best


#: (n, m, seeds by default) of the scale part.
SCALE_SETS = {1000: (10, 10), 2000: (20, 3), 10000: (100, 1)}


def _solve_sized(inst: Instance, limit: float, method: str, solver: str):
    t0, c0 = time.perf_counter(), time.process_time()
    dl = mf._Deadlines(inst, "flow")
    res = mf._opt_sized(inst, dl, t0, Effort(None, limit), 0, method=method, solver=solver)
    return res, time.perf_counter() - t0, time.process_time() - c0


def scale_part(sets: list[int], seeds: int | None, lazy_limit: float, mip_limit: float, solver: str) -> None:
    # warm the numba cache of both paths (compilation is not what is measured)
    warm = poisson_instance(120, 4, 0.9, 2, 0, sizes=16)
    _solve_sized(warm, 60, "lazy", solver)
    _solve_sized(warm, 60, "mip-full", solver)
    print(
        f"{'n':>6} {'m':>4} {'seed':>4} {'method':>11} {'status':>8} {'value':>6} {'lb':>6} {'gap':>7} "
        f"{'probes':>6} {'wall s':>7} {'cpu s':>7}",
        flush=True,
    )
    for n in sets:
        m, default_seeds = SCALE_SETS[n]
        for seed in range(seeds if seeds is not None else default_seeds):
            inst = poisson_instance(n, m, 0.9, 2, seed, sizes=16)
            for method, limit in (("lazy", lazy_limit), ("mip-full", mip_limit)):
                res, wall, cpu = _solve_sized(inst, limit, method, solver)
                gap = (
                    (res.value - res.lower_bound) / res.value
                    if res.value == res.value and res.value > 0
                    else float("nan")
                )
                found = re.search(r"(\d+) probes", res.solver)
                probes = found.group(1) if found else "-"
                name = f"lazy-{solver}" if method == "lazy" else method
                print(
                    f"{n:>6} {m:>4} {seed:>4} {name:>11} {res.status:>8} {res.value:>6g} {res.lower_bound:>6g} "
                    f"{gap:>7.2%} {probes:>6} {wall:>7.1f} {cpu:>7.1f}",
                    flush=True,
                )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--no-flow", action="store_true", help="only the §8.3 (weighted) rows")
    ap.add_argument("--scale", action="store_true", help="only the scale part (sized jobs, lazy vs full MIP)")
    ap.add_argument("--scale-sets", default="1000,2000,10000", help="job counts of the scale part")
    ap.add_argument("--scale-seeds", type=int, default=None, help="seeds per set (default 10 / 3 / 1)")
    ap.add_argument("--lazy-limit", type=float, default=120.0)
    ap.add_argument("--mip-limit", type=float, default=120.0)
    ap.add_argument("--solver", default=mf.lw.DEFAULT_SOLVER, choices=mf.lw.SOLVERS)
    args = ap.parse_args()
    if args.scale:
        sets = [int(x) for x in args.scale_sets.split(",")]
        scale_part(sets, args.scale_seeds, args.lazy_limit, args.mip_limit, args.solver)
        return
    # Warm the numba cache (compilation is not what is measured).
    opt_max_flow(poisson_instance(200, 4, 0.9, 2, 0))
    opt_max_flow(poisson_instance(30, 3, 0.9, 2, 0, sizes=4))
    opt_max_flow(poisson_instance(200, 4, 0.9, 2, 0, weights=WEIGHTS), objective="weighted")
    rows = []
    wl = "{" + ",".join(f"{w:g}" for w in WEIGHTS) + "}"
    unit_objectives = ([("flow", None, "")] if not args.no_flow else []) + [("weighted", WEIGHTS, wl)]
    for objective, weights, wname in unit_objectives:
        for rho, target in ((0.9, 2.0), (1.0, 10.0)):
            for seed in range(args.seeds):
                inst = poisson_instance(args.n, 100, rho, 2, seed, weights=weights)
                res, sec = _timed(inst, objective, 600, args.repeat)
                rows.append(
                    (
                        objective + (f" w∈{wname}" if wname else ""),
                        inst.n,
                        inst.m,
                        rho,
                        "1",
                        res.value,
                        res.status,
                        res.solver,
                        sec,
                        target,
                    )
                )
    sized = (
        []
        if args.no_flow
        else [
            ("flow", None, 60, 3, 0.9, 4, 60),
            ("flow", None, 200, 5, 0.9, 4, 60),
            ("flow", None, 400, 10, 0.9, 8, 20),
        ]
    )
    sized += [
        ("stretch", None, 60, 3, 0.9, 4, 60),
        ("stretch", None, 200, 5, 0.9, 4, 60),
        ("stretch", None, 100, 5, 0.9, 8, 60),
        ("weighted", WEIGHTS, 60, 3, 0.9, 4, 60),
        ("weighted", WEIGHTS, 200, 5, 0.9, 4, 60),
    ]
    for objective, weights, n, m, rho, sizes, tl in sized:
        inst = poisson_instance(n, m, rho, 2, 1, sizes=sizes, weights=weights)
        res, sec = _timed(inst, objective, tl, 1)
        name = objective + (f" w∈{wl}" if weights else "")
        rows.append(
            (
                name,
                n,
                m,
                rho,
                f"1..{sizes}",
                res.value,
                f"{res.status} (lb {res.lower_bound:.6g})",
                res.solver,
                sec,
                None,
            )
        )
    print(
        f"{'objective':>17} {'n':>7} {'m':>4} {'rho':>4} {'sizes':>6} {'OPT':>8} {'status':>22} "
        f"{'seconds':>8} {'target':>6}  solver"
    )
    for obj, n, m, rho, sizes, val, status, solver, sec, target in rows:
        tgt = f"{target:g}" if target else "-"
        print(f"{obj:>17} {n:>7} {m:>4} {rho:>4} {sizes:>6} {val:>8.6g} {status:>22} {sec:>8.3f} {tgt:>6}  {solver}")


if __name__ == "__main__":
    main()
