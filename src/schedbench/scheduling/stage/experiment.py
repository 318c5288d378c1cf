"""The work behind each seed-000 pipeline stage, callable without Snakemake.

1. :func:`make_instances` — generate a batch of a family's instances, one ``.npz`` each
   (:mod:`~schedbench.scheduling.stage.prepare`, with :func:`solve_offline`);
2. :func:`run_online_batch` — every algorithm of an experiment, all their parameter
   combinations and all ε, on a batch (joblib over instances; one algorithm is a batch of one:
   ``{name: grid}``); :func:`run_adversary` — one algorithm against an adaptive
   adversary, every combination and replication, saving each realised instance;
3. :func:`solve_offline` — OPT (or a bound) of each instance file, for the experiment's problem
   (:mod:`~schedbench.scheduling.stage.prepare`);
4. collection (:mod:`schedbench.scheduling.stage.results`) joins the runs with the OPT rows, so ratios
   are formed once, at collect time, for family and adversary runs alike.

Every run goes through :func:`schedbench.scheduling.play.execute` (the one run path) and the
validator. Seeds are derived from (base seed, experiment, instance or replication, algorithm),
so a row does not depend on how work is batched or on how many workers run.
"""

from __future__ import annotations

import itertools
import json
import logging
import time
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from schedbench.hall.grids import algorithm_grid
from schedbench.hall.params import ParameterError
from schedbench.hall.progress import progress_map
from schedbench.hall.seeds import derived_seed
from schedbench.scheduling.engine import AlgorithmError
from schedbench.scheduling.model import Instance
from schedbench.scheduling.play import RunTimeLimitError, execute
from schedbench.scheduling.record import RunRecord
from schedbench.scheduling.registry import get_adversary, get_algorithm
from schedbench.scheduling.stage.prepare import instance_id, make_instances, solve_offline
from schedbench.scheduling.stage.results import parameter_columns

__all__ = [
    "make_instances",
    "solve_offline",
    "run_online_batch",
    "run_adversary",
    "instance_id",
    "oracle_from_row",
    "proven_opt",
    "INSTANCE_COLUMNS",
]

# The columns a run row has in front of its record's row: the instance it played (an
# adversary's runs add its parameters as g_<name>).
INSTANCE_COLUMNS = ["experiment", "family", "instance", "instance_index"]

log = logging.getLogger(__name__)


def oracle_from_row(row: dict[str, Any]) -> float:
    """T* for algorithms that assume it: the proven OPT, else ⌈lower bound⌉ (see offline.result.oracle_value)."""
    from schedbench.scheduling.offline.result import OptResult, oracle_value

    return oracle_value(
        OptResult(
            float(row["opt"]),
            str(row["opt_status"]),
            float(row["opt_lower_bound"]),
            str(row["opt_solver"]),
            float(row["opt_seconds"]),
        )
    )


def proven_opt(row: dict[str, Any] | None) -> float | None:
    """The instance's OPT when its row says it is proven (the OPT a ratio bound is taken at for
    runs without an oracle), else None."""
    if row is None or str(row["opt_status"]) != "optimal":
        return None
    return float(row["opt"])


def run_online_batch(
    paths: Iterable[str | Path],
    opt_table: pd.DataFrame | None,
    algorithms: dict[str, dict[str, Any] | None],
    eps_values: list[float],
    base_seed: int,
    n_jobs: int = 1,
    problem: str | None = None,
    run_seconds: float | None = None,
) -> pd.DataFrame:
    """Every algorithm of ``algorithms`` (name → parameter grid) on each instance file: one
    pipeline job per batch of an experiment (the fixed cost of a job — interpreter, imports,
    compiled-code cache loads — is paid once for all its algorithms). Each instance is loaded
    once; an algorithm's rows do not depend on the batch it runs in (the seeds are keyed by
    instance and algorithm). A run of a plug-in past
    ``run_seconds`` (default :data:`~schedbench.scheduling.play.PLUGIN_RUN_SECONDS`) stops the
    batch with a :class:`~schedbench.scheduling.play.RunTimeLimitError` naming it and the instance."""
    plan = []
    for algorithm in sorted(algorithms):
        cls = get_algorithm(algorithm)
        plan.append((algorithm, cls, algorithm_grid(algorithms[algorithm]), cls.eps_values(eps_values)))
    opt_rows = {} if opt_table is None else {r["instance"]: r for r in opt_table.to_dict("records")}

    def one(path: str | Path) -> list[dict[str, Any]]:
        inst = Instance.load(path)
        meta = inst.meta
        ident = {
            "experiment": meta["experiment"],
            "family": meta["family"],
            "instance": meta["instance"],
            "instance_index": int(meta["index"]),
        }
        rows = []
        for algorithm, cls, combos, eps_list in plan:
            seed = derived_seed(base_seed, "online", meta["instance"], algorithm)
            for params in combos:
                wants = cls.uses_oracle(cls.resolve_params(params))
                oracle = oracle_from_row(opt_rows[meta["instance"]]) if wants else None
                proven = proven_opt(opt_rows.get(meta["instance"]))
                rows += [
                    _run_row(cls, inst, ident, eps, seed, params, oracle, problem, proven, run_seconds=run_seconds)[0]
                    for eps in eps_list
                ]
        return rows

    parts = progress_map(one, paths, log, "instances", n_jobs=n_jobs, work=len, unit="runs")
    table = pd.DataFrame([row for part in parts for row in part])
    parameter_columns(table)  # several algorithms may give one parameter name values of different types
    return table


