"""Comparing two runs: ``schedbench diff`` (docs/comparing-runs.md).

:func:`diff` compares two runs (archives, run directories, or ``"current"``, read by
:func:`~schedbench.hall.archive.load_run`): per table and per (experiment, algorithm and
parameters, ε) what changed beyond the noise (non-overlapping bootstrap 95 % CIs of the mean
ratio, objective and rejected fraction, and the paired differences on the shared instances:
:mod:`.group_diff`; a group of one run is compared exactly, up to 1e-9 relative), per point of
the other tables (:func:`_diff_points`, on their :mod:`.table_specs`), what appeared and what
disappeared, and whether the code, the config (and which keys), the plug-ins or the packages
differ. Timing columns never count. The result is a :class:`RunDiff`; its text is
:mod:`.diff_text`.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from schedbench.hall.archive import DEFAULT_DEST, Run, load_run
from schedbench.hall.archive_checks import ArchiveError
from schedbench.hall.diff_text import format_diff
from schedbench.hall.group_diff import (
    CHANGE_COLUMNS,
    GROUP_KEYS,
    PAIRED_COLUMNS,
    change_row,
    diff_groups,
    groups_of,
    overlap,
)
from schedbench.hall.io import PROVENANCE_COLUMNS
from schedbench.hall.pipeline_record import compare_records
from schedbench.hall.run_config import same_hash
from schedbench.hall.table_specs import (
    RUNS,
    cell_label,
    close_numbers,
    identity_labels,
    is_timing,
    same_cell,
    spec_of,
)

__all__ = ["RunDiff", "diff", "MAX_N_BOOT"]

#: diff's bootstrap draws n_boot × (runs of a group) indices: both bounded before any draw.
MAX_N_BOOT = 100_000
MAX_BOOT_BYTES = 2**30


@dataclass
class RunDiff:
    """The comparison of two runs: ``changes`` has one row per change beyond the noise, per
    appeared and per disappeared item (columns ``table, kind, level, experiment, algorithm,
    params, eps, key, metric, a, a_lo, a_hi, b, b_lo, b_hi, n_a, n_b``); ``paired`` one row per
    group in both runs and per paired setting: the paired differences on the shared instances
    (:data:`~schedbench.hall.group_diff.PAIRED_COLUMNS`, :func:`~schedbench.hall.group_diff.paired_stats`);
    ``summary`` counts per table; ``code`` (commit, version, the package sources' hash),
    ``config``, ``plugins`` (per plug-in file whose hash differs: ``file, change, a, b``),
    ``packages``, ``platform`` say what differs besides the results."""

    a: str
    b: str
    changes: pd.DataFrame
    summary: dict[str, dict[str, int]]
    code: dict[str, Any]
    config: dict[str, Any]
    packages: dict[str, Any]
    platform: dict[str, Any]
    plugins: dict[str, Any] = field(default_factory=lambda: {"same": True, "files": []})
    paired: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=PAIRED_COLUMNS))
    records: dict[str, Any] = field(default_factory=dict)  # the pipeline records' rule times (hall.pipeline_record)

    @property
    def unchanged(self) -> bool:
        """No result changed beyond the noise (a group's values, or its paired differences on
        the shared instances), no setting changed, nothing appeared or disappeared (rows
        "noise" only say where values moved within it)."""
        rows = bool((self.changes["kind"] == "noise").all()) if len(self.changes) else True
        return rows and not (self.paired["verdict"] == "changed").any()

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "unchanged": self.unchanged,
            "changes": json.loads(self.changes.to_json(orient="records")),
            "paired": json.loads(self.paired.to_json(orient="records")),
            "summary": self.summary,
            "code": self.code,
            "config": self.config,
            "plugins": self.plugins,
            "packages": self.packages,
            "platform": self.platform,
            "records": self.records,
        }

    def report(self, full: bool = False) -> str:
        return format_diff(self, full)


def _flatten(cfg: Any, prefix: str = "") -> dict[str, Any]:
    """A nested config as ``{"a.b.c": value}``."""
    if isinstance(cfg, dict) and cfg:
        out: dict[str, Any] = {}
        for k, v in cfg.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: cfg}


def _point_keys(df: pd.DataFrame, ident: list[str]) -> list[str]:
    """Each row's identity label; a table whose identity columns repeat numbers the repeats (in row order)."""
    seen: dict[str, int] = {}
    out = []
    for lab in identity_labels(df, ident):
        seen[lab] = seen.get(lab, 0) + 1
        out.append(lab if seen[lab] == 1 else f"{lab} #{seen[lab]}")
    return out


def _diff_points(name: str, a: pd.DataFrame, b: pd.DataFrame) -> tuple[list[dict], dict[str, int]]:
    """A table other than the runs table compared point by point (a row per identity of its
    spec): its estimates by their intervals, its exact columns up to 1e-9 relative."""
    spec = spec_of(name, a)
    ident = [c for c in spec.identity if c in a.columns and c in b.columns]
    ka, kb = _point_keys(a, ident), _point_keys(b, ident)
    ia, ib = dict(zip(ka, range(len(ka)))), dict(zip(kb, range(len(kb))))
    rows: list[dict] = []
    counts = {"groups": 0, "same": 0, "noise": 0, "changed": 0, "appeared": 0, "disappeared": 0}

    def row(*what, **values) -> None:
        rows.append(change_row(name, *what, **values))

    has_exp = "experiment" in a.columns and "experiment" in b.columns
    exps_a = set(a["experiment"].astype(str)) if has_exp else set()
    exps_b = set(b["experiment"].astype(str)) if has_exp else set()
    for e in sorted(exps_a - exps_b):
        row("disappeared", "experiment", e)
    for e in sorted(exps_b - exps_a):
        row("appeared", "experiment", e)

    def exp_of(df, i):
        return str(df["experiment"].iloc[i]) if has_exp else ""

    for k in ka:
        if k not in ib and exp_of(a, ia[k]) not in exps_a - exps_b:
            row("disappeared", "point", exp_of(a, ia[k]), key=k)
    for k in kb:
        if k not in ia and exp_of(b, ib[k]) not in exps_b - exps_a:
            row("appeared", "point", exp_of(b, ib[k]), key=k)
    skip = set(ident) | set(PROVENANCE_COLUMNS) | {c for pair in spec.estimates.values() for c in pair}
    exact = (
        [c for c in spec.exact if c in a.columns and c in b.columns]
        if spec.exact is not None
        else [c for c in a.columns if c in b.columns and c not in skip and c not in spec.estimates and not is_timing(c)]
    )
    for k in ka:
        if k not in ib:
            continue
        counts["groups"] += 1
        ra, rb = a.iloc[ia[k]], b.iloc[ib[k]]
        verdict = "same"
        exp = exp_of(a, ia[k])
        for est, (lo, hi) in spec.estimates.items():
            if est not in a.columns or est not in b.columns:
                continue

            def triple(r):
                def num(c):
                    try:
                        return float(r[c]) if c in r.index and r[c] is not None else math.nan
                    except (TypeError, ValueError):
                        return math.nan

                return (num(est), num(lo), num(hi))

            ca, cb = triple(ra), triple(rb)
            if all(close_numbers(x, y) for x, y in zip(ca, cb)):
                continue
            if overlap(ca, cb):
                verdict = "noise" if verdict == "same" else verdict
            else:
                row("changed", "point", exp, key=k, metric=est, av=ca, bv=cb)
                verdict = "changed"
        for c in exact:
            if not same_cell(ra[c], rb[c]):
                num = isinstance(ra[c], (int, float, np.number)) and isinstance(rb[c], (int, float, np.number))
                av = (float(ra[c]),) * 3 if num else (math.nan,) * 3
                bv = (float(rb[c]),) * 3 if num else (math.nan,) * 3
                metric = c if num else f"{c}: {cell_label(ra[c])} → {cell_label(rb[c])}"
                row("changed", "point", exp, key=k, metric=metric, av=av, bv=bv)
                verdict = "changed"
        counts[verdict] += 1
    counts["appeared"] = sum(r["kind"] == "appeared" for r in rows)
    counts["disappeared"] = sum(r["kind"] == "disappeared" for r in rows)
    return rows, counts


def _compare_runs(ra: Run, rb: Run, n_boot: int, match: str | list[str] | None = None) -> RunDiff:
    rows: list[dict] = []
    paired: list[dict] = []
    summary: dict[str, dict[str, int]] = {}
    for name in sorted(set(ra.tables) | set(rb.tables)):
        if name not in rb.tables or name not in ra.tables:
            kind = "disappeared" if name in ra.tables else "appeared"
            rows.append(change_row(name, kind, "table"))
            continue
        a, b = ra.tables[name], rb.tables[name]
        if name == RUNS:
            got, counts, paired = diff_groups(a, b, n_boot, match)
        else:
            got, counts = _diff_points(name, a, b)
        rows += got
        summary[name] = counts
    changes = pd.DataFrame(rows, columns=CHANGE_COLUMNS)
    for c in ("a", "a_lo", "a_hi", "b", "b_lo", "b_hi"):
        changes[c] = pd.to_numeric(changes[c], errors="coerce")
    for c in ("n_a", "n_b"):
        changes[c] = pd.to_numeric(changes[c], errors="coerce").fillna(0).astype(int)

    pa, pb = ra.provenance, rb.provenance
    fields_ = ("git_commit", "commit", "dirty", "schedbench_version", "sources")
    code: dict[str, Any] = {"a": {k: pa[k] for k in fields_}, "b": {k: pb[k] for k in fields_}}
    known = "unknown" not in (pa["sources"], pb["sources"])
    code["sources_same"] = same_hash(pa["sources"], pb["sources"]) if known else None
    same_commit = all(pa[k] == pb[k] for k in ("git_commit", "schedbench_version"))
    code["same"] = same_commit and (code["sources_same"] if known else not pa["dirty"])
    plugin_files = []
    for name in sorted(set(pa["plugins"]) | set(pb["plugins"])):
        ha, hb = pa["plugins"].get(name), pb["plugins"].get(name)
        if not same_hash(ha, hb):
            change = "changed" if ha and hb else ("only in a" if ha else "only in b")
            plugin_files.append({"file": name, "change": change, "a": ha, "b": hb})
    plugins = {"same": not plugin_files, "files": plugin_files, "a": pa["plugins"], "b": pb["plugins"]}
    config: dict[str, Any] = {"a": ra.config_hash, "b": rb.config_hash, "same": ra.config_hash == rb.config_hash}
    if ra.config is not None and rb.config is not None:
        fa, fb = _flatten(ra.config), _flatten(rb.config)
        config["keys"] = [
            {"key": k, "a": fa.get(k, "(absent)"), "b": fb.get(k, "(absent)")}
            for k in sorted(set(fa) | set(fb))
            if k not in fa or k not in fb or fa[k] != fb[k]
        ]
    else:
        config["keys"] = None
        config["note"] = "; ".join(
            f"{r.label}: {r.config_note or 'config not available'}" for r in (ra, rb) if r.config is None
        )
    names = sorted(set(pa["packages"]) | set(pb["packages"]))
    differ = {
        n: [pa["packages"].get(n, "absent"), pb["packages"].get(n, "absent")]
        for n in names
        if pa["packages"].get(n) != pb["packages"].get(n)
    }
    packages = {"same": not differ, "differ": differ}
    platform = {"a": pa["platform"], "b": pb["platform"], "same": pa["platform"] == pb["platform"]}
    paired_frame = pd.DataFrame(paired, columns=PAIRED_COLUMNS)
    return RunDiff(ra.label, rb.label, changes, summary, code, config, packages, platform, plugins, paired_frame)


def diff(
    a: str,
    b: str = "current",
    root: str | os.PathLike = ".",
    dest: str | os.PathLike = DEFAULT_DEST,
    n_boot: int = 2000,
    match: str | list[str] | None = None,
) -> RunDiff:
    """Compare run ``a`` with run ``b``: each an archive name (under ``root/dest``), the path of
    an archive or of a run directory, or ``"current"`` (the results in ``root``). ``match``
    (``"experiment,algorithm,eps"`` or a list; a parameter's name counts too) matches the runs
    tables' groups on these keys only, so that a group whose other keys changed is paired a → b
    as a setting rather than listed as disappeared and appeared."""
    root = Path(root)
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or not 100 <= n_boot <= MAX_N_BOOT:
        raise ArchiveError(f"n_boot: an integer from 100 to {MAX_N_BOOT:,}, got {n_boot!r}")
    ra = load_run(str(a), root, dest, "a")
    rb = load_run(str(b), root, dest, "b")
    if match is not None and not (RUNS in ra.tables and RUNS in rb.tables):
        lacking = ra.label if RUNS not in ra.tables else rb.label
        raise ArchiveError(f"match: matches the groups of {RUNS}, which {lacking} does not have")
    for r in (ra, rb):  # the bootstrap draws n_boot × (runs of a group) indices: bounded first
        runs = r.tables.get(RUNS)
        largest = int(groups_of(runs).groupby(GROUP_KEYS).size().max()) if runs is not None and len(runs) else 0
        if 8 * n_boot * largest > MAX_BOOT_BYTES:
            raise ArchiveError(
                f"n_boot: {n_boot:,} resamples of a group of {largest:,} runs ({r.label}) would take "
                f"{8 * n_boot * largest / 2**30:.1f} GiB, more than {MAX_BOOT_BYTES / 2**30:.0f} GiB; use a smaller n_boot"
            )
    d = _compare_runs(ra, rb, n_boot, match)
    d.records = compare_records(ra.path, rb.path)
    return d
