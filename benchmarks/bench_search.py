"""Black-box worst-case search (scheduling/search/blackbox.py): evaluations per second per problem.

One evaluation = build the candidate instance, solve its exact OPT, play the algorithm through
its plug-in (compiled path where it has one) and validate the outcome. Measured on a fixed
number of evaluations from a fixed seed (the same trajectory every run), m = 4 and m = 8,
ε = 1/4, for one algorithm per problem: LoadBalancing (`greedy`), MaxFlowTime (`ll-fifo`),
WtdMaxFlowTime (`wmft-A`), GenWtdMaxFlowTime (`gwmft`), max stretch (`gwmft` on stretch).
Not a test; prints a table (problem, algorithm, m, evaluations, seconds, evaluations/s, the
worst ratio found). With ``--step-path`` each search runs a second time with every evaluation
forced onto the step path (the engine with the algorithm's Python callbacks, ``execute(...,
fast=False)``), side by side in the same process: the same trajectory, so the same worst ratio,
and the speed-up the compiled path gives the search. Run alone on a quiet machine:

    .venv/bin/python benchmarks/bench_search.py [--evals 400] [--repeat 3] [--step-path]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import time

from schedbench.scheduling.search import blackbox, search_worst

CASES = [
    ("load", "greedy", None),
    ("maxflow", "ll-fifo", None),
    ("wtdmaxflow", "wmft-A", None),
    ("genwtd", "gwmft", None),
    ("stretch", "gwmft", "stretch"),
]


@contextlib.contextmanager
def step_path(on: bool):
    """Every evaluation of the black-box search on the step path while ``on``."""
    original = blackbox.execute
    if on:
        blackbox.execute = functools.partial(original, fast=False)
    try:
        yield
    finally:
        blackbox.execute = original


def _timed(algorithm, m, eps, given, evals, repeat, step):
    best, wc = float("inf"), None
    with step_path(step):
        for _ in range(repeat):
            t = time.perf_counter()
            wc = search_worst(algorithm, m=m, eps=eps, problem=given, max_evals=evals, budget_seconds=3600, seed=1)
            best = min(best, time.perf_counter() - t)
    return best, wc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--evals", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--step-path", action="store_true", help="also time every search on the step path")
    args = ap.parse_args()
    search_worst("ll-fifo", m=4, eps=0.25, max_evals=5, budget_seconds=60)  # compiled code loaded
    step_cols = " step path: evaluations/s | compiled / step |" if args.step_path else ""
    print(
        f"| problem | algorithm | m | evaluations | seconds (best of repeats) | evaluations/s | worst ratio found |{step_cols}"
    )
    print("|---|---|---:|---:|---:|---:|---:|" + ("---:|---:|" if args.step_path else ""))
    for problem, algorithm, given in CASES:
        for m in (4, 8):
            eps = None if algorithm == "greedy" else 0.25
            best, wc = _timed(algorithm, m, eps, given, args.evals, args.repeat, False)
            assert wc.problem == problem and wc.extra["evals"] == args.evals
            row = f"| {problem} | {algorithm} | {m} | {args.evals} | {best:.2f} | {args.evals / best:.0f} | {wc.value:.3g} |"
            if args.step_path:
                slow, wc_step = _timed(algorithm, m, eps, given, args.evals, args.repeat, True)
                assert wc_step.value == wc.value, (algorithm, m, wc_step.value, wc.value)  # same trajectory
                row += f" {args.evals / slow:.0f} | {slow / best:.2f}× |"
            print(row, flush=True)


if __name__ == "__main__":
    main()
