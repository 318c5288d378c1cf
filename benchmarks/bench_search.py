"""Black-box worst-case search (scheduling/search/blackbox.py): evaluations per second per problem.

One evaluation = build the candidate instance, solve its exact OPT, play the algorithm through
its plug-in (compiled path where it has one) and validate the outcome. Measured on a fixed
number of evaluations from a fixed seed (the same trajectory every run), m = 4 and m = 8,
ε = 1/4, for one algorithm per problem: LoadBalancing (`greedy`), MaxFlowTime (`ll-fifo`),
WtdMaxFlowTime (`wmft-A`), GenWtdMaxFlowTime (`gwmft`), max stretch (`gwmft` on stretch).
Not a test; prints a table (problem, algorithm, m, evaluations, seconds, evaluations/s, the
worst ratio found). Run alone on a quiet machine:

    .venv/bin/python benchmarks/bench_search.py [--evals 400] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

from schedbench.scheduling.search import search_worst

CASES = [
    ("load", "greedy", None),
    ("maxflow", "ll-fifo", None),
    ("wtdmaxflow", "wmft-A", None),
    ("genwtd", "gwmft", None),
    ("stretch", "gwmft", "stretch"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--evals", type=int, default=400)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    search_worst("ll-fifo", m=4, eps=0.25, max_evals=5, budget_seconds=60)  # compiled code loaded
    print("| problem | algorithm | m | evaluations | seconds (best of repeats) | evaluations/s | worst ratio found |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for problem, algorithm, given in CASES:
        for m in (4, 8):
            eps = None if algorithm == "greedy" else 0.25
            best, wc = float("inf"), None
            for _ in range(args.repeat):
                t = time.perf_counter()
                wc = search_worst(
                    algorithm, m=m, eps=eps, problem=given, max_evals=args.evals, budget_seconds=3600, seed=1
                )
                best = min(best, time.perf_counter() - t)
            assert wc.problem == problem and wc.extra["evals"] == args.evals
            print(
                f"| {problem} | {algorithm} | {m} | {args.evals} | {best:.2f} | {args.evals / best:.0f} | {wc.value:.3g} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
