"""Results I/O: atomic parquet writes, provenance columns, and the results-table schema check."""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import subprocess
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pandas as pd
import yaml

__all__ = [
    "tied_instances",
    "write_parquet",
    "read_parquet",
    "provenance",
    "check_results",
    "check_table",
    "ResultsSchemaError",
    "atomic_write_text",
    "ordinary_permissions",
    "instance_files",
    "plugin_hashes",
    "sources_digest",
    "file_sha256",
    "PLUGIN_PREFIX",
    "SOURCES_KEY",
]

_PACKAGES = ("numpy", "pandas", "scipy", "highspy", "numba", "joblib", "seaborn", "snakemake")
#: how a plug-in file and the package's own sources are named in the ``packages`` provenance
PLUGIN_PREFIX = "plug-in "
SOURCES_KEY = "schedbench sources"
_PACKAGE_DIR = Path(__file__).resolve().parents[1]  # src/schedbench


class ResultsSchemaError(ValueError):
    """A results table does not match its schema; the message names the column and row."""


def ordinary_permissions(path: str | os.PathLike) -> None:
    """Give a file made by ``tempfile.mkstemp`` (mode 0600) the mode a plain ``open`` would."""
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(path, 0o666 & ~mask)


def _atomic(path: Path, write) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        ordinary_permissions(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_parquet(df: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write ``df`` to ``path`` via a temporary file and a rename (never half-written)."""
    _atomic(Path(path), lambda tmp: df.to_parquet(tmp, index=False))


def instance_files(directory: str | os.PathLike) -> list[Path]:
    """The instance files of a directory output, in index order (``0000.npz``, ...): never a
    temporary file a killed write may have left (those start with a dot)."""
    return sorted(Path(directory).glob("[0-9]*.npz"))


def read_parquet(path: str | os.PathLike) -> pd.DataFrame:
    return pd.read_parquet(path)


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    _atomic(Path(path), lambda tmp: Path(tmp).write_text(text))


def _git_commit() -> str:
    here = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        return commit + ("-dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def provenance(config_hash: str, plugins: list[str] | None = None) -> dict[str, str]:
    """Columns that say what produced a table. ``packages`` holds the versions of the main
    packages, the SHA-256 of the package's own sources (``schedbench sources``,
    :func:`sources_digest`: it tells two runs of one commit apart when one had uncommitted
    edits) and, for each out-of-tree plug-in file the run loaded (``plugins``), the SHA-256 of
    its content as ``plug-in <file name>``, so that an edited plug-in shows in ``schedbench
    diff`` although the suite's commit is the same."""

    def ver(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "absent"

    packages = {**{p: ver(p) for p in _PACKAGES}, SOURCES_KEY: sources_digest(), **plugin_hashes(plugins or [])}
    return {
        "schedbench_version": ver("schedbench"),
        "git_commit": _git_commit(),
        "config_hash": config_hash,
        "packages": json.dumps(packages, sort_keys=True),
        "platform": f"{platform.system()}-{platform.machine()} Python {platform.python_version()}",
    }


def file_sha256(path: str | os.PathLike) -> str:
    """The SHA-256 of a file's bytes (hex), read in chunks: of a plug-in, a source, an archived file."""
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def plugin_hashes(files: list[str]) -> dict[str, str]:
    """``{"plug-in <name>": sha256}`` of each plug-in file (see :func:`provenance`)."""
    return {f"{PLUGIN_PREFIX}{Path(f).name}": file_sha256(f) for f in files}


def sources_digest(package_dir: str | os.PathLike = _PACKAGE_DIR) -> str:
    """SHA-256 of the package's sources: of the lines ``<path>\0<sha256 of the file>``, one per
    ``*.py`` file under ``package_dir`` (paths relative to it, sorted)."""
    base = Path(package_dir)
    h = hashlib.sha256()
    for f in sorted(base.rglob("*.py"), key=lambda q: q.relative_to(base).as_posix()):
        h.update(f"{f.relative_to(base).as_posix()}\0{file_sha256(f)}\n".encode())
    return h.hexdigest()


def _jsonable(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if value is pd.NA or value is pd.NaT:
        return None
    return value


def check_table(df: pd.DataFrame, schema_path: str | os.PathLike, name: str = "results table") -> None:
    """Check every row of ``df`` against the JSON schema at ``schema_path`` (errors name row and column)."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    validator = jsonschema.Draft202012Validator(schema)
    missing = [c for c in schema.get("required", []) if c not in df.columns]
    if missing:
        raise ResultsSchemaError(f"{name}: column '{missing[0]}' is missing")
    for i, record in enumerate(df.to_dict("records")):
        record = {k: _jsonable(v) for k, v in record.items()}
        err = jsonschema.exceptions.best_match(validator.iter_errors(record))
        if err is not None:
            col = err.path[0] if err.path else "(row)"
            raise ResultsSchemaError(f"{name} row {i}, column '{col}': {err.message}")


def check_results(df: pd.DataFrame, schema_path: str | os.PathLike) -> None:
    """Check the online-runs table: its schema, then the table-level invariants:

    * the identity columns are unique;
    * ALG ≥ OPT: a successful run that rejected nothing, at speed 1 and without migration, on
      an instance with a proven optimum, has ratio ≥ 1 (OPT serves every job at speed 1 on the
      same machines; a run that rejects, runs faster or migrates may go below it);
    * a successful rejection-free run has rejected_frac = 0;
    * an adversary's claimed OPT equals the proven optimum of the instance it realised.
    """
    check_table(df, schema_path, "results table")
    ident = ["instance", "algorithm", "eps", "seed"] + sorted(c for c in df.columns if c.startswith("p_"))
    dup = df.astype({c: object for c in ident}).duplicated(subset=ident, keep=False)
    if dup.any():
        raise ResultsSchemaError(f"results table: {int(dup.sum())} rows share identity columns {ident}")
    ok = df["status"] == "ok"
    at_speed_one = ~((df["model"] == "speed") & (df["eps"].fillna(0) > 0))
    migratory = df["migratory"].fillna(False).astype(bool) if "migratory" in df.columns else False
    proven = ok & (df["opt_status"] == "optimal") & (df["rejected_frac"] == 0) & at_speed_one & ~migratory
    below = proven & (df["ratio"] < 1 - 1e-9)
    if below.any():
        r = df[below].iloc[0]
        raise ResultsSchemaError(
            f"results table: ALG < OPT for {r['algorithm']} on {r['instance']} (ratio {r['ratio']})"
        )
    stray = ok & (df["model"] != "rejection") & (df["rejected_frac"] > 0)
    if stray.any():
        raise ResultsSchemaError("results table: a non-rejection algorithm rejected jobs")
    claimed = df["claimed_opt"].notna() & (df["opt_status"] == "optimal")
    wrong = claimed & ((df["claimed_opt"] - df["opt"]).abs() > 1e-9)
    if wrong.any():
        r = df[wrong].iloc[0]
        raise ResultsSchemaError(
            f"results table: adversary {r['family']} claims OPT = {r['claimed_opt']} on {r['instance']}, "
            f"the offline solver proves {r['opt']}"
        )


PROVENANCE_COLUMNS = ["schedbench_version", "git_commit", "config_hash", "packages", "platform"]


def tied_instances(runs: pd.DataFrame, rel_tol: float = 1e-9) -> pd.Series:
    """Per run: does its instance fail to tell algorithms apart (the results column
    ``instance_tied``, formed at collect time and again when runs are merged)? True when at least two
    algorithms have validated runs (status ``ok``) on the instance and every one of those runs —
    every algorithm, parameter combination and ε — reached the same objective (within
    ``rel_tol``). An instance played by one algorithm only (an adversary's realised instance)
    is never tied. Such instances add nothing to a comparison; the ratio table counts them per
    experiment next to the instances whose OPT equals the trivial bound."""
    ok = runs[runs["status"] == "ok"]
    if ok.empty:
        return pd.Series(False, index=runs.index)
    g = ok.groupby("instance")
    spread = g["objective"].max() - g["objective"].min()
    scale = g["objective"].apply(lambda x: max(1.0, float(np.nanmax(np.abs(x)))) if x.notna().any() else 1.0)
    tied = (
        (g["algorithm"].nunique() >= 2) & (spread <= rel_tol * scale) & g["objective"].apply(lambda x: x.notna().all())
    )
    return runs["instance"].map(tied).fillna(False).astype(bool)


def read_benchmark(path: str | os.PathLike) -> dict | None:
    """Wall seconds, CPU seconds and peak resident memory (MB) of one Snakemake benchmark file
    (its first row; a value it lacks is None), or None when it is not a readable benchmark file
    (the one reader of these files: the pipeline record, ``schedbench status``, the paper)."""
    try:
        row = pd.read_csv(path, sep="\t").iloc[0]
    except (OSError, IndexError, ValueError, pd.errors.ParserError, pd.errors.EmptyDataError):
        return None
    return {
        "wall_s": _number(row.get("s")),
        "cpu_s": _number(row.get("cpu_time")),
        "max_rss_mb": _number(row.get("max_rss")),
    }


def _number(x) -> float | None:
    """A benchmark cell as a float; None when it is missing or not a number ("-", NaN)."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x
