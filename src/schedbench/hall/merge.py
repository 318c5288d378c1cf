"""Merging the parts of one run: ``schedbench merge`` (docs/comparing-runs.md).

:func:`merge` joins the parts of one run computed on different machines (tables, or run and
archive directories) into one table: one config hash, identical duplicates kept once (timing and
provenance columns aside), a conflicting duplicate an error naming its identity (the runs
table's, or its :mod:`.table_specs` spec's); the result passes the table's schema and is written
atomically. A user error raises :class:`~schedbench.hall.archive_checks.ArchiveError`.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pandas as pd

from schedbench.hall.archive_checks import ArchiveError, inside, read_table, regular_file
from schedbench.hall.io import (
    PROVENANCE_COLUMNS,
    ResultsSchemaError,
    check_results,
    check_table,
    tied_instances,
    write_parquet,
)
from schedbench.hall.run_config import schema_file, use_run_wings, values_of
from schedbench.hall.table_specs import (
    cell_label,
    cell_labels,
    identity_labels,
    is_timing,
    known_tables,
    same_cell,
    spec_of,
    specs,
)

__all__ = ["merge"]

_RUNS_FRONT = ["experiment", "family", "instance", "instance_index", "n_jobs", "m", "algorithm", "problem", "model"]


def merge(
    parts: list[str | os.PathLike],
    out: str | os.PathLike,
    table: str = "runs.parquet",
    schema: str | os.PathLike | None = None,
    force: bool = False,
) -> pd.DataFrame:
    """Merge the parts of one run (tables, or run/archive directories holding
    ``results/<table>``) into ``out``: one config hash, duplicates with identical values kept
    once (timing and provenance columns aside), a conflicting duplicate an error naming its
    identity. The result is checked against the table's schema (the runs table with
    :func:`~schedbench.hall.io.check_results`) and written atomically."""
    if len(parts) < 1:
        raise ArchiveError("parts: give at least one part")
    out = Path(out)
    name = f"results/{table}"
    for p in map(Path, parts):  # the wings a run's config adds (`wings:`): their tables are known too
        if p.is_dir():
            use_run_wings(p, arg=f"parts: {p}")
    known = known_tables()
    if name not in known:
        raise ArchiveError(
            f"table: {table!r} is not a results table merge knows ({', '.join(Path(t).name for t in known)})"
        )
    paths = []
    for p in map(Path, parts):
        f = inside(p, name, f"parts: {p}") if p.is_dir() else p
        if not os.path.lexists(f):
            raise ArchiveError(f"parts: {p} is neither a table nor a directory with results/{table}")
        regular_file(f, "parts")
        paths.append(f)
    if any(out.resolve() == f.resolve() for f in paths):
        raise ArchiveError(f"out: {out} is one of the parts; write the merge elsewhere")
    if out.exists() and not force:
        raise ArchiveError(f"out: {out} exists already (--force to replace it)")
    frames = []
    hashes: dict[str, Path] = {}
    for f in paths:
        df = read_table(f, "parts")
        if "config_hash" not in df.columns:
            raise ArchiveError(f"parts: {f} has no config_hash column (not a schedbench results table)")
        hs = values_of(df, "config_hash")
        if len(hs) > 1:
            raise ArchiveError(f"parts: {f} mixes config hashes {', '.join(hs)}")
        for h in hs:
            if hashes and h not in hashes:
                other_h, other_f = next(iter(hashes.items()))
                raise ArchiveError(
                    f"parts: config hash differs: {other_f} has {other_h}, {f} has {h}; only parts of one config merge"
                )
            hashes.setdefault(h, f)
        frames.append(df.assign(_part=str(f)))
    runs = table == "runs.parquet" or {"instance", "algorithm", "eps", "seed"} <= set(frames[0].columns)
    df = pd.concat(frames, ignore_index=True)
    pcols = sorted(c for c in df.columns if c.startswith(("p_", "g_")))
    for c in pcols:  # as assemble() does: a column of labels and numbers holds labels only
        kinds = {type(v) for v in df[c] if v is not None and not (isinstance(v, float) and math.isnan(v))}
        if len(kinds) > 1 and str in kinds:
            df[c] = [cell_label(v) for v in df[c]]
    if runs:
        ident = ["instance", "algorithm", "eps", "seed"] + sorted(c for c in df.columns if c.startswith("p_"))
    else:
        ident = [c for c in spec_of(name, df).identity if c in df.columns]
    if not ident:
        raise ArchiveError(f"table: {table} has no identity columns merge knows")
    df["_key"] = identity_labels(df, ident)
    dup = df["_key"].duplicated(keep=False)
    if dup.any():
        values = [
            c
            for c in df.columns
            if c not in ("_part", "_key", "instance_tied") and c not in PROVENANCE_COLUMNS and not is_timing(c)
        ]
        d = df[dup]
        sig = cell_labels(d[values]).astype(str).agg("\x1f".join, axis=1)
        conflicts = sig.groupby(d["_key"]).nunique()
        bad = conflicts[conflicts > 1]
        if not bad.empty:
            key = bad.index[0]
            rows = d[d["_key"] == key]
            first, other = rows.iloc[0], rows[sig[rows.index] != sig[rows.index[0]]].iloc[0]
            cols = [c for c in values if not same_cell(first[c], other[c])]
            raise ArchiveError(
                f"parts: conflicting duplicate {key}: {first['_part']} and {other['_part']} differ in "
                f"{', '.join(cols[:5])} ({len(bad)} such identities)"
            )
        df = df[~df["_key"].duplicated(keep="first")]
    df = df.drop(columns=["_part", "_key"]).reset_index(drop=True)
    if runs:
        if {"status", "objective", "algorithm"} <= set(df.columns) and "instance_tied" in df.columns:
            df["instance_tied"] = tied_instances(df)
        order_keys = ["experiment", "instance", "algorithm", "eps", "seed", *pcols]
        order_keys = [c for c in order_keys if c in df.columns]
        df = df.loc[df.astype({c: str for c in order_keys}).sort_values(order_keys, kind="stable").index]
        front = [c for c in [*_RUNS_FRONT, "rule", "eps", "seed", *pcols] if c in df.columns]
        df = df[front + [c for c in df.columns if c not in front]].reset_index(drop=True)
        schema_path = Path(schema) if schema else schema_file("results.schema.yaml", Path("."))
    else:
        spec = specs().get(name)
        schema_path = (
            Path(schema) if schema else (schema_file(spec.schema, Path(".")) if spec and spec.schema else None)
        )
        df = df.reset_index(drop=True)
    try:
        if schema_path is not None:
            if runs:
                check_results(df, schema_path)
            else:
                check_table(df, schema_path, table)
    except ResultsSchemaError as exc:
        raise ArchiveError(
            f"parts: the merge of {', '.join(map(str, paths))} fails its table's schema: {exc}"
        ) from None
    write_parquet(df, out)
    return pd.read_parquet(out)  # the table as written (parquet's dtypes)
