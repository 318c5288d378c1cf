"""The work behind each pipeline stage, callable without Snakemake.

Stages (one Snakemake job per experiment × batch, or experiment × algorithm × batch):

1. :func:`make_instances` — generate a batch of instances, one ``.npz`` file each;
2. :func:`solve_offline` — the offline optimum of each instance (one row per instance);
3. :func:`run_online` — one algorithm, all its parameter combinations and all ε, on a batch
   (joblib over instances), every outcome validated; one row per run;
4. :func:`collect` — concatenate the parts, add provenance, check the results schema.

Seeds are derived from (base seed, experiment, instance index, algorithm), so a row does not
depend on how instances are batched or on how many workers run.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any, Iterable

import joblib
import pandas as pd

from schedbench.api import oracle_value
from schedbench.scheduling.algorithms.base import ParameterError
from schedbench.pipeline.config import algorithm_grid
from schedbench.scheduling.engine import simulate_dispatch
from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import OptResult, opt_makespan, trivial_bound
from schedbench.scheduling.registry import get_algorithm, get_family
from schedbench.seeds import derived_seed
from schedbench.scheduling.validate import validate_dispatch

__all__ = ["make_instances", "solve_offline", "run_online", "instance_id"]


def instance_id(experiment: str, index: int) -> str:
    return f"{experiment}/{index:04d}"


def make_instances(experiment: str, exp_cfg: dict, base_seed: int, indices: Iterable[int],
                   outdir: str | Path) -> list[Path]:
    """Write instances ``indices`` of ``experiment`` to ``outdir/<index>.npz``."""
    family = get_family(exp_cfg["family"])
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    for idx in indices:
        # The family seed is keyed by the experiment too: two experiments on one family differ.
        inst = family.make(idx, derived_seed(base_seed, "experiment", experiment), **exp_cfg.get("params", {}))
        inst.meta.update({"experiment": experiment, "instance": instance_id(experiment, idx)})
        path = outdir / f"{idx:04d}.npz"
        inst.save(path)
        paths.append(path)
    return paths


def solve_offline(paths: Iterable[str | Path], time_limit: float, base_seed: int,
                  n_jobs: int = 1) -> pd.DataFrame:
    """Offline optimum (LoadBalancing makespan) of each instance file: one row each."""
    def one(path: str | Path) -> dict[str, Any]:
        inst = Instance.load(path)
        res = opt_makespan(inst, time_limit=time_limit,
                           seed=derived_seed(base_seed, "opt", inst.meta["instance"]))
        return {
            "instance": inst.meta["instance"], "opt": res.value, "opt_status": res.status,
            "opt_lower_bound": res.lower_bound, "opt_solver": res.solver,
            "opt_seconds": res.seconds, "opt_is_trivial": res.status == "optimal"
            and res.value == trivial_bound(inst),
        }

    rows = joblib.Parallel(n_jobs=n_jobs)(joblib.delayed(one)(p) for p in paths)
    return pd.DataFrame(rows)


def _opt_from_row(row: dict[str, Any]) -> OptResult:
    return OptResult(float(row["opt"]), str(row["opt_status"]), float(row["opt_lower_bound"]),
                     str(row["opt_solver"]), float(row["opt_seconds"]))


def run_online(paths: Iterable[str | Path], opt_table: pd.DataFrame, algorithm: str,
               grid: dict[str, Any] | None, eps_values: list[float], base_seed: int,
               n_jobs: int = 1) -> pd.DataFrame:
    """Run ``algorithm`` with every parameter combination of ``grid`` (and every ε for
    rejection/speed algorithms; once with ε = NaN for plain ones) on each instance file."""
    cls = get_algorithm(algorithm)
    combos = algorithm_grid(grid)
    eps_list = [float(e) for e in eps_values] if cls.model != "plain" else [None]
    opt_rows = {r["instance"]: r for r in opt_table.to_dict("records")}

    def one(path: str | Path) -> list[dict[str, Any]]:
        inst = Instance.load(path)
        opt_row = opt_rows[inst.meta["instance"]]
        opt = _opt_from_row(opt_row)
        seed = derived_seed(base_seed, "online", inst.meta["instance"], algorithm)
        rows = []
        for params in combos:
            for eps in eps_list:
                row = _one_run(cls, inst, opt, eps, seed, params)
                row.update({k: v for k, v in opt_row.items() if k.startswith("opt")})
                rows.append(row)
        return rows

    parts = joblib.Parallel(n_jobs=n_jobs)(joblib.delayed(one)(p) for p in paths)
    return pd.DataFrame([row for part in parts for row in part])


def _one_run(cls, inst: Instance, opt: OptResult, eps: float | None, seed: int,
             params: dict[str, Any]) -> dict[str, Any]:
    meta = inst.meta
    row: dict[str, Any] = {
        "experiment": meta["experiment"], "family": meta["family"], "instance": meta["instance"],
        "instance_index": int(meta["index"]), "n_jobs": inst.n, "m": inst.m,
        "algorithm": cls.name, "problem": cls.problem, "model": cls.model, "rule": cls.rule_label,
        "eps": math.nan if eps is None else eps, "seed": seed,
    }
    t0 = time.perf_counter()
    try:
        alg = cls(inst.m, eps=eps, opt=oracle_value(opt) if cls.needs_opt else None, seed=seed, **params)
        row.update({f"p_{k}": v for k, v in alg.params.items()})
        outcome = simulate_dispatch(alg, inst)
        check = validate_dispatch(inst, outcome, alg.eps, cls.model)
    except (ParameterError, RuntimeError, ValueError) as exc:  # a failed run is a row, not a crash
        row.update({f"p_{k}": v for k, v in params.items()})
        row.update({"objective": math.nan, "ratio": math.nan, "rejected_frac": math.nan,
                    "rejected_frac_max_prefix": math.nan, "budget_violations": 0,
                    "wasted_work": math.nan, "seconds": time.perf_counter() - t0,
                    "status": "error", "errors": f"{type(exc).__name__}: {exc}"})
        return row
    den = opt.denominator
    row.update({
        "objective": check.objective,
        "ratio": check.objective / den if den > 0 else math.nan,
        "rejected_frac": check.rejected_frac,
        "rejected_frac_max_prefix": check.rejected_frac_max_prefix,
        "budget_violations": check.budget_violations,
        "wasted_work": math.nan,  # no processing in LoadBalancing
        "seconds": outcome.seconds,
        "status": check.status,
        "errors": "; ".join(check.errors),
    })
    return row
