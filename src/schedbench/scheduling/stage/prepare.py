"""The stages before any run, apart from the run path: :func:`make_instances` (a batch of a
family's instances, one ``.npz`` each) and :func:`solve_offline` (OPT, or a bound, of each
instance file). Kept out of :mod:`~schedbench.scheduling.stage.experiment`, which imports the run
path (``play``, the engine, the machine core): the sources a module imports are the inputs of the
pipeline jobs that use it, and editing how machines process must not regenerate instances or
recompute optima. ``experiment`` re-exports both."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from schedbench.hall.effort import DEFAULT_WORK_LIMIT
from schedbench.hall.progress import progress_map
from schedbench.hall.seeds import derived_seed
from schedbench.scheduling.model import Instance
from schedbench.scheduling.registry import get_family

__all__ = ["instance_id", "make_instances", "solve_offline"]

log = logging.getLogger(__name__)


def instance_id(experiment: str, index: int, algorithm: str | None = None) -> str:
    """``experiment/0007``, or ``experiment/algorithm/0007`` for an instance an adversary realised."""
    return f"{experiment}/{index:04d}" if algorithm is None else f"{experiment}/{algorithm}/{index:04d}"


def make_instances(
    experiment: str,
    exp_cfg: dict,
    base_seed: int,
    indices: Iterable[int],
    outdir: str | Path,
    problem: str | None = None,
    run_seconds: float | None = None,
) -> list[Path]:
    """Write instances ``indices`` of ``experiment`` to ``outdir/<index>.npz``; ``problem`` (the
    experiment's, given by the pipeline) is recorded in each instance's meta, so that
    ``schedbench opt FILE`` solves it. (This module does not derive it: the config checks
    import the search stage, whose sources would then become inputs of every instance job.)
    An out-of-tree family gets ``run_seconds`` per instance (default
    :data:`~schedbench.hall.limits.PLUGIN_RUN_SECONDS`), then a FamilyError naming it."""
    family = get_family(exp_cfg["family"])
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    paths = []
    for idx in indices:
        # The family seed is keyed by the experiment too: two experiments on one family differ.
        seed = derived_seed(base_seed, "experiment", experiment)
        inst = family.make_within(run_seconds, idx, seed, **exp_cfg.get("params", {}))
        inst.meta.update({"experiment": experiment, "instance": instance_id(experiment, idx)})
        if problem is not None:
            inst.meta["problem"] = problem
        path = outdir / f"{idx:04d}.npz"
        inst.save(path)
        paths.append(path)
    return paths


def solve_offline(
    paths: Iterable[str | Path],
    problem: str,
    time_limit: float,
    base_seed: int,
    n_jobs: int = 1,
    work_limit: float = DEFAULT_WORK_LIMIT,
) -> pd.DataFrame:
    """OPT (or a bound) of each instance file for ``problem``: one row each. ``work_limit``
    decides the result, ``time_limit`` is the wall-clock safety net (offline.solve_opt)."""
    # imported here: the solvers (scipy.sparse, HiGHS) cost an online job a second of start-up
    from schedbench.scheduling.offline import is_trivial, solve_opt

    def one(path: str | Path) -> dict[str, Any]:
        inst = Instance.load(path)
        res = solve_opt(
            inst,
            problem,
            time_limit=time_limit,
            work_limit=work_limit,
            seed=derived_seed(base_seed, "opt", inst.meta["instance"]),
        )
        return {
            "instance": inst.meta["instance"],
            "opt": res.value,
            "opt_status": res.status,
            "opt_lower_bound": res.lower_bound,
            "opt_solver": res.solver,
            "opt_seconds": res.seconds,
            "opt_is_trivial": is_trivial(inst, problem, res),
            "opt_witness": res.witness,
        }

    rows = progress_map(one, paths, log, "instances", n_jobs=n_jobs)
    return pd.DataFrame(rows)
