"""The exact probe models of the sized max-flow-time optimum, side by side (docs/models/
rejection-model.md §8.2): the lazy windows (``cpsat``, today's default above 64 jobs), the
compact backlog chain (``backlog``: max flow; other objectives fall back to transport) and the
interval transportation model (``transport``), each inside the same search (tabu repair,
galloping, bisection), on the default config's sized families, regenerated from the config
(same seeds as the pipeline, same solve seed), at one deterministic work limit.

Prints one row per (family, instance, model): status, value, lower bound, gap, work units spent,
probes and wall seconds; ``--json`` writes them too. Not a test.

Run:  .venv/bin/python benchmarks/bench_compact.py [--families flow_sized_m10,...]
          [--models cpsat,backlog:bottom-up,transport,mip-full,default] [--work-limit 60] [--no-windows] [--instances 0,1,2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import time
from pathlib import Path

from schedbench.hall.config import load_config_file
from schedbench.hall.effort import Effort
from schedbench.hall.seeds import derived_seed
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import maxflow as mf
from schedbench.scheduling.problems import get_problem
from schedbench.scheduling.stage.experiment import make_instances

FAMILIES = (
    "flow_small_rho90",
    "flow_sized_m10",
    "wtd_small_loguniform",
    "wtd_sized_m10",
    "genwtd_sized_m10",
    "stretch_pareto15",
    "stretch_pareto11_log",
    "stretch_pareto15_m10",
)


def solve(inst: Instance, objective: str, seed: int, work_limit: float, model: str, time_limit: float, windows=True):
    """One solve with the given probe model: ``mip-full`` (the small full window MIP),
    ``default`` (what opt_max_flow picks, :func:`maxflow.exact_method`) or a lazy-probe solver,
    optionally with the search order after a colon (``backlog:bottom-up``); ``windows=False``
    leaves the window bound out (the search as it was before it)."""
    t0 = time.perf_counter()
    dl = mf._Deadlines(inst, objective)
    effort = Effort(work_limit, time_limit)
    if model == "default":
        method, solver, search = mf.exact_method(inst, objective)
    else:
        solver, _, search = model.partition(":")
        method = "mip-full" if solver == "mip-full" else "lazy"
    kw = {} if method == "mip-full" else {"solver": solver, "search": search or None, "windows": windows}
    res = mf._opt_sized(inst, dl, t0, effort, seed, method=method, **kw)
    return res, effort.used, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--models", default="cpsat,backlog,transport")
    ap.add_argument("--work-limit", type=float, default=60.0)
    ap.add_argument("--time-limit", type=float, default=600.0, help="wall-clock safety net per solve")
    ap.add_argument("--instances", default="", help="instance indices (default: the config's count)")
    ap.add_argument("--json", default="")
    ap.add_argument("--no-windows", action="store_true", help="without the window lower bound")
    args = ap.parse_args()
    cfg = load_config_file(args.config)
    base_seed = int(cfg["seed"])
    rows = []
    print(
        f"{'instance':<28} {'model':>9} {'status':>8} {'value':>9} {'bound':>9} {'gap':>7} {'work':>6} {'probes':>6} {'wall s':>7}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for fam in args.families.split(","):
            exp = cfg["experiments"][fam]
            problem = exp.get("problem", "maxflow")
            objective = mf.FLOW_OBJECTIVE[get_problem(problem).flow_weight]
            idx = [int(x) for x in args.instances.split(",")] if args.instances else range(int(exp["instances"]))
            for path in make_instances(fam, exp, base_seed, idx, Path(tmp) / fam, problem):
                inst = Instance.load(path)
                seed = derived_seed(base_seed, "opt", inst.meta["instance"])
                for model in args.models.split(","):
                    res, work, wall = solve(
                        inst, objective, seed, args.work_limit, model, args.time_limit, not args.no_windows
                    )
                    gap = (res.value - res.lower_bound) / res.value if res.value > 0 else 0.0
                    found = re.search(r"(\d+) probes", res.solver)
                    row = {
                        "instance": inst.meta["instance"],
                        "n": inst.n,
                        "m": inst.m,
                        "objective": objective,
                        "model": model,
                        "status": res.status,
                        "value": res.value,
                        "lower_bound": res.lower_bound,
                        "gap": gap,
                        "work": work,
                        "probes": int(found.group(1)) if found else 0,
                        "wall": wall,
                    }
                    rows.append(row)
                    print(
                        f"{row['instance']:<28} {model:>9} {res.status:>8} {res.value:>9.5g} {res.lower_bound:>9.5g} "
                        f"{gap:>7.2%} {work:>6.1f} {row['probes']:>6} {wall:>7.1f}",
                        flush=True,
                    )
    if args.json:
        Path(args.json).write_text(json.dumps({"work_limit": args.work_limit, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
