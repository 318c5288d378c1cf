"""Performance figures of the seed-000 wing (not a test; numbers go to benchmarks/README.md).

1. Greedy dispatch throughput, m = 1000 machines, n = 10^6 unit jobs, d = 4 random eligible
   machines each (target >= 10^6 jobs/s): the numba fast path alone, the engine (fast path plus
   outcome bookkeeping), and the full validated run (engine + independent validator).
2. The LP (max-flow) lower bound on the makespan for n = 10^5 jobs (m = 1000, d = 2,
   power-of-two sizes up to 2^6): the whole bisection between the trivial bound and the
   largest-first schedule, and one max-flow feasibility test alone.
3. Every registered LoadBalancing algorithm (default parameters; T* = the trivial bound where
   it needs one) on the same m = 1000, n = 10^6 instance, validated (target >= 10^6 jobs/s);
   the variants without a fast path (T*-free phases and doubling) on n = 10^5.
4. The slotted engine (flow time) with a simple rule — least remaining work among 2 random
   eligible machines, FIFO per machine — on n = 10^5 jobs, m = 100, load 0.9, integer sizes
   uniform on 1..16, Poisson arrivals (target <= 2 s including validation, one core); the
   per-slot cost is the time divided by the number of slots the run spans.
5. Every registered MaxFlowTime algorithm (default parameters, ε = 0.25; T* = the exact
   offline optimum) on n = 10^5 unit jobs, m = 100, d = 2, Poisson arrivals at load 0.9,
   validated (target <= 5 s each, one core); ``--flow-only`` runs just this part.
6. Every registered algorithm that solves max stretch (default parameters, ε = 0.25) on a
   stretch workload: n = 10^5 jobs, m = 100, d = 2, bounded-Pareto sizes (shape 1.5, up to
   2^10), Poisson arrivals at load 0.9 — validated (target <= 5 s each). T* is not computable at
   this size (the window MIP is for small instances): algorithms that assume it get T = 8, a
   timing stand-in (``--stretch-only`` runs just this part).

Run:  make bench     (or: .venv/bin/python benchmarks/bench_scheduling.py [--repeat 3])
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path


import numpy as np

import schedbench
from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import makespan_lower_bound
from schedbench.scheduling.offline.makespan import _FlowBound, _largest_first_schedule
from schedbench.scheduling.play import execute, play_instance
from schedbench.scheduling.registry import get_algorithm, get_family


class LeastWorkFifo(OnlineAlgorithm):
    """Benchmark rule (not registered): least remaining work among the eligible machines, FIFO."""

    name = "bench-least-work-fifo"
    problem = "maxflow"
    model = "plain"

    def on_arrival(self, job, view):
        best, best_w = -1, 0.0
        for i in job.eligible.tolist():
            w = view.remaining_work(i)
            if best < 0 or w < best_w:
                best, best_w = i, w
        return best


def flow_instance(n: int, m: int, load: float, seed: int) -> Instance:
    rng = np.random.default_rng(seed)
    size = rng.integers(1, 17, size=n)
    rate = load * m / 8.5  # mean size of U{1..16}
    counts = rng.poisson(rate, size=int(2 * n / rate) + 10)
    release = np.repeat(np.arange(counts.size), counts)[:n]
    elig = np.sort(np.stack([rng.choice(m, 2, replace=False) for _ in range(n)]), axis=1)
    return Instance(m, release, size, np.arange(0, 2 * n + 1, 2), elig.reshape(-1), None, None)


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--flow-only", action="store_true", help="only part 5 (every MaxFlowTime algorithm)")
    parser.add_argument("--stretch-only", action="store_true", help="only part 6 (every max-stretch algorithm)")
    args = parser.parse_args()
    rr = get_family("random-restricted")
    results = {}
    if args.stretch_only:
        stretch_algorithms(rr, results, args.repeat)
        report(results, args.repeat, "scheduling_stretch.json")
        return
    flow_algorithms(rr, results, args.repeat)
    if args.flow_only:
        report(results, args.repeat, "scheduling_flow.json")
        return
    stretch_algorithms(rr, results, args.repeat)

    inst = rr.make(0, 1, m=1000, n=1_000_000, d=4)
    greedy = get_algorithm("greedy")
    order = inst.arrival_order()
    greedy(inst.m).dispatch_all(inst.size, inst.indptr, inst.indices, order)  # JIT warm-up
    t_kernel = best_of(lambda: greedy(inst.m).dispatch_all(inst.size, inst.indptr, inst.indices, order), args.repeat)
    t_engine = best_of(lambda: play_instance(greedy(inst.m), inst), args.repeat)

    def validated():
        assert execute(greedy, inst).validation.valid

    t_full = best_of(validated, args.repeat)
    for name, t in (("greedy kernel", t_kernel), ("greedy engine", t_engine), ("greedy engine + validator", t_full)):
        results[name] = {"seconds": t, "jobs_per_second": inst.n / t}

    from schedbench.scheduling.offline import trivial_bound
    from schedbench.scheduling.registry import algorithm_names

    sized = rr.make(0, 4, m=1000, n=1_000_000, d=4, sizes="pow2", max_size_exp=4)
    for name in algorithm_names():
        cls = get_algorithm(name)
        if cls.problem != "load":
            continue
        on = inst if cls.unit_sizes_only else sized
        eps = 0.25 if cls.model != "plain" else None
        oracle = float(trivial_bound(on))
        execute(cls, on, eps=eps, oracle=oracle)  # JIT warm-up
        t_alg = best_of(lambda: execute(cls, on, eps=eps, oracle=oracle), args.repeat)
        assert execute(cls, on, eps=eps, oracle=oracle).validation.status in ("ok", "budget_violated")
        results[f"{name} + validator"] = {"seconds": t_alg, "jobs_per_second": on.n / t_alg}
    small = rr.make(0, 5, m=1000, n=100_000, d=4)
    lbu = get_algorithm("lb-unit-reject")
    for oracle_rule in ("phases", "doubling"):
        t_alg = best_of(lambda: execute(lbu, small, eps=0.25, params={"oracle": oracle_rule}), args.repeat)
        results[f"lb-unit-reject oracle={oracle_rule} n=1e5 (step path)"] = {
            "seconds": t_alg,
            "jobs_per_second": small.n / t_alg,
        }

    big = rr.make(0, 2, m=1000, n=100_000, d=2, sizes="pow2", max_size_exp=6)
    makespan_lower_bound(rr.make(0, 3, m=10, n=100, d=2, sizes="pow2"))  # JIT warm-up
    lb = {}
    t_lb = best_of(lambda: lb.setdefault("value", makespan_lower_bound(big)), args.repeat)
    trivial = max(int(big.size.max()), -(-int(big.size.sum()) // big.m))
    upper = int(_largest_first_schedule(big.size, big.indptr, big.indices, big.m)[1])
    results["LP bound n=1e5 (bisection)"] = {
        "seconds": t_lb,
        "value": lb["value"],
        "trivial_bound": trivial,
        "greedy_upper": upper,
    }
    flow = _FlowBound(big)
    t_flow = best_of(lambda: flow.feasible(lb["value"]), args.repeat)
    results["one max-flow test n=1e5"] = {"seconds": t_flow}
    flow = flow_instance(100_000, 100, 0.9, seed=5)
    runs = {}
    t_slot = best_of(lambda: runs.setdefault("p", execute(LeastWorkFifo, flow)), args.repeat)
    played = runs["p"]
    assert played.validation.valid, played.validation.errors
    t_play = best_of(lambda: play_instance(LeastWorkFifo(flow.m), flow, fast=False), args.repeat)
    slots = int(np.ceil(np.nanmax(played.outcome.completion)))
    results["slotted engine n=1e5 m=100 + validator"] = {
        "seconds": t_slot,
        "jobs_per_second": flow.n / t_slot,
        "engine_seconds": t_play,
        "slots": slots,
        "us_per_slot": 1e6 * t_slot / slots,
        "trace_rows": int(played.outcome.trace_job.size),
        "max_flow": played.validation.objective,
    }
    report(results, args.repeat, "scheduling.json")
    r = results["slotted engine n=1e5 m=100 + validator"]
    print(
        f"slotted engine: {r['slots']} slots, {r['us_per_slot']:.1f} us/slot, engine alone {r['engine_seconds']:.3f} s, "
        f"{r['trace_rows']} trace rows, max flow {r['max_flow']:g}"
    )
    r = results["LP bound n=1e5 (bisection)"]
    print(f"LP bound {r['value']} (trivial bound {r['trivial_bound']}, largest-first {r['greedy_upper']})")


def flow_algorithms(rr, results: dict, repeat: int) -> None:
    """Part 5: every MaxFlowTime algorithm on one n = 10^5 unit-job instance at load 0.9."""
    from schedbench.scheduling.offline import opt_max_flow
    from schedbench.scheduling.registry import algorithm_names

    inst = rr.make(0, 6, m=100, n=100_000, d=2, sizes="unit", arrivals="poisson", load=0.9)
    opt = opt_max_flow(inst)
    for name in algorithm_names():
        cls = get_algorithm(name)
        if cls.problem != "maxflow":
            continue
        eps = None if cls.model == "plain" else 0.25
        oracle = opt.value if cls.uses_oracle(cls.resolve_params({})) else None
        runs = {}
        t_alg = best_of(lambda: runs.setdefault("p", execute(cls, inst, eps=eps, oracle=oracle)), repeat)
        v = runs["p"].validation
        assert v.status in ("ok", "budget_violated"), v.errors
        results[f"{name} (maxflow) + validator"] = {
            "seconds": t_alg,
            "jobs_per_second": inst.n / t_alg,
            "max_flow": v.objective,
            "opt": opt.value,
            "rejected_frac": v.rejected_frac,
        }


def stretch_algorithms(rr, results: dict, repeat: int) -> None:
    """Part 6: every algorithm solving max stretch on one n = 10^5 bounded-Pareto workload."""
    from schedbench.scheduling.registry import algorithm_names

    inst = rr.make(
        0, 7, m=100, n=100_000, d=2, sizes="pareto", pareto_shape=1.5, max_size=1024, arrivals="poisson", load=0.9
    )
    for name in algorithm_names():
        cls = get_algorithm(name)
        if "stretch" not in cls.solved_problems():
            continue
        eps = None if cls.model == "plain" else 0.25
        oracle = 8.0 if cls.uses_oracle(cls.resolve_params({})) else None
        runs = {}
        t_alg = best_of(
            lambda: runs.setdefault("p", execute(cls, inst, eps=eps, oracle=oracle, problem="stretch")), repeat
        )
        v = runs["p"].validation
        assert v.status in ("ok", "budget_violated"), v.errors
        results[f"{name} (stretch) + validator"] = {
            "seconds": t_alg,
            "jobs_per_second": inst.n / t_alg,
            "max_stretch": v.objective,
            "rejected_frac": v.rejected_frac,
        }


def report(results: dict, repeat: int, filename: str) -> None:
    meta = {
        "schedbench": schedbench.__version__,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "repeat": repeat,
    }
    out = Path(__file__).with_name("out")
    out.mkdir(exist_ok=True)
    (out / filename).write_text(json.dumps({"meta": meta, "results": results}, indent=2))
    print(f"{'benchmark':<55} {'seconds':>9} {'jobs/s':>14}")
    for name, r in results.items():
        rate = f"{r['jobs_per_second']:>14.3g}" if "jobs_per_second" in r else f"{'-':>14}"
        extra = f"  max flow {r['max_flow']:g} (OPT {r['opt']:g})" if "max_flow" in r and "opt" in r else ""
        print(f"{name:<55} {r['seconds']:>9.3f} {rate}{extra}")


if __name__ == "__main__":
    main()
