"""Performance figures of the skeleton (not a test; numbers go to benchmarks/README.md).

1. Greedy dispatch throughput, m = 1000 machines, n = 10^6 unit jobs, d = 4 random eligible
   machines each (target >= 10^6 jobs/s): the numba fast path alone, the engine (fast path plus
   outcome bookkeeping), and the full validated run (engine + independent validator).
2. The LP (max-flow) lower bound on the makespan for n = 10^5 jobs (m = 1000, d = 2,
   power-of-two sizes up to 2^6): the whole bisection between the trivial bound and the
   largest-first schedule, and one max-flow feasibility test alone.

Run:  make bench     (or: .venv/bin/python benchmarks/bench_skeleton.py [--repeat 3])
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path


import schedbench
from schedbench.scheduling.engine import simulate_dispatch
from schedbench.scheduling.offline import makespan_lower_bound
from schedbench.scheduling.offline.makespan import _FlowBound, _largest_first_schedule
from schedbench.scheduling.registry import get_algorithm, get_family
from schedbench.scheduling.validate import validate_dispatch


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
    args = parser.parse_args()
    rr = get_family("random-restricted")
    results = {}

    inst = rr.make(0, 1, m=1000, n=1_000_000, d=4)
    greedy = get_algorithm("greedy")
    order = inst.arrival_order()
    greedy(inst.m).dispatch_all(inst.size, inst.indptr, inst.indices, order)  # JIT warm-up
    t_kernel = best_of(lambda: greedy(inst.m).dispatch_all(inst.size, inst.indptr, inst.indices, order), args.repeat)
    t_engine = best_of(lambda: simulate_dispatch(greedy(inst.m), inst), args.repeat)

    def validated():
        out = simulate_dispatch(greedy(inst.m), inst)
        assert validate_dispatch(inst, out, None, "plain").valid

    t_full = best_of(validated, args.repeat)
    for name, t in (("greedy kernel", t_kernel), ("greedy engine", t_engine), ("greedy engine + validator", t_full)):
        results[name] = {"seconds": t, "jobs_per_second": inst.n / t}

    big = rr.make(0, 2, m=1000, n=100_000, d=2, sizes="pow2", max_size_exp=6)
    makespan_lower_bound(rr.make(0, 3, m=10, n=100, d=2, sizes="pow2"))  # JIT warm-up
    lb = {}
    t_lb = best_of(lambda: lb.setdefault("value", makespan_lower_bound(big)), args.repeat)
    trivial = max(int(big.size.max()), -(-int(big.size.sum()) // big.m))
    upper = int(_largest_first_schedule(big.size, big.indptr, big.indices, big.m)[1])
    results["LP bound n=1e5 (bisection)"] = {"seconds": t_lb, "value": lb["value"],
                                             "trivial_bound": trivial, "greedy_upper": upper}
    flow = _FlowBound(big)
    t_flow = best_of(lambda: flow.feasible(lb["value"]), args.repeat)
    results["one max-flow test n=1e5"] = {"seconds": t_flow}
    meta = {"schedbench": schedbench.__version__, "platform": platform.platform(),
            "python": platform.python_version(), "repeat": args.repeat}
    out = Path(__file__).with_name("out")
    out.mkdir(exist_ok=True)
    (out / "skeleton.json").write_text(json.dumps({"meta": meta, "results": results}, indent=2))
    print(f"{'benchmark':<30} {'seconds':>9} {'jobs/s':>14}")
    for name, r in results.items():
        rate = f"{r['jobs_per_second']:>14.3g}" if "jobs_per_second" in r else f"{'-':>14}"
        print(f"{name:<30} {r['seconds']:>9.3f} {rate}")
    r = results["LP bound n=1e5 (bisection)"]
    print(f"LP bound {r['value']} (trivial bound {r['trivial_bound']}, largest-first {r['greedy_upper']})")


if __name__ == "__main__":
    main()
