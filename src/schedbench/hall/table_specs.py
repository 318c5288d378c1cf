"""The results tables ``diff`` and ``merge`` know, and when two of their cells are the same.

* :func:`specs`: per table besides the runs table (:data:`RUNS`), its :class:`TableSpec` — the
  identity columns, the estimates with their CI columns, the columns compared exactly, its
  schema — as the registered wings declare them (:mod:`.wing`); :func:`spec_of` infers one for
  a table without; :func:`known_tables` is every table ``diff`` reads.
* The cells: :func:`cell_label` (a cell as a comparable label), :func:`close_numbers` and
  :func:`same_cell` (equal up to 1e-9 relative), :func:`identity_labels` (a row's identity as
  one label), :func:`is_timing` (columns that never count as a change).

Lives in the hall: it reads the wings' tables from the registry (:func:`.wing.wings`) and
imports no wing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from schedbench.hall.io import PROVENANCE_COLUMNS
from schedbench.hall.wing import TableSpec, wings

__all__ = [
    "METRICS",
    "REL_TOL",
    "RUNS",
    "RUNS_COLUMNS",
    "cell_label",
    "cell_labels",
    "close_numbers",
    "identity_labels",
    "is_timing",
    "known_tables",
    "same_cell",
    "spec_columns",
    "spec_of",
    "specs",
]

RUNS = "results/runs.parquet"
#: the run-table metrics compared per group (mean with a bootstrap CI)
METRICS = ("ratio", "objective", "rejected_frac")
REL_TOL = 1e-9


def specs() -> dict[str, TableSpec]:
    """Per results table besides the runs table, its :class:`TableSpec`: each registered wing's
    ``tables`` (:mod:`.wing`), in registry order. The runs table's identity (its group keys,
    :data:`METRICS`, merge's identity and column order) is in :mod:`.group_diff` and :mod:`.merge`."""
    return {name: spec for w in wings() for name, spec in w.tables.items()}


def known_tables() -> tuple[str, ...]:
    """The results tables diff reads (no other file of a run's results/ is opened): the runs
    table and those with a comparison spec."""
    return (RUNS, *specs())


#: The columns diff needs in the runs table (a table without one is refused by name).
RUNS_COLUMNS = ("experiment", "algorithm", "eps", "status", *METRICS)


def spec_columns(spec: TableSpec) -> tuple[str, ...]:
    """The columns a table with this spec must hold: its identity and its estimates with their CIs."""
    return (*spec.identity, *(c for est, ci in spec.estimates.items() for c in (est, *ci)))


def spec_of(name: str, df: pd.DataFrame) -> TableSpec:
    """The spec of table ``name``: its wing's (:func:`specs`), else one read off ``df`` (identity:
    its text and boolean columns; estimates: the columns with ``_ci_lo``/``_ci_hi`` or ``_lo``/``_hi``)."""
    own = specs().get(name)
    if own is not None:
        return own
    ident = tuple(
        c
        for c in df.columns
        if c not in PROVENANCE_COLUMNS and not is_timing(c) and (df[c].dtype == object or df[c].dtype == bool)
    )
    est = {}
    for c in df.columns:
        for lo, hi in ((f"{c}_ci_lo", f"{c}_ci_hi"), (f"{c}_lo", f"{c}_hi")):
            if lo in df.columns and hi in df.columns:
                est[c] = (lo, hi)
    return TableSpec(identity=ident, estimates=est)


def is_timing(column: str) -> bool:
    """Timing columns (``seconds``, ``opt_seconds``, any ``*_seconds``): never a change."""
    return column == "seconds" or column.endswith("_seconds") or column == "wall_s"


def cell_label(v: Any) -> str | None:
    """A cell as a comparable label: None for a missing value; integral floats without ``.0``."""
    if v is None or v is pd.NA:
        return None
    if isinstance(v, (float, np.floating)):
        if math.isnan(v):
            return None
        return str(int(v)) if float(v).is_integer() and abs(v) < 1e15 else f"{float(v):.12g}"
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (np.integer,)):
        return str(int(v))
    return str(v)


def close_numbers(a: float, b: float, tol: float = REL_TOL) -> bool:
    """Two numbers equal up to ``tol`` relative (at least ``tol`` absolute); two NaNs are equal."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def same_cell(a: Any, b: Any) -> bool:
    """Two cells are the same: both missing, two numbers :func:`close_numbers`, else equal labels."""
    na, nb = cell_label(a) is None, cell_label(b) is None
    if na or nb:
        return na and nb
    if isinstance(a, (int, float, np.integer, np.floating)) and isinstance(b, (int, float, np.integer, np.floating)):
        if not isinstance(a, (bool, np.bool_)) and not isinstance(b, (bool, np.bool_)):
            return close_numbers(float(a), float(b))
    return cell_label(a) == cell_label(b)


def cell_labels(df: pd.DataFrame) -> pd.DataFrame:
    """:func:`cell_label` of every cell of ``df`` (pandas' ``DataFrame.map``, ``applymap`` before 2.1)."""
    cells = df.astype(object)
    return cells.map(cell_label) if hasattr(cells, "map") else cells.applymap(cell_label)


def identity_labels(df: pd.DataFrame, ident: list[str]) -> list[str]:
    """Each row's identity as one label: ``name=value`` of the columns ``ident`` that are not missing."""
    return [
        "; ".join(f"{c}={cell_label(v)}" for c, v in zip(ident, r) if cell_label(v) is not None)
        for r in df[ident].itertuples(index=False)
    ]