def run_adversary(
    experiment: str,
    exp_cfg: dict,
    algorithm: str,
    grid: dict[str, Any] | None,
    eps_values: list[float],
    base_seed: int,
    outdir: str | Path,
    run_seconds: float | None = None,
) -> pd.DataFrame:
    """Play the experiment's adversary against ``algorithm`` for every parameter combination,
    ε and replication (``seeds``); save each realised instance to ``outdir`` for the offline
    solver and return one row per run (a plug-in's run past ``run_seconds``: as
    :func:`run_online_batch`)."""
    adv_cls = get_adversary(exp_cfg["adversary"])
    cls = get_algorithm(algorithm)
    problem = exp_cfg.get("problem")  # else each run's adversary decides (execute)
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    combos = itertools.product(
        algorithm_grid(exp_cfg.get("params")),
        algorithm_grid(grid),
        cls.eps_values(eps_values),
        range(int(exp_cfg.get("seeds", 1))),
    )

    def one(k_combo) -> dict[str, Any]:
        k, (adv_params, params, eps, rep) = k_combo  # adversary lists are swept too
        # the seed is keyed by what the run is, not by its place in the grid
        what = json.dumps([adv_params, params, eps, rep], sort_keys=True)
        seed = derived_seed(base_seed, "adversary", experiment, algorithm, what)
        iid = instance_id(experiment, k, algorithm)
        ident = {
            "experiment": experiment,
            "family": adv_cls.name,
            "instance": iid,
            "instance_index": k,
            **{f"g_{name}": value for name, value in adv_params.items()},
        }
        adv = adv_cls(eps=eps, seed=seed, **adv_params)
        row, record = _run_row(cls, adv, ident, eps, seed, params, None, problem, run_seconds=run_seconds)
        if record is not None:  # the run path already recorded adversary, parameters, seed, claim
            record.instance.meta.update({"experiment": experiment, "instance": iid, "family": adv_cls.name, "index": k})
            record.instance.save(outdir / f"{k:04d}.npz")
        return row

    return pd.DataFrame(progress_map(one, enumerate(combos), log, "games", n_jobs=1))


def _run_row(
    cls,
    source,
    ident: dict[str, Any],
    eps: float | None,
    seed: int,
    params: dict[str, Any],
    oracle: float | None,
    problem: str | None = None,
    bound_opt: float | None = None,
    run_seconds: float | None = None,
) -> tuple[dict[str, Any], RunRecord | None]:
    """One run as a results row: the instance columns (``ident``), then the run record's row
    (a failed run is a row with status ``error``, every measurement at its default).
    ``bound_opt``: the proven OPT its ratio bound is taken at when it has no oracle. A run past
    its time limit is no row (how long a run takes depends on the machine): its error, naming
    the instance, ends the batch."""
    t0 = time.perf_counter()
    try:
        record = execute(
            cls,
            source,
            eps=eps,
            seed=seed,
            params=params,
            oracle=oracle,
            problem=problem,
            bound_opt=bound_opt,
            run_seconds=run_seconds,
        )
    except RunTimeLimitError as exc:
        raise RunTimeLimitError(f"{exc}; instance {ident['instance']}, eps {eps}") from None
    except (ParameterError, AlgorithmError, ValueError) as exc:  # a failed run is a row, not a crash
        failed = RunRecord.failed(cls, source, exc, eps, seed, params, problem, seconds=time.perf_counter() - t0)
        return {**ident, **failed.to_row()}, None
    return {**ident, **record.to_row()}, record
