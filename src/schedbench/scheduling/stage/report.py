"""The views of the results tables the HTML report shows (browsable tables): one row per
(experiment, algorithm setting, ε) for the runs, and the registry's algorithms
(:func:`report_views`, the wing's :attr:`~schedbench.hall.wing.Wing.report_views`)."""

from __future__ import annotations

import pandas as pd

from schedbench.scheduling.registry import algorithm_names, get_algorithm
from schedbench.scheduling.stage.metrics import add_labels

__all__ = ["runs_summary", "methods_view", "report_views"]


def runs_summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per experiment, problem, algorithm setting and ε: runs, validated runs, mean / max ALG/OPT
    and the largest prefix rejected fraction (validated runs), OPT proven optimal."""
    data = add_labels(runs).assign(
        eps=runs["eps"].fillna(-1.0), ok=runs["status"] == "ok", proven=runs["opt_status"] == "optimal"
    )
    okr = data["ratio"].where(data["ok"])
    data = data.assign(ratio_ok=okr, rej_ok=data["rejected_frac_max_prefix"].where(data["ok"]))
    out = (
        data.groupby(["experiment", "problem", "label", "model", "eps"], sort=True)
        .agg(
            runs=("ok", "size"),
            validated=("ok", "sum"),
            opt_proven=("proven", "sum"),
            mean_ratio=("ratio_ok", "mean"),
            max_ratio=("ratio_ok", "max"),
            max_prefix_rejected=("rej_ok", "max"),
        )
        .reset_index()
    )
    out["eps"] = out["eps"].map(lambda e: "" if e < 0 else f"{e:g}")
    return out.rename(columns={"label": "algorithm", "eps": "ε"})


def methods_view() -> pd.DataFrame:
    rows = []
    for name in sorted(algorithm_names()):
        cls = get_algorithm(name)
        d = cls.describe()
        rows.append(
            {
                "algorithm": name,
                "problems": ", ".join(cls.solved_problems()),
                "model": d["model"],
                "rule": d["rule"],
                "parameters": ", ".join(f"{k}={v}" for k, v in d["parameters"].items()),
                "source": d["reference"],
            }
        )
    return pd.DataFrame(rows)


def report_views(tables: dict[str, pd.DataFrame]) -> dict[str, tuple[pd.DataFrame, str]]:
    """The report's tables of the scheduling wing by output name, each with its title: the run
    summary (of ``tables["runs"]``) and the registered algorithms."""
    return {
        "summary": (runs_summary(tables["runs"]), "Runs: ALG/OPT per experiment, algorithm and ε"),
        "methods": (methods_view(), "Registered algorithms"),
    }
