"""Loss-system simulator throughput against its targets (benchmarks/README.md; not a test).

Aggregated CTMC simulator (`simulate_loss(method="aggregated")`): events per second at
n = 10^3 .. 10^6, k = n and k = ⌈n^α ln n⌉, d = 2, λ = 1 − n^(−1/2). Target: >= 10^7 events/s
and a cost per event within 1.5x from n = 10^3 to n = 10^6. The server-level simulator is shown
for comparison (its cost per arrival is O(k)).

Run: .venv/bin/python benchmarks/bench_loss.py   (after `make bench` has built .venv)
"""

from __future__ import annotations

import json
import platform
from pathlib import Path

from schedbench.loss import k_schedule, simulate_loss

LOAD = {"beta": 1.0, "alpha": 0.5}


def rate(n, k, method, arrivals):
    best = None
    for rep in range(3):
        r = simulate_loss(n, k, 2, LOAD, arrivals=arrivals, seed=rep, warmup=2.0, method=method)
        ev = r.events / r.seconds
        best = ev if best is None else max(best, ev)
    return best


def main() -> None:
    simulate_loss(100, 10, 2, LOAD, arrivals=10_000, method="aggregated")  # JIT warm-up
    simulate_loss(100, 10, 2, LOAD, arrivals=10_000, method="event")
    rows = []
    for n in (10**3, 10**4, 10**5, 10**6):
        for rule in ("full", "log"):
            k = k_schedule(n, rule, alpha=0.5)
            rows.append(
                {
                    "method": "aggregated",
                    "n": n,
                    "k": k,
                    "k_rule": rule,
                    "events_per_s": rate(n, k, "aggregated", 4 * 10**6),
                }
            )
    for n in (10**3, 10**4):
        for rule in ("full", "log"):
            k = k_schedule(n, rule, alpha=0.5)
            rows.append(
                {"method": "event", "n": n, "k": k, "k_rule": rule, "events_per_s": rate(n, k, "event", 2 * 10**5)}
            )
    agg = [r["events_per_s"] for r in rows if r["method"] == "aggregated"]
    summary = {"min_events_per_s": min(agg), "max_over_min_cost": max(agg) / min(agg)}
    out = Path(__file__).with_name("out")
    out.mkdir(exist_ok=True)
    (out / "loss.json").write_text(
        json.dumps({"platform": platform.platform(), "rows": rows, "summary": summary}, indent=2)
    )
    print(f"{'method':<11} {'n':>8} {'k':>8} {'rule':<5} {'events/s':>10}")
    for r in rows:
        print(f"{r['method']:<11} {r['n']:>8} {r['k']:>8} {r['k_rule']:<5} {r['events_per_s']:>10.3g}")
    print(
        f"aggregated: min {summary['min_events_per_s']:.3g} events/s; "
        f"cost per event varies {summary['max_over_min_cost']:.2f}x over n = 1e3..1e6"
    )


if __name__ == "__main__":
    main()
