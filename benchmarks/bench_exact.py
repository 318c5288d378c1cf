"""Exact (CP-SAT) worst-case proofs as m grows (scheduling/search/exact.py): the largest m each
exact model proves within a work limit, and the proof time without and with the speed-ups
(symmetry breaking: unused machines last, EDF-ordered OPT certificates; the hint: CP-SAT
started from the adversaries' instance inside the space, with the algorithm's dispatch).

One worker, a fixed seed, a deterministic work limit per proof (CP-SAT units, hall/effort.py),
so the `proved` column is the same on every machine; seconds are wall clock. For each algorithm
m doubles from 2 while either variant proves. Not a test; prints a Markdown table and writes
benchmarks/out/exact.json. Run alone on a quiet machine:

    .venv/bin/python benchmarks/bench_exact.py [--work-limit 240] [--max-m 16]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from schedbench.scheduling.search import worst_case

#: (algorithm, the space's fixed arguments): the configs' exact tasks.
CASES = [
    ("greedy", dict(opt=1)),
    ("greedy-cap", dict(opt=1, eps=0.25)),
    ("drop-every-k", dict(opt=1, eps=0.25)),
    ("lb-unit-reject", dict(opt=1, eps=0.25, objective="rejection")),
    ("mft-unit", dict(opt=2, eps=0.5)),
]


def _one(algorithm: str, m: int, kw: dict, fast: bool, work_limit: float) -> dict:
    t = time.perf_counter()
    wc = worst_case(
        algorithm,
        m=m,
        workers=1,
        seed=1,
        time_limit=10 * work_limit,
        work_limit=work_limit,
        symmetry=fast,
        hint=fast,
        **kw,
    )
    return {
        "proved": bool(wc.proved),
        "value": float(wc.value),
        "bound": float(wc.bound),
        "seconds": time.perf_counter() - t,
        "hint": (wc.extra.get("hint") or {}).get("label"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work-limit", type=float, default=240.0)
    ap.add_argument("--max-m", type=int, default=16)
    ap.add_argument("--out", default=str(Path(__file__).parent / "out" / "exact.json"))
    args = ap.parse_args()
    rows = []
    print("| algorithm | m | plain: proved | plain: s | speed-ups: proved | speed-ups: s | value [bound] | hint |")
    print("|---|---:|---|---:|---|---:|---|---|")
    for algorithm, kw in CASES:
        m = 2
        while m <= args.max_m:
            plain = _one(algorithm, m, kw, False, args.work_limit)
            fast = _one(algorithm, m, kw, True, args.work_limit)
            if plain["proved"] and fast["proved"]:
                assert abs(plain["value"] - fast["value"]) < 1e-9, (algorithm, m, plain, fast)
            rows.append({"algorithm": algorithm, "m": m, **kw, "plain": plain, "fast": fast})
            best = fast if fast["proved"] or not plain["proved"] else plain
            print(
                f"| `{algorithm}` | {m} | {'yes' if plain['proved'] else 'no'} | {plain['seconds']:.1f} | "
                f"{'yes' if fast['proved'] else 'no'} | {fast['seconds']:.1f} | {best['value'] + 0.0:.3g} "
                f"[{best['bound'] + 0.0:.3g}] | {fast['hint'] or '–'} |",
                flush=True,
            )
            if not (plain["proved"] or fast["proved"]):
                break
            m *= 2
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"work_limit": args.work_limit, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
