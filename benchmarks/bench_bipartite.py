"""Side-by-side speed of the same model in schedbench, Ciw and SimPy (not a test).

Model: N = 100 homogeneous servers (μ = 1), one job type on the complete graph, Poisson arrivals
at total rate 0.9·N, join the shortest queue counting the job in service (Ciw: its
``LoadBalancing`` router — its ``JoinShortestQueue`` ignores the job in service), FCFS, 10^6
arrivals. Each simulator reports the mean response time with a 95 % batch-means CI (20 batches
after a warm-up of 5 % of the arrivals) and its events per second, counting 2 events per job
(arrival and departure) for all three. The three means must agree within their CIs.

Run: make bench-compare   (installs requirements-bench.txt into .venv), or
     .venv/bin/python benchmarks/bench_bipartite.py [--arrivals 1000000] [--skip ciw]
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import time
from pathlib import Path

import numpy as np
from scipy import stats

from schedbench.bipartite.simulate import simulate_bipartite

N, MU, RHO, BATCHES = 100, 1.0, 0.9, 20


def batch_ci(sojourns: np.ndarray) -> tuple[float, float, float]:
    x = np.asarray(sojourns, dtype=float)
    x = x[int(0.05 * x.size) :]
    means = np.array([b.mean() for b in np.array_split(x, BATCHES)])
    half = stats.t.ppf(0.975, BATCHES - 1) * means.std(ddof=1) / math.sqrt(BATCHES)
    return float(x.mean()), float(x.mean() - half), float(x.mean() + half)


def run_schedbench(arrivals: int, seed: int) -> dict:
    simulate_bipartite(np.ones(N), [RHO * N], "complete", "jsq", arrivals=10_000, seed=seed)  # JIT
    t0 = time.perf_counter()
    r = simulate_bipartite(
        np.full(N, MU),
        [RHO * N * MU],
        "complete",
        "jsq",
        arrivals=arrivals,
        seed=seed,
        warmup=0.05 * arrivals / (RHO * N * MU),
    )
    wall = time.perf_counter() - t0
    # the kernel counts every arrival and departure, warm-up included: 2 events per job as below
    return {
        "simulator": "schedbench",
        "mean_response": r.mean_response,
        "ci_lo": r.mean_response_ci[0],
        "ci_hi": r.mean_response_ci[1],
        "seconds": wall,
        "events": r.events,
        "events_per_s": r.events / wall,
        "arrivals": r.arrivals,
    }


def run_simpy(arrivals: int, seed: int) -> dict:
    import simpy

    rng = random.Random(seed)
    env = simpy.Environment()
    servers = [simpy.Resource(env, capacity=1) for _ in range(N)]
    sojourn = []

    def job(server):
        start = env.now
        with server.request() as req:
            yield req
            yield env.timeout(rng.expovariate(MU))
        sojourn.append(env.now - start)

    def source():
        for _ in range(arrivals):
            yield env.timeout(rng.expovariate(RHO * N * MU))
            best, best_q, ties = None, None, 0
            for s in servers:  # JSQ counting the job in service, ties uniform
                q = len(s.queue) + s.count
                if best is None or q < best_q:
                    best, best_q, ties = s, q, 1
                elif q == best_q:
                    ties += 1
                    if rng.random() * ties < 1:
                        best = s
            env.process(job(best))

    env.process(source())
    t0 = time.perf_counter()
    env.run()
    wall = time.perf_counter() - t0
    mean, lo, hi = batch_ci(np.array(sojourn))
    return {
        "simulator": "SimPy",
        "mean_response": mean,
        "ci_lo": lo,
        "ci_hi": hi,
        "seconds": wall,
        "events": 2 * arrivals,
        "events_per_s": 2 * arrivals / wall,
        "arrivals": arrivals,
    }


def run_ciw(arrivals: int, seed: int) -> dict:
    import ciw

    ciw.seed(seed)
    servers = list(range(2, N + 2))
    network = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(RHO * N * MU)] + [None] * N,
        service_distributions=[ciw.dists.Deterministic(0.0)] + [ciw.dists.Exponential(MU)] * N,
        number_of_servers=[float("inf")] + [1] * N,
        routing=ciw.routing.NetworkRouting(
            routers=[ciw.routing.LoadBalancing(destinations=servers)] + [ciw.routing.Leave()] * N
        ),
    )
    sim = ciw.Simulation(network)
    t0 = time.perf_counter()
    sim.simulate_until_max_customers(arrivals, method="Arrive")
    wall = time.perf_counter() - t0
    recs = [r for r in sim.get_all_records() if r.node >= 2 and r.record_type == "service"]
    recs.sort(key=lambda r: r.arrival_date)
    sojourn = np.array([r.exit_date - r.arrival_date for r in recs])
    mean, lo, hi = batch_ci(sojourn)
    done = len(recs)
    return {
        "simulator": "Ciw",
        "mean_response": mean,
        "ci_lo": lo,
        "ci_hi": hi,
        "seconds": wall,
        "events": 2 * done,
        "events_per_s": 2 * done / wall,
        "arrivals": done,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--arrivals", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skip", action="append", default=[], choices=["ciw", "simpy"])
    args = parser.parse_args()
    rows = [run_schedbench(args.arrivals, args.seed)]
    if "simpy" not in args.skip:
        rows.append(run_simpy(args.arrivals, args.seed))
    if "ciw" not in args.skip:
        rows.append(run_ciw(args.arrivals, args.seed))
    base = rows[0]["events_per_s"]
    lo = max(r["ci_lo"] for r in rows)
    hi = min(r["ci_hi"] for r in rows)
    print(f"{'simulator':<11} {'E[T]':>8} {'95% CI':>21} {'seconds':>9} {'events/s':>10} {'schedbench x':>13}")
    for r in rows:
        r["speedup_of_schedbench"] = base / r["events_per_s"]
        print(
            f"{r['simulator']:<11} {r['mean_response']:>8.4f} [{r['ci_lo']:.4f}, {r['ci_hi']:.4f}] "
            f"{r['seconds']:>9.2f} {r['events_per_s']:>10.3g} {r['speedup_of_schedbench']:>13.1f}"
        )
    agree = lo <= hi
    print(f"confidence intervals {'overlap' if agree else 'DO NOT overlap'} (common range [{lo:.4f}, {hi:.4f}])")
    out = Path(__file__).with_name("out")
    out.mkdir(exist_ok=True)
    (out / "bipartite_compare.json").write_text(
        json.dumps(
            {"platform": platform.platform(), "arrivals": args.arrivals, "rows": rows, "cis_overlap": agree}, indent=2
        )
    )


if __name__ == "__main__":
    main()
