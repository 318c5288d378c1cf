"""Runs you can compare: ``schedbench archive | diff | merge`` (docs/comparing-runs.md).

* :func:`archive` stores a finished pipeline run — the results tables (``results/*.parquet``),
  the config (the file(s) the run used and the resolved config, checked against the tables'
  config hash), the provenance (commit, dirty flag, package versions, platform, dates), the
  figures, the LaTeX tables and macros and the PDF — as a directory ``<dest>/<name>`` with a
  ``manifest.json`` (every file with its sha256). It is built in a temporary directory and
  renamed: an archive is complete or absent. An existing archive is never overwritten.
* :func:`diff` compares two runs (archives, run directories, or ``"current"``): per table and per
  (experiment, algorithm and parameters, ε) what changed beyond the noise (non-overlapping
  bootstrap 95 % CIs of the mean ratio, objective and rejected fraction; a group of one run is
  compared exactly, up to 1e-9 relative), what appeared and what disappeared, and whether the
  code, the config (and which keys) or the packages differ. Timing columns never count.
* :func:`merge` joins the parts of one run computed on different machines into one table: one
  config hash, identical duplicates kept once, a conflicting duplicate an error naming its
  identity; the result passes the table's schema.

A user error raises :class:`ArchiveError`, one line naming the argument (``schedbench: error:
...``, exit code 2). Every file of a run or an archive is checked before it is read — confined to
its folder after resolving symlinks, a regular file, of its expected shape —
by :mod:`schedbench.hall.archive_checks`.

Lives in the hall: it reads the wings' tables as files and imports no wing.
"""

from __future__ import annotations

import datetime as dt
import difflib
import fcntl
import hashlib
import json
import math
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from schedbench.hall.archive_checks import (
    ArchiveError,
    inside,
    leads_outside,
    read_json,
    read_manifest,
    read_table,
    regular_file,
)
from schedbench.hall.config import ConfigError, apply_base, check_schema, config_hash, deep_merge, load_config_strict
from schedbench.hall.io import (
    PLUGIN_PREFIX,
    PROVENANCE_COLUMNS,
    SOURCES_KEY,
    ResultsSchemaError,
    check_results,
    check_table,
    ordinary_permissions,
    tied_instances,
    write_parquet,
)
from schedbench.hall.pipeline_record import compare_records, record_lines
from schedbench.hall.stats import bootstrap_ci

__all__ = [
    "ArchiveError",
    "RunDiff",
    "archive",
    "config_of_files",
    "diff",
    "format_diff",
    "list_archives",
    "merge",
]

RUNS = "results/runs.parquet"
DEFAULT_DEST = "results/archive"  # where archives are kept, relative to the run directory
MANIFEST = "manifest.json"
RESOLVED = "config.resolved.json"
#: what an archive holds besides the config: (glob under the run's directory)
ARCHIVED = (
    "results/*.parquet",
    "paper/figures/*.pdf",
    "paper/figures/*.png",
    "paper/tables/*.tex",
    "paper/macros*.tex",
    "paper/generated/*.tex",
    "paper/main.pdf",
    "results/pipeline_record.json",  # hall.pipeline_record
)
#: the run-table metrics compared per group (mean with a bootstrap CI)
METRICS = ("ratio", "objective", "rejected_frac")
#: at most this many lines of values that moved within the noise in the text (``--json``: all)
NOISE_LINES = 20
REL_TOL = 1e-9
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
_SOURCE_ROOT = Path(__file__).resolve().parents[3]  # the source checkout (workflow/schemas)
#: the registry's plug-in variable (registry.PLUGIN_ENV; the hall imports no wing, a test keeps them equal)
PLUGIN_ENV = "SCHEDBENCH_PLUGINS"


def _spec_columns(spec: TableSpec) -> tuple[str, ...]:
    """The columns a table with this spec must hold: its identity and its estimates with their CIs."""
    return (*spec.identity, *(c for est, ci in spec.estimates.items() for c in (est, *ci)))


def _timing(column: str) -> bool:
    """Timing columns (``seconds``, ``opt_seconds``, any ``*_seconds``): never a change."""
    return column == "seconds" or column.endswith("_seconds") or column == "wall_s"


@dataclass(frozen=True)
class TableSpec:
    """How to compare (and merge) one results table: its identity columns, its estimates with
    their CI columns, and the deterministic columns compared exactly (None: every other column)."""

    identity: tuple[str, ...]
    estimates: dict[str, tuple[str, str]] = field(default_factory=dict)
    exact: tuple[str, ...] | None = None
    schema: str | None = None


SPECS: dict[str, TableSpec] = {
    "results/loss.parquet": TableSpec(
        identity=(
            "experiment",
            "n",
            "d",
            "alpha",
            "beta",
            "k_rule",
            "k_label",
            "k_param",
            "k",
            "independent",
            "method",
            "estimator",
        ),
        estimates={
            q: (f"{q}_ci_lo", f"{q}_ci_hi")
            for q in ("blocking", "mean_response", "excess_response", "mean_busy", "mean_response_realized")
        },
        exact=("lam", "mu", "arrivals", "batches", "exact_blocking", "exact_excess"),
        schema="loss.schema.yaml",
    ),
    "results/loss_slopes.parquet": TableSpec(
        identity=("experiment", "d", "alpha", "beta", "k_label", "k_rule", "quantity"),
        estimates={"slope": ("slope_lo", "slope_hi")},
        exact=("exact_slope", "claimed_slope", "claim", "max_n"),
    ),
    "results/bipartite.parquet": TableSpec(
        identity=("experiment", "N", "M", "rho", "alpha", "beta", "graph", "degree_label", "degree", "policy", "d"),
        estimates={
            "mean_response": ("mean_response_ci_lo", "mean_response_ci_hi"),
            "excess_over_t_star": ("excess_ci_lo", "excess_ci_hi"),
        },
        exact=("t_star", "t_star_graph", "jiq_fluid", "random_exact", "mean_degree", "status", "arrivals"),
        schema="bipartite.schema.yaml",
    ),
    "results/bipartite_checks.parquet": TableSpec(
        identity=("check", "quantity", "kind"),
        estimates={"simulated": ("ci_lo", "ci_hi")},
        exact=("reference", "tolerance", "arrivals"),
    ),
    "results/worst_cases.parquet": TableSpec(identity=("task",)),
}

#: The results tables diff reads (no other file of a run's results/ is opened): the runs table
#: and those with a comparison spec.
KNOWN_TABLES = (RUNS, *SPECS)
#: The columns diff needs in the runs table (a table without one is refused by name).
RUNS_COLUMNS = ("experiment", "algorithm", "eps", "status", *METRICS)
#: diff's bootstrap draws n_boot × (runs of a group) indices: both bounded before any draw.
MAX_N_BOOT = 100_000
MAX_BOOT_BYTES = 2**30


# ---------------------------------------------------------------------------------------------
# small helpers


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _label(v: Any) -> str | None:
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


def _close(a: float, b: float, tol: float = REL_TOL) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def _same_cell(a: Any, b: Any) -> bool:
    na, nb = _label(a) is None, _label(b) is None
    if na or nb:
        return na and nb
    if isinstance(a, (int, float, np.integer, np.floating)) and isinstance(b, (int, float, np.integer, np.floating)):
        if not isinstance(a, (bool, np.bool_)) and not isinstance(b, (bool, np.bool_)):
            return _close(float(a), float(b))
    return _label(a) == _label(b)


def _overlap(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    """Whether two (estimate, lo, hi) intervals overlap (with a 1e-9 relative slack, so that a
    point interval — one run, or identical values — is an exact comparison up to rounding)."""
    am, alo, ahi = a
    bm, blo, bhi = b
    if math.isnan(am) or math.isnan(bm):
        return math.isnan(am) and math.isnan(bm)
    if any(math.isnan(x) for x in (alo, ahi, blo, bhi)):  # no CI given: the estimates themselves
        alo = ahi = am
        blo = bhi = bm
    tol = REL_TOL * max(1.0, abs(am), abs(bm))
    return alo <= bhi + tol and blo <= ahi + tol


def _split_commit(commit: str) -> tuple[str, bool]:
    commit = str(commit)
    return (commit[: -len("-dirty")], True) if commit.endswith("-dirty") else (commit, False)


def _flatten(cfg: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(cfg, dict) and cfg:
        out: dict[str, Any] = {}
        for k, v in cfg.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    return {prefix: cfg}


def _schema_file(name: str, root: Path) -> Path | None:
    for base in (root, _SOURCE_ROOT):
        p = base / "workflow" / "schemas" / name
        if p.is_file():
            return p
    return None


def _run_active(root: Path) -> bool:
    """Whether a pipeline holds the run lock of ``root`` (schedbench.hall.runlock)."""
    lock = root / ".snakemake" / "schedbench-run.lock"
    if not lock.is_file():
        return False
    with open(lock) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False


# ---------------------------------------------------------------------------------------------
# the config of a run


def config_of_files(paths: list[str | os.PathLike], root: str | os.PathLike = ".") -> dict:
    """The config a pipeline run with ``--configfile paths`` uses, defaults filled, as the
    Snakefile builds it (files in order, their ``base:``, the schema's defaults): its
    :func:`~schedbench.hall.config.config_hash` is the tables' ``config_hash``."""
    strs = [str(p) for p in paths]
    cfg: dict = {}
    for p in strs:
        cfg = deep_merge(cfg, load_config_strict(p))
    cfg = apply_base(cfg, strs)
    schema = _schema_file("config.schema.yaml", Path(root))
    if schema is not None:
        check_schema(cfg, str(schema))
        from snakemake.utils import validate  # fills the schema's defaults, as the Snakefile's validate()

        validate(cfg, str(schema))
    return cfg


def _base_chain(path: Path) -> list[Path]:
    """``path`` and the files its ``base:`` chain names (for archiving a runnable config)."""
    out = [path]
    seen = {path.resolve()}
    while True:
        try:
            base = load_config_strict(str(out[-1])).get("base")
        except ConfigError:
            return out
        if not isinstance(base, str):
            return out
        nxt = (out[-1].parent / base).resolve()
        if nxt in seen or not nxt.is_file():
            return out
        seen.add(nxt)
        out.append(nxt)


def _untex(text: str) -> str:
    return text.replace("\\_", "_").replace("\\&", "&").replace("\\%", "%").replace("\\#", "#")


@dataclass
class _Config:
    files: list[Path]
    resolved: dict | None
    verified: bool
    found_by: str
    note: str = ""


def _find_config(root: Path, run_hash: str | None, configfiles: list[str] | None) -> _Config:
    """The config of the run in ``root``: the given files (checked against the hash), else the
    files ``paper/macros_config.tex`` names (``\\ConfigFile``, written by the run), else the
    ``config/*.yaml`` file whose resolved config has the tables' hash."""

    def attempt(files: list[Path]) -> tuple[dict | None, str | None]:
        try:
            cfg = config_of_files(files, root)
        except (ConfigError, ValueError, OSError) as exc:
            return None, " ".join(str(exc).split())
        return cfg, config_hash(cfg)

    if configfiles:
        files = [Path(f) if Path(f).is_absolute() else root / f for f in configfiles]
        for f in files:
            if not f.is_file():
                raise ArchiveError(f"--configfile: {f} is not a file")
        cfg, got = attempt(files)
        if cfg is None:
            raise ArchiveError(f"--configfile: {got}")
        if run_hash is not None and got != run_hash:
            raise ArchiveError(
                f"--configfile: {', '.join(map(str, configfiles))} gives config hash {got}, "
                f"the run's tables have {run_hash}"
            )
        return _Config(files, cfg, True, "--configfile")
    macros = root / "paper" / "macros_config.tex"
    outside = ""
    if macros.is_file() and leads_outside(root, macros) is None:  # never read through a symlink out
        text = macros.read_text(errors="replace")
        named = re.search(r"\\newcommand\{\\ConfigFile\}\{\\texttt\{(.*?)\}\}", text)
        hashed = re.search(r"\\newcommand\{\\ConfigHash\}\{\\texttt\{([0-9a-f]+)\}\}", text)
        if named and (run_hash is None or (hashed and hashed.group(1) == run_hash)):
            # a file the run's own macros name is read only inside the run (a crafted name must
            # not make diff or archive read /etc/passwd); one outside is passed over, with a note
            try:
                files = [inside(root, _untex(p.strip()), "\\ConfigFile") for p in named.group(1).split(",")]
            except ArchiveError as exc:
                files, outside = [], str(exc)
            if files and all(f.is_file() for f in files):
                cfg, got = attempt(files)
                if cfg is not None and (run_hash is None or got == run_hash):
                    return _Config(files, cfg, True, "paper/macros_config.tex")
                return _Config(
                    files,
                    None,
                    False,
                    "paper/macros_config.tex",
                    f"{', '.join(str(f.relative_to(root.resolve())) for f in files)} no longer gives the run's config hash "
                    "(edited since the run, or the run had --config overrides)",
                )
    if run_hash is not None:
        for f in sorted((root / "config").glob("*.y*ml")):
            if leads_outside(root, f) is not None or not f.is_file():
                continue
            cfg, got = attempt([f])
            if cfg is not None and got == run_hash:
                return _Config([f], cfg, True, "config/ search by hash")
    note = "no config file found with the run's config hash (give --configfile)"
    return _Config([], None, False, "none", f"{note}; {outside}" if outside else note)


# ---------------------------------------------------------------------------------------------
# archive


def _tables_provenance(root: Path) -> dict[str, dict[str, Any]]:
    out = {}
    for path in sorted((root / "results").glob("*.parquet")):
        rel = str(path.relative_to(root))
        df = read_table(inside(root, rel, f"root: {rel}"), f"root: {rel}")
        info: dict[str, Any] = {"rows": int(len(df))}
        for c in ("config_hash", "git_commit"):
            if c in df.columns:
                info[c] = sorted({str(v) for v in df[c].dropna().unique()})
        out[rel] = info
    return out


def _provenance_of(df: pd.DataFrame) -> dict[str, Any]:
    """The run-level provenance from a table's provenance columns (several values joined)."""

    def values(c: str) -> list[str]:
        return sorted({str(v) for v in df[c].dropna().unique()}) if c in df.columns else []

    commits = values("git_commit")
    recorded: dict[str, str] = {}
    for text in values("packages"):
        try:
            entries = json.loads(text)
        except ValueError:
            continue
        for k, v in entries.items() if isinstance(entries, dict) else ():  # a foreign table's column: not ours
            recorded[k] = v if k not in recorded or recorded[k] == v else f"{recorded[k]} | {v}"
    plugins = {k[len(PLUGIN_PREFIX) :]: v for k, v in recorded.items() if k.startswith(PLUGIN_PREFIX)}
    packages = {k: v for k, v in recorded.items() if not k.startswith(PLUGIN_PREFIX) and k != SOURCES_KEY}
    return {
        "git_commit": ", ".join(commits) or "unknown",
        "commit": ", ".join(_split_commit(c)[0] for c in commits) or "unknown",
        "dirty": any(_split_commit(c)[1] for c in commits),
        "schedbench_version": ", ".join(values("schedbench_version")) or "unknown",
        "sources": recorded.get(SOURCES_KEY, "unknown"),
        "packages": packages,
        "plugins": plugins,
        "platform": ", ".join(values("platform")) or "unknown",
        "config_hash": ", ".join(values("config_hash")) or None,
    }


def _same_hash(a: str | None, b: str | None) -> bool:
    """Two recorded SHA-256 digests are the same (an older table recorded the first 12 hex
    digits only: a prefix of at least 12 digits matches)."""
    if not a or not b:
        return a == b
    return a == b or (min(len(a), len(b)) >= 12 and (a.startswith(b) or b.startswith(a)))


def _plugin_candidates(root: Path, resolved: dict | None) -> list[Path]:
    """The plug-in files the config's ``plugins`` (relative to ``root``) and the plug-in
    environment variable name: a file, or a folder's ``*.py`` (not ``_*`` or ``test_*``), as the
    registry loads them."""
    named = list((resolved or {}).get("plugins") or [])
    named += [q for q in os.environ.get(PLUGIN_ENV, "").split(os.pathsep) if q.strip()]
    out = []
    for entry in named:
        path = Path(str(entry)).expanduser()
        path = path if path.is_absolute() else root / path
        if path.is_dir():
            out += sorted(q for q in path.glob("*.py") if not q.name.startswith(("_", "test_")))
        elif path.is_file():
            out.append(path)
    return out


def _plugin_entries(prov: dict[str, Any], root: Path, resolved: dict | None) -> list[tuple[dict, Path | None]]:
    """One manifest entry per plug-in file the run recorded (file name, SHA-256, where the
    archive stores it), with the file to copy: the one the config or the environment names whose
    content still has the recorded hash (None when it was edited or moved since)."""
    found: dict[str, Path] = {}
    for path in _plugin_candidates(root, resolved):
        digest = prov["plugins"].get(path.name)
        if digest and path.name not in found and _same_hash(_sha256(path), digest):
            found[path.name] = path
    return [
        ({"file": name, "sha256": digest, "stored": f"plugins/{name}" if name in found else None}, found.get(name))
        for name, digest in sorted(prov["plugins"].items())
    ]


def _default_name(prov: dict[str, Any], run_date: dt.datetime) -> str:
    commit = prov["commit"].split(",")[0].strip()
    short = commit[:7] if commit != "unknown" else "unknown"
    dirty = "-dirty" if prov["dirty"] else ""
    cfg = (prov["config_hash"] or "nohash").split(",")[0].strip()[:8]
    return f"{run_date:%Y-%m-%d}-{short}{dirty}-{cfg}"


def _archive_dir(root: Path, dest: str | os.PathLike) -> Path:
    d = Path(dest)
    return d if d.is_absolute() else root / d


def archive(
    name: str | None = None,
    root: str | os.PathLike = ".",
    dest: str | os.PathLike = DEFAULT_DEST,
    configfiles: list[str] | None = None,
) -> Path:
    """Store the finished run in ``root`` as ``<dest>/<name>`` (``dest`` relative to ``root``)
    and return its path. ``name`` defaults to ``<run date>-<short commit>[-dirty]-<config
    hash[:8]>``. Refuses an existing name, a directory without a finished run
    (``results/runs.parquet``) and a run in progress."""
    root = Path(root)
    if not root.is_dir():
        raise ArchiveError(f"root: {root} is not a directory")
    runs_path = root / RUNS
    if not os.path.lexists(runs_path):
        raise ArchiveError(f"root: no finished run in {root}: {RUNS} is missing (run the pipeline first)")
    runs_path = inside(root, RUNS, f"root: {RUNS}")
    if _run_active(root):
        raise ArchiveError(
            f"root: a pipeline is running in {root} (its run lock is held); archive when it has finished"
        )
    runs = read_table(runs_path, f"root: {RUNS}")
    missing = [c for c in PROVENANCE_COLUMNS if c not in runs.columns]
    if missing:
        raise ArchiveError(f"root: {RUNS} has no provenance column '{missing[0]}' (not a schedbench results table)")
    prov = _provenance_of(runs)
    run_hashes = sorted({str(v) for v in runs["config_hash"].dropna().unique()})
    run_hash = run_hashes[0] if len(run_hashes) == 1 else None
    run_date = dt.datetime.fromtimestamp(runs_path.stat().st_mtime, tz=dt.timezone.utc)
    if name is None:
        name = _default_name(prov, run_date)
    if not _NAME.match(name) or name == "current":
        raise ArchiveError(
            f"name: {name!r} is not a valid archive name (letters, digits, '.', '_', '+', '-'; not 'current')"
        )
    dest_dir = _archive_dir(root, dest)
    if not Path(dest).is_absolute() and leads_outside(root, dest_dir) is not None:
        raise ArchiveError(
            f"dest: {dest} leads outside {root} (to {leads_outside(root, dest_dir)}); give --dest explicitly "
            "to write there"
        )
    final = dest_dir / name
    if final.exists():
        raise ArchiveError(f"name: archive {name!r} exists already ({final}); choose another name")
    config = _find_config(root, run_hash, configfiles)
    tables = _tables_provenance(root)
    for info in tables.values():
        info["stale"] = bool(run_hash is not None and info.get("config_hash") not in (None, [run_hash]))

    files: list[tuple[Path, str]] = []  # (source, path in the archive)
    for pattern in ARCHIVED:
        for src in sorted(root.glob(pattern)):
            rel = str(src.relative_to(root))
            inside(root, rel, f"root: {rel}")  # an archive holds the run's own files: no symlink out
            if src.is_file():  # not a FIFO, a device or a folder
                files.append((src, rel))
    config_entries = []
    for f in [p for given in config.files for p in _base_chain(given)]:
        try:
            stored = str(f.resolve().relative_to(root.resolve()))
        except ValueError:
            stored = f"config/{f.name}"
        if stored not in {s for _, s in files}:
            files.append((f, stored))
        config_entries.append({"path": str(f), "stored": stored})
    plugins = _plugin_entries(prov, root, config.resolved)
    files += [(src, entry["stored"]) for entry, src in plugins if src is not None]

    dest_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=dest_dir, prefix=f".{name}.", suffix=".tmp"))
    try:
        listed = []
        for src, rel in files:
            target = tmp / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)
            listed.append({"path": rel, "sha256": _sha256(target), "bytes": target.stat().st_size})
        if config.resolved is not None:
            (tmp / RESOLVED).write_text(json.dumps(config.resolved, indent=1, sort_keys=True, default=str) + "\n")
            listed.append(
                {"path": RESOLVED, "sha256": _sha256(tmp / RESOLVED), "bytes": (tmp / RESOLVED).stat().st_size}
            )
        manifest = {
            "schedbench_archive": 1,
            "name": name,
            "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "run_date": run_date.isoformat(timespec="seconds"),
            "source": str(root.resolve()),
            "provenance": {k: v for k, v in prov.items() if k != "plugins"},
            "plugins": [entry for entry, _ in plugins],
            "config": {
                "hash": run_hash or prov["config_hash"],
                "files": config_entries,
                "resolved": RESOLVED if config.resolved is not None else None,
                "verified": config.verified,
                "found_by": config.found_by,
                "note": config.note,
            },
            "tables": tables,
            "files": sorted(listed, key=lambda e: e["path"]),
        }
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
        for d in [tmp, *(p for p in tmp.rglob("*") if p.is_dir())]:
            ordinary_permissions(d)
            os.chmod(d, os.stat(d).st_mode | 0o111)
        for p in tmp.rglob("*"):
            if p.is_file():
                ordinary_permissions(p)
        try:
            os.rename(tmp, final)  # fails if the name appeared meanwhile: never a merge of two archives
        except OSError:
            raise ArchiveError(f"name: archive {name!r} exists already ({final}); choose another name") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def list_archives(root: str | os.PathLike = ".", dest: str | os.PathLike = DEFAULT_DEST) -> pd.DataFrame:
    """The archives under ``dest``: name, run date, commit, config hash, files."""
    rows = []
    dest_dir = _archive_dir(Path(root), dest)
    for d in sorted(dest_dir.glob("*/" + MANIFEST)) if dest_dir.is_dir() else []:
        try:
            m = read_manifest(d.parent, MANIFEST, "dest")
        except ArchiveError as exc:  # a damaged archive is listed, saying so; the others still are
            rows.append({"name": d.parent.name, "note": str(exc)})
            continue
        rows.append(
            {
                "name": m.get("name", d.parent.name),
                "run_date": m.get("run_date", ""),
                "git_commit": m["provenance"].get("git_commit", "") if "provenance" in m else "",
                "config_hash": m.get("config", {}).get("hash", ""),
                "files": len(m["files"]),
                "note": "",
            }
        )
    return pd.DataFrame(rows, columns=["name", "run_date", "git_commit", "config_hash", "files", "note"]).fillna("")


# ---------------------------------------------------------------------------------------------
# reading a run (current or archived)


@dataclass
class _Run:
    label: str
    path: Path
    tables: dict[str, pd.DataFrame]
    provenance: dict[str, Any]
    config_hash: str | None
    config: dict | None
    config_note: str


def _locate(spec: str, root: Path, dest: str | os.PathLike, arg: str) -> Path:
    if spec == "current":
        return root
    p = Path(spec)
    for cand in (p if p.is_absolute() else root / p, p, _archive_dir(root, dest) / spec):
        if cand.is_dir() and (os.path.lexists(cand / MANIFEST) or any((cand / "results").glob("*.parquet"))):
            return cand
    names = list_archives(root, dest)["name"].tolist()
    known = f" (archives: {', '.join(names)})" if names else " (no archives yet)"
    raise ArchiveError(
        f"{arg}: {spec!r} is neither 'current', an archive in {_archive_dir(root, dest)}, nor a run directory{known}"
    )


def _manifest(path: Path, arg: str) -> dict | None:
    """The archive's manifest, checked (:func:`~schedbench.hall.archive_checks.read_manifest`);
    None for a plain run directory."""
    return read_manifest(path, MANIFEST, arg) if os.path.lexists(path / MANIFEST) else None


def _load_run(spec: str, root: Path, dest: str | os.PathLike, arg: str) -> _Run:
    """One run: its known tables (:data:`KNOWN_TABLES`; every other file of results/ is left
    unread), each checked against its manifest digest and read within its limits, and its
    config — a file the manifest names only when it lies inside the archive."""
    path = _locate(spec, root, dest, arg)
    manifest = _manifest(path, arg)
    tables = {}
    digests = {e["path"]: e["sha256"] for e in manifest["files"]} if manifest else {}
    for rel in KNOWN_TABLES:
        if not os.path.lexists(path / rel):
            continue
        f = regular_file(inside(path, rel, f"{arg}: {rel}"), f"{arg}: {rel}")  # no symlink out, no FIFO
        if rel in digests and _sha256(f) != digests[rel]:
            raise ArchiveError(f"{arg}: {rel} of archive {path.name} does not match its manifest (edited since?)")
        tables[rel] = read_table(f, f"{arg}: {rel}", RUNS_COLUMNS if rel == RUNS else _spec_columns(SPECS[rel]))
    if not tables:
        raise ArchiveError(f"{arg}: no results tables ({', '.join(KNOWN_TABLES)}) in {path}")
    main = tables.get(RUNS, next(iter(tables.values())))
    prov = _provenance_of(main)
    hashes = sorted({str(v) for v in main["config_hash"].dropna().unique()}) if "config_hash" in main else []
    run_hash = hashes[0] if len(hashes) == 1 else None
    label = "current" if spec == "current" else (path.name if manifest else str(spec))
    if manifest:
        cfg_info = manifest.get("config", {})
        cfg = None
        if cfg_info.get("resolved"):
            resolved = inside(path, cfg_info["resolved"], f"{arg}: {path / MANIFEST}: config.resolved")
            if os.path.lexists(resolved):
                cfg = read_json(resolved, f"{arg}: {resolved}")
                if not isinstance(cfg, dict):
                    raise ArchiveError(f"{arg}: {resolved}: expected the resolved config, an object")
        note = cfg_info.get("note", "") if cfg is None else ""
    else:
        found = _find_config(path, run_hash, None)
        cfg, note = found.resolved, found.note
    return _Run(label, path, tables, prov, run_hash, cfg, note)


# ---------------------------------------------------------------------------------------------
# diff


@dataclass
class RunDiff:
    """The comparison of two runs: ``changes`` has one row per change beyond the noise, per
    appeared and per disappeared item (columns ``table, kind, level, experiment, algorithm,
    params, eps, key, metric, a, a_lo, a_hi, b, b_lo, b_hi, n_a, n_b``); ``paired`` one row per
    group in both runs and per paired setting: the paired differences on the shared instances
    (:data:`PAIRED_COLUMNS`, :func:`_paired`); ``summary`` counts per table; ``code`` (commit, version, the package sources' hash), ``config``, ``plugins``
    (per plug-in file whose hash differs: ``file, change, a, b``), ``packages``, ``platform``
    say what differs besides the results."""

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


_CHANGE_COLUMNS = [
    "table",
    "kind",
    "level",
    "experiment",
    "algorithm",
    "params",
    "eps",
    "key",
    "metric",
    "a",
    "a_lo",
    "a_hi",
    "b",
    "b_lo",
    "b_hi",
    "n_a",
    "n_b",
]


def _groups(df: pd.DataFrame) -> pd.DataFrame:
    """The runs table with its group key: experiment, algorithm, parameters (``p_*`` as
    ``name=value``, the adversary's ``g_*`` as ``adversary.name=value``) and ε."""
    pcols = sorted(c for c in df.columns if c.startswith(("p_", "g_")))
    out = pd.DataFrame(index=df.index)
    out["experiment"] = df["experiment"].astype(str)
    out["algorithm"] = df["algorithm"].astype(str)
    if pcols:
        labels = df[pcols].astype(object).map(_label) if hasattr(df, "map") else df[pcols].applymap(_label)
        out["params"] = [
            ", ".join(f"{'adversary.' if c[0] == 'g' else ''}{c[2:]}={v}" for c, v in zip(pcols, row) if v is not None)
            for row in labels.itertuples(index=False)
        ]
    else:
        out["params"] = ""
    out["eps"] = [_label(v) or "" for v in df["eps"]]
    return out


def _ci(values: np.ndarray, n_boot: int) -> tuple[float, float, float]:
    return bootstrap_ci(values, n_boot=n_boot, seed=0)


#: the keys ``diff --match`` takes besides the parameters' names (``c``, ``adversary.m``)
MATCH_KEYS = ("experiment", "algorithm", "eps")
#: the paired statistics of a group on its shared instances (columns of ``RunDiff.paired``)
PAIRED_COLUMNS = [
    "table",
    "level",
    "experiment",
    "algorithm",
    "params",
    "eps",
    "n_pairs",
    "objective_ratio",
    "objective_ratio_lo",
    "objective_ratio_hi",
    "rejected_diff",
    "rejected_diff_lo",
    "rejected_diff_hi",
    "verdict",
]


def _params_of(label: str) -> dict[str, str]:
    """A parameter label (``"c=2, ties=index"``) as a dict."""
    return dict(item.split("=", 1) for item in label.split(", ") if "=" in item)


def _match_keys(match: str | list[str] | None, keys: list[tuple]) -> list[str] | None:
    """The ``--match`` keys, each one of :data:`MATCH_KEYS` or a parameter of the runs (else an
    ArchiveError naming it and the keys there are)."""
    if match is None:
        return None
    given = match.split(",") if isinstance(match, str) else list(match)
    names = [str(k).strip() for k in given]
    params = sorted({p for k in keys for p in _params_of(k[2])})
    known = [*MATCH_KEYS, *params]
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ArchiveError(
                f"match: unknown key {name!r}; {hint}keys: {', '.join(MATCH_KEYS)} and the runs' parameters "
                f"({', '.join(params) or 'none'})"
            )
    return list(dict.fromkeys(names))


def _match_value(key: tuple, names: list[str]) -> tuple:
    """A group key (experiment, algorithm, params, ε) reduced to the ``--match`` keys."""
    params = _params_of(key[2])
    fixed = {"experiment": key[0], "algorithm": key[1], "eps": key[3]}
    return tuple(fixed[n] if n in fixed else params.get(n, "-") for n in names)


def _arrow(x: str, y: str) -> str:
    return x if x == y else f"{x or '-'} → {y or '-'}"


def _paired(ra: pd.DataFrame, rb: pd.DataFrame, n_boot: int) -> dict[str, Any]:
    """The paired differences of two groups on their shared instances (same ``instance`` and
    ``seed`` in a and b): the geometric mean of objective_b/objective_a (the exponential of the
    mean per-instance log-ratio) and the mean of rejected_frac_b − rejected_frac_a, each with
    its percentile-bootstrap 95 % interval; the verdict is "changed" when an interval excludes
    no change (ratio 1, difference 0; a single pair: any difference), "same" when every pair
    is equal, "noise" otherwise."""
    key = [c for c in ("instance", "seed") if c in ra.columns and c in rb.columns]
    out: dict[str, Any] = {"n_pairs": 0, "verdict": "no shared instances"}
    if "instance" not in key:
        return out
    cols = [c for c in ("objective", "rejected_frac") if c in ra.columns and c in rb.columns]
    shared = ra[key + cols].merge(rb[key + cols], on=key, suffixes=("_a", "_b"))
    if shared.empty:
        return out
    logs = np.full(len(shared), np.nan)
    if "objective" in cols:
        oa, ob = shared["objective_a"].to_numpy(float), shared["objective_b"].to_numpy(float)
        ok = np.isfinite(oa) & np.isfinite(ob) & (oa > 0) & (ob > 0)
        logs[ok] = np.log(ob[ok] / oa[ok])
    diffs = np.full(len(shared), np.nan)
    if "rejected_frac" in cols:
        diffs = shared["rejected_frac_b"].to_numpy(float) - shared["rejected_frac_a"].to_numpy(float)
    g, glo, ghi = _ci(logs, n_boot)
    d, dlo, dhi = _ci(diffs, n_boot)
    out.update(
        n_pairs=int(len(shared)),
        objective_ratio=math.exp(g) if math.isfinite(g) else math.nan,
        objective_ratio_lo=math.exp(glo) if math.isfinite(glo) else math.nan,
        objective_ratio_hi=math.exp(ghi) if math.isfinite(ghi) else math.nan,
        rejected_diff=d,
        rejected_diff_lo=dlo,
        rejected_diff_hi=dhi,
    )
    excludes = [lo > REL_TOL or hi < -REL_TOL for lo, hi in ((glo, ghi), (dlo, dhi)) if math.isfinite(lo)]
    moved = [np.abs(x[np.isfinite(x)]).max(initial=0.0) > REL_TOL for x in (logs, diffs)]
    out["verdict"] = "changed" if any(excludes) else ("noise" if any(moved) else "same")
    return out


def _diff_runs(
    a: pd.DataFrame, b: pd.DataFrame, n_boot: int, match: str | list[str] | None = None
) -> tuple[list[dict], dict[str, int], list[dict]]:
    """The runs tables compared per group: rows of changes, counts, and the paired statistics of
    every group in both runs (and of every paired setting). Groups are matched on their whole
    identity (experiment, algorithm, parameters, ε; a lone setting of an (experiment, algorithm,
    ε) replaced by another is paired as a "setting"), or with ``match`` on those keys only."""
    table = RUNS
    ga, gb = _groups(a), _groups(b)
    rows: list[dict] = []
    paired: list[dict] = []
    keys = ["experiment", "algorithm", "params", "eps"]
    counts = {"groups": 0, "same": 0, "noise": 0, "changed": 0, "appeared": 0, "disappeared": 0, "settings": 0}

    def row(
        kind, level, exp="", alg="", params="", eps="", metric="", av=(math.nan,) * 3, bv=(math.nan,) * 3, na=0, nb=0
    ):
        rows.append(
            dict(
                table=table,
                kind=kind,
                level=level,
                experiment=exp,
                algorithm=alg,
                params=params,
                eps=eps,
                key="",
                metric=metric,
                a=av[0],
                a_lo=av[1],
                a_hi=av[2],
                b=bv[0],
                b_lo=bv[1],
                b_hi=bv[2],
                n_a=na,
                n_b=nb,
            )
        )

    def pair(level: str, what: tuple, ra: pd.DataFrame, rb: pd.DataFrame) -> str:
        stats = _paired(ra, rb, n_boot)
        paired.append(dict(zip(("table", "level", *keys), (table, level, *what)), **stats))
        return stats["verdict"]

    def shared_group(k: tuple, ra: pd.DataFrame, rb: pd.DataFrame) -> None:
        counts["groups"] += 1
        verdict = "same"
        if len(ra) != len(rb):
            row("changed", "group", *k, metric="runs", av=(len(ra),) * 3, bv=(len(rb),) * 3, na=len(ra), nb=len(rb))
            verdict = "changed"
        fa, fb = int((ra["status"] != "ok").sum()), int((rb["status"] != "ok").sum())
        if fa != fb:
            row("changed", "group", *k, metric="not ok", av=(fa,) * 3, bv=(fb,) * 3, na=len(ra), nb=len(rb))
            verdict = "changed"
        for metric in METRICS:
            if metric not in ra.columns or metric not in rb.columns:
                continue
            xa = ra[metric].to_numpy(dtype=float)
            xb = rb[metric].to_numpy(dtype=float)
            sa, sb = np.sort(xa[np.isfinite(xa)]), np.sort(xb[np.isfinite(xb)])
            if sa.size == sb.size and np.allclose(sa, sb, rtol=REL_TOL, atol=REL_TOL):
                continue  # the same values: nothing to test
            ca, cb = _ci(xa, n_boot), _ci(xb, n_boot)
            if _overlap(ca, cb):
                verdict = "noise" if verdict == "same" else verdict
                row("noise", "group", *k, metric=metric, av=ca, bv=cb, na=sa.size, nb=sb.size)
            else:
                row("changed", "group", *k, metric=metric, av=ca, bv=cb, na=sa.size, nb=sb.size)
                verdict = "changed"
        if pair("group", k, ra, rb) == "changed":
            verdict = "changed"
        counts[verdict] += 1

    def setting(ka: tuple, kb: tuple, ra: pd.DataFrame, rb: pd.DataFrame) -> None:
        counts["settings"] += 1
        what = (_arrow(ka[0], kb[0]), _arrow(ka[1], kb[1]), _setting_change(ka[2], kb[2]), _arrow(ka[3], kb[3]))
        row("setting", "setting", *what, na=len(ra), nb=len(rb))
        before = len(rows)
        for metric in METRICS:
            if metric in ra.columns and metric in rb.columns:
                _compare_metric(row, what, metric, ra[metric], rb[metric], n_boot)
        if len(rows) == before:
            rows[-1]["metric"] = "same values"
        pair("setting", what, ra, rb)

    by_a = {k: idx for k, idx in ga.groupby(keys, sort=True).groups.items()}
    by_b = {k: idx for k, idx in gb.groupby(keys, sort=True).groups.items()}
    names = _match_keys(match, [*by_a, *by_b])
    if names is not None:  # --match: groups meet on these keys only
        ma: dict[tuple, list[tuple]] = {}
        mb: dict[tuple, list[tuple]] = {}
        for k in by_a:
            ma.setdefault(_match_value(k, names), []).append(k)
        for k in by_b:
            mb.setdefault(_match_value(k, names), []).append(k)
        for mk in sorted(set(ma) | set(mb)):
            fa, fb = ma.get(mk, []), mb.get(mk, [])
            for side, found in (("a", fa), ("b", fb)):
                if len(found) > 1:
                    where = ", ".join(f"{n}={v}" for n, v in zip(names, mk))
                    shown = "; ".join(
                        " ".join(x for x in (k[0], k[1], k[2], f"ε={k[3]}" if k[3] else "") if x) for k in found[:3]
                    )
                    raise ArchiveError(
                        f"match: {where} matches {len(found)} groups of {side} ({shown}); add the keys that tell them apart"
                    )
            if not fb:
                _one_side(row, "disappeared", fa[0], a.loc[by_a[fa[0]]], n_boot)
            elif not fa:
                _one_side(row, "appeared", fb[0], b.loc[by_b[fb[0]]], n_boot)
            elif fa[0] == fb[0]:
                shared_group(fa[0], a.loc[by_a[fa[0]]], b.loc[by_b[fb[0]]])
            else:
                setting(fa[0], fb[0], a.loc[by_a[fa[0]]], b.loc[by_b[fb[0]]])
    else:
        exps_a, exps_b = set(ga["experiment"]), set(gb["experiment"])
        for e in sorted(exps_a - exps_b):
            row("disappeared", "experiment", e, na=int((ga["experiment"] == e).sum()))
        for e in sorted(exps_b - exps_a):
            row("appeared", "experiment", e, nb=int((gb["experiment"] == e).sum()))
        algs_a = set(map(tuple, ga[["experiment", "algorithm"]].drop_duplicates().to_numpy()))
        algs_b = set(map(tuple, gb[["experiment", "algorithm"]].drop_duplicates().to_numpy()))
        common_exps = exps_a & exps_b
        for e, alg in sorted(algs_a - algs_b):
            if e in common_exps:
                row("disappeared", "algorithm", e, alg)
        for e, alg in sorted(algs_b - algs_a):
            if e in common_exps:
                row("appeared", "algorithm", e, alg)
        common_algs = algs_a & algs_b
        gone = [k for k in sorted(set(by_a) - set(by_b)) if k[:2] in common_algs]
        new = [k for k in sorted(set(by_b) - set(by_a)) if k[:2] in common_algs]
        for ka, kb in _paired_settings(gone, new):  # one setting of (experiment, algorithm, ε) replaced by another
            setting(ka, kb, a.loc[by_a[ka]], b.loc[by_b[kb]])
            gone.remove(ka)
            new.remove(kb)
        for k in gone:
            _one_side(row, "disappeared", k, a.loc[by_a[k]], n_boot)
        for k in new:
            _one_side(row, "appeared", k, b.loc[by_b[k]], n_boot)
        for k in sorted(set(by_a) & set(by_b)):
            shared_group(k, a.loc[by_a[k]], b.loc[by_b[k]])
    counts["appeared"] = sum(r["kind"] == "appeared" for r in rows)
    counts["disappeared"] = sum(r["kind"] == "disappeared" for r in rows)
    return rows, counts, paired


def _paired_settings(gone: list[tuple], new: list[tuple]) -> list[tuple[tuple, tuple]]:
    """Group keys (experiment, algorithm, params, ε) only in a and only in b that are one
    setting replaced by another: the only one of its (experiment, algorithm, ε) on each side."""
    by_a: dict[tuple, list] = {}
    by_b: dict[tuple, list] = {}
    for k in gone:
        by_a.setdefault((k[0], k[1], k[3]), []).append(k)
    for k in new:
        by_b.setdefault((k[0], k[1], k[3]), []).append(k)
    return [(ka[0], by_b[key][0]) for key, ka in by_a.items() if len(ka) == 1 and len(by_b.get(key, [])) == 1]


def _setting_change(pa: str, pb: str) -> str:
    """What differs between two parameter labels ("c=2, ties=index" → "c: 2 → 0.5")."""
    da, db = _params_of(pa), _params_of(pb)
    keys = sorted(set(da) | set(db))
    return ", ".join(f"{k}: {da.get(k, '-')} → {db.get(k, '-')}" for k in keys if da.get(k) != db.get(k))


def _compare_metric(row, what: tuple, metric: str, xa: pd.Series, xb: pd.Series, n_boot: int) -> None:
    """A metric of two groups: a row "changed" (non-overlapping 95 % intervals) or "noise"
    (overlapping), none when the values are the same."""
    va, vb = xa.to_numpy(dtype=float), xb.to_numpy(dtype=float)
    sa, sb = np.sort(va[np.isfinite(va)]), np.sort(vb[np.isfinite(vb)])
    if sa.size == sb.size and np.allclose(sa, sb, rtol=REL_TOL, atol=REL_TOL):
        return
    ca = _ci(va, n_boot) if sa.size else (math.nan,) * 3
    cb = _ci(vb, n_boot) if sb.size else (math.nan,) * 3
    kind = "noise" if sa.size and sb.size and _overlap(ca, cb) else "changed"
    row(kind, "setting", *what, metric=metric, av=ca, bv=cb, na=sa.size, nb=sb.size)


def _one_side(row, kind: str, k: tuple, runs: pd.DataFrame, n_boot: int) -> None:
    """A group only in a ("disappeared") or only in b ("appeared"), with its mean ratio (or
    objective) and interval on its side, so that a reader sees what left or came."""
    metric = next((m for m in METRICS if m in runs.columns and np.isfinite(runs[m].to_numpy(float)).any()), "")
    ci = _ci(runs[metric].to_numpy(dtype=float), n_boot) if metric else (math.nan,) * 3
    side = {"av": ci, "na": len(runs)} if kind == "disappeared" else {"bv": ci, "nb": len(runs)}
    row(kind, "group", *k, metric=metric, **side)


def _spec(name: str, df: pd.DataFrame) -> TableSpec:
    if name in SPECS:
        return SPECS[name]
    ident = tuple(
        c
        for c in df.columns
        if c not in PROVENANCE_COLUMNS and not _timing(c) and (df[c].dtype == object or df[c].dtype == bool)
    )
    est = {}
    for c in df.columns:
        for lo, hi in ((f"{c}_ci_lo", f"{c}_ci_hi"), (f"{c}_lo", f"{c}_hi")):
            if lo in df.columns and hi in df.columns:
                est[c] = (lo, hi)
    return TableSpec(identity=ident, estimates=est)


def _point_keys(df: pd.DataFrame, ident: list[str]) -> list[str]:
    labels = [
        "; ".join(f"{c}={_label(v)}" for c, v in zip(ident, r) if _label(v) is not None)
        for r in df[ident].itertuples(index=False)
    ]
    # a table whose identity columns repeat: number the repeats (in row order)
    seen: dict[str, int] = {}
    out = []
    for lab in labels:
        seen[lab] = seen.get(lab, 0) + 1
        out.append(lab if seen[lab] == 1 else f"{lab} #{seen[lab]}")
    return out


def _diff_points(name: str, a: pd.DataFrame, b: pd.DataFrame) -> tuple[list[dict], dict[str, int]]:
    spec = _spec(name, a)
    ident = [c for c in spec.identity if c in a.columns and c in b.columns]
    ka, kb = _point_keys(a, ident), _point_keys(b, ident)
    ia, ib = dict(zip(ka, range(len(ka)))), dict(zip(kb, range(len(kb))))
    rows: list[dict] = []
    counts = {"groups": 0, "same": 0, "noise": 0, "changed": 0, "appeared": 0, "disappeared": 0}

    def row(kind, level, key="", exp="", metric="", av=(math.nan,) * 3, bv=(math.nan,) * 3):
        rows.append(
            dict(
                table=name,
                kind=kind,
                level=level,
                experiment=exp,
                algorithm="",
                params="",
                eps="",
                key=key,
                metric=metric,
                a=av[0],
                a_lo=av[1],
                a_hi=av[2],
                b=bv[0],
                b_lo=bv[1],
                b_hi=bv[2],
                n_a=0,
                n_b=0,
            )
        )

    has_exp = "experiment" in a.columns and "experiment" in b.columns
    exps_a = set(a["experiment"].astype(str)) if has_exp else set()
    exps_b = set(b["experiment"].astype(str)) if has_exp else set()
    for e in sorted(exps_a - exps_b):
        row("disappeared", "experiment", exp=e)
    for e in sorted(exps_b - exps_a):
        row("appeared", "experiment", exp=e)

    def exp_of(df, i):
        return str(df["experiment"].iloc[i]) if has_exp else ""

    for k in ka:
        if k not in ib and exp_of(a, ia[k]) not in exps_a - exps_b:
            row("disappeared", "point", k, exp_of(a, ia[k]))
    for k in kb:
        if k not in ia and exp_of(b, ib[k]) not in exps_b - exps_a:
            row("appeared", "point", k, exp_of(b, ib[k]))
    skip = set(ident) | set(PROVENANCE_COLUMNS) | {c for pair in spec.estimates.values() for c in pair}
    exact = (
        [c for c in spec.exact if c in a.columns and c in b.columns]
        if spec.exact is not None
        else [c for c in a.columns if c in b.columns and c not in skip and c not in spec.estimates and not _timing(c)]
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
            if all(_close(x, y) for x, y in zip(ca, cb)):
                continue
            if _overlap(ca, cb):
                verdict = "noise" if verdict == "same" else verdict
            else:
                row("changed", "point", k, exp, est, ca, cb)
                verdict = "changed"
        for c in exact:
            if not _same_cell(ra[c], rb[c]):
                num = isinstance(ra[c], (int, float, np.number)) and isinstance(rb[c], (int, float, np.number))
                av = (float(ra[c]),) * 3 if num else (math.nan,) * 3
                bv = (float(rb[c]),) * 3 if num else (math.nan,) * 3
                row("changed", "point", k, exp, c if num else f"{c}: {_label(ra[c])} → {_label(rb[c])}", av, bv)
                verdict = "changed"
        counts[verdict] += 1
    counts["appeared"] = sum(r["kind"] == "appeared" for r in rows)
    counts["disappeared"] = sum(r["kind"] == "disappeared" for r in rows)
    return rows, counts


def _compare_runs(ra: _Run, rb: _Run, n_boot: int, match: str | list[str] | None = None) -> RunDiff:
    rows: list[dict] = []
    paired: list[dict] = []
    summary: dict[str, dict[str, int]] = {}
    for name in sorted(set(ra.tables) | set(rb.tables)):
        if name not in rb.tables or name not in ra.tables:
            kind = "disappeared" if name in ra.tables else "appeared"
            rows.append({**{c: "" for c in _CHANGE_COLUMNS}, "table": name, "kind": kind, "level": "table"})
            continue
        a, b = ra.tables[name], rb.tables[name]
        if name == RUNS:
            got, counts, paired = _diff_runs(a, b, n_boot, match)
        else:
            got, counts = _diff_points(name, a, b)
        rows += got
        summary[name] = counts
    changes = pd.DataFrame(rows, columns=_CHANGE_COLUMNS)
    for c in ("a", "a_lo", "a_hi", "b", "b_lo", "b_hi"):
        changes[c] = pd.to_numeric(changes[c], errors="coerce")
    for c in ("n_a", "n_b"):
        changes[c] = pd.to_numeric(changes[c], errors="coerce").fillna(0).astype(int)

    pa, pb = ra.provenance, rb.provenance
    fields_ = ("git_commit", "commit", "dirty", "schedbench_version", "sources")
    code: dict[str, Any] = {"a": {k: pa[k] for k in fields_}, "b": {k: pb[k] for k in fields_}}
    known = "unknown" not in (pa["sources"], pb["sources"])
    code["sources_same"] = _same_hash(pa["sources"], pb["sources"]) if known else None
    same_commit = all(pa[k] == pb[k] for k in ("git_commit", "schedbench_version"))
    code["same"] = same_commit and (code["sources_same"] if known else not pa["dirty"])
    plugin_files = []
    for name in sorted(set(pa["plugins"]) | set(pb["plugins"])):
        ha, hb = pa["plugins"].get(name), pb["plugins"].get(name)
        if not _same_hash(ha, hb):
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
    ra = _load_run(str(a), root, dest, "a")
    rb = _load_run(str(b), root, dest, "b")
    if match is not None and not (RUNS in ra.tables and RUNS in rb.tables):
        lacking = ra.label if RUNS not in ra.tables else rb.label
        raise ArchiveError(f"match: matches the groups of {RUNS}, which {lacking} does not have")
    for r in (ra, rb):  # the bootstrap draws n_boot × (runs of a group) indices: bounded first
        runs = r.tables.get(RUNS)
        largest = (
            int(_groups(runs).groupby(["experiment", "algorithm", "params", "eps"]).size().max())
            if runs is not None and len(runs)
            else 0
        )
        if 8 * n_boot * largest > MAX_BOOT_BYTES:
            raise ArchiveError(
                f"n_boot: {n_boot:,} resamples of a group of {largest:,} runs ({r.label}) would take "
                f"{8 * n_boot * largest / 2**30:.1f} GiB, more than {MAX_BOOT_BYTES / 2**30:.0f} GiB; use a smaller n_boot"
            )
    d = _compare_runs(ra, rb, n_boot, match)
    d.records = compare_records(ra.path, rb.path)
    return d


def _num(x: float) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.6g}"


def _value(x: float, lo: float, hi: float) -> str:
    if any(isinstance(v, float) and math.isnan(v) for v in (lo, hi)) or (lo == hi == x):
        return _num(x)
    return f"{_num(x)} [{_num(lo)}, {_num(hi)}]"


def _short(v: Any, limit: int = 60) -> str:
    text = json.dumps(v, default=str) if not isinstance(v, str) else v
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _what(experiment: str, algorithm: str, params: str, eps: str, key: str = "") -> str:
    """A group as the text names it: ``ru lb-unit-reject (alpha_rule: paper → safe) ε=0.5``."""
    return " ".join(x for x in (experiment, algorithm, f"({params})" if params else "", key) if x) + (
        f" ε={eps}" if eps else ""
    )


_VERDICT = {"changed": "beyond the noise", "noise": "within the noise", "same": "no change"}


def _paired_text(p: Any) -> str:
    """A group's paired differences: ``paired on 4 shared instances: objective b/a 0.571
    [0.52, 0.61], rejected_frac b−a +0.13 [0.1, 0.15] (beyond the noise)``."""
    if not p.n_pairs:
        return "paired: no shared instances"

    def signed(x: float) -> str:
        return f"+{_num(x)}" if x > 0 else _num(x)

    ratio = _value(p.objective_ratio, p.objective_ratio_lo, p.objective_ratio_hi)
    rejected = f"{signed(p.rejected_diff)}"
    if not (math.isnan(p.rejected_diff_lo) or p.rejected_diff_lo == p.rejected_diff_hi == p.rejected_diff):
        rejected += f" [{signed(p.rejected_diff_lo)}, {signed(p.rejected_diff_hi)}]"
    return (
        f"paired on {p.n_pairs} shared instance{'' if p.n_pairs == 1 else 's'}: objective b/a {ratio}, "
        f"rejected_frac b−a {rejected} ({_VERDICT.get(p.verdict, p.verdict)})"
    )


def _overall(d: RunDiff) -> str:
    """The one-line verdict: how many values changed beyond the noise, settings, appeared, disappeared."""
    if d.unchanged:
        return "no changes beyond the noise"
    ch = d.changes
    changed_groups = {
        (r.experiment, r.algorithm, r.params, r.eps)
        for r in ch[(ch["kind"] == "changed") & (ch["level"] == "group")].itertuples()
    }
    by_pairs = sum(
        (p.experiment, p.algorithm, p.params, p.eps) not in changed_groups
        for p in d.paired[(d.paired["verdict"] == "changed") & (d.paired["level"] == "group")].itertuples()
    )
    n_changed = int((ch["kind"] == "changed").sum()) + by_pairs
    n_settings = int((ch["kind"] == "setting").sum())
    return (
        f"{n_changed} change{'' if n_changed == 1 else 's'} beyond the noise, "
        + (f"{n_settings} setting{'' if n_settings == 1 else 's'} changed, " if n_settings else "")
        + f"{int((ch['kind'] == 'appeared').sum())} appeared, {int((ch['kind'] == 'disappeared').sum())} disappeared"
    )


def format_diff(d: RunDiff, full: bool = False) -> str:
    """The comparison as text: a summary line, what produced each run, then per table what
    changed (a group's values with their intervals, then its paired differences on the shared
    instances). ``full``: every value within the noise and every group in both runs, identical
    ones too (else at most :data:`NOISE_LINES` noise lines)."""
    lines = [f"schedbench diff: a = {d.a}, b = {d.b}", f"summary:   {_overall(d)}"]
    ca, cb = d.code["a"], d.code["b"]

    def commit(c):
        return f"{c['commit'][:12]}{' (dirty)' if c['dirty'] else ''}"

    sources = d.code.get("sources_same")
    differ = f"package sources differ: sha256 {ca.get('sources')} → {cb.get('sources')}"
    if all(ca[k] == cb[k] for k in ("git_commit", "schedbench_version")):
        if sources is False:
            note = f" — {differ}"
        elif ca["dirty"]:
            note = (
                " — uncommitted changes, the same package sources"
                if sources
                else " — uncommitted changes: the code may differ"
            )
        else:
            note = ""
        lines.append(f"code:      same commit {commit(ca)}, schedbench {ca['schedbench_version']}{note}")
    else:
        lines.append(
            f"code:      differs: {commit(ca)} → {commit(cb)}"
            + (
                f"; schedbench {ca['schedbench_version']} → {cb['schedbench_version']}"
                if ca["schedbench_version"] != cb["schedbench_version"]
                else ""
            )
            + (f"; {differ}" if sources is False else "")
        )
    for f in d.plugins["files"]:
        what = f"sha256 {f['a']} → {f['b']}" if f["change"] == "changed" else f"sha256 {f['a'] or f['b']}"
        lines.append(f"plug-in {f['file']}: {f['change']} ({what})")
    if d.plugins["same"] and d.plugins.get("a"):
        lines.append(f"plug-ins:  same ({', '.join(sorted(d.plugins['a']))})")
    cfg = d.config
    if cfg["same"]:
        lines.append(f"config:    same (hash {cfg['a']})")
    else:
        lines.append(f"config:    differs: hash {cfg['a']} → {cfg['b']}")
        if cfg["keys"] is not None:
            for k in cfg["keys"][:30]:
                lines.append(f"             {k['key']}: {_short(k['a'])} → {_short(k['b'])}")
            if len(cfg["keys"]) > 30:
                lines.append(f"             … and {len(cfg['keys']) - 30} more keys")
        else:
            lines.append(f"             (keys not compared: {cfg.get('note') or 'a config is not available'})")
    if d.packages["same"]:
        lines.append("packages:  same")
    else:
        lines.append(
            "packages:  differ: " + ", ".join(f"{n} {va} → {vb}" for n, (va, vb) in d.packages["differ"].items())
        )
    lines.append("platform:  same" if d.platform["same"] else f"platform:  {d.platform['a']} → {d.platform['b']}")
    ch = d.changes
    for row in ch[ch["level"] == "table"].itertuples():
        lines.append(f"{row.table}: {row.kind} (only in {'a' if row.kind == 'disappeared' else 'b'})")
    pairs = {(p.level, p.experiment, p.algorithm, p.params, p.eps): p for p in d.paired.itertuples()}
    for table, counts in d.summary.items():
        rows = ch[ch["table"] == table]
        unit = "groups" if table == RUNS else "points"
        compared = (
            f"{counts['groups']} {unit} in both: {counts['same']} identical, {counts['noise']} within the noise, "
            f"{counts['changed']} changed"
        )
        quiet = [p for k, p in pairs.items() if p.table == table and p.verdict == "changed"]
        if rows.empty and not quiet and not full:
            lines.append(f"{table}: no changes beyond the noise ({compared})")
            continue
        settings = f", {counts['settings']} settings changed" if counts.get("settings") else ""
        lines.append(
            f"{table}: {compared}; {counts['appeared']} appeared, {counts['disappeared']} disappeared{settings}"
        )
        noise_lines = hidden = 0
        shown: set[tuple] = set()

        def close(group: tuple | None) -> None:
            """After a group's lines: its paired differences (once)."""
            if group in pairs and group in shown and (full or pairs[group].verdict != "same"):
                lines.append(f"               {_paired_text(pairs[group])}")

        current = None
        for r in rows.itertuples():
            group = (r.level, r.experiment, r.algorithm, r.params, r.eps)
            if group != current:
                close(current)
                current = group
            what = _what(r.experiment, r.algorithm, r.params, r.eps, r.key)
            value = f"{r.metric} {_value(r.a, r.a_lo, r.a_hi)} → {_value(r.b, r.b_lo, r.b_hi)}"
            pair_changed = group in pairs and pairs[group].verdict == "changed"
            if r.kind == "setting":
                same = ": every value the same" if r.metric == "same values" else ""
                lines.append(f"  setting      {what} ({r.n_a} → {r.n_b} runs){same}")
            elif r.kind == "changed" and r.metric.count("→"):
                lines.append(f"  changed      {what}: {r.metric}")
            elif r.kind == "changed":
                indent = "               " if r.level == "setting" else f"  changed      {what}: "
                lines.append(f"{indent}{value}" + ("  (beyond the noise)" if r.level == "setting" else ""))
            elif r.kind == "noise" and r.level == "setting":
                lines.append(f"               {value}  (within the noise)")
            elif r.kind == "noise":
                noise_lines += 1
                if noise_lines <= NOISE_LINES or full or pair_changed:
                    lines.append(f"  {'changed' if pair_changed else 'noise':<12} {what}: {value}")
                else:
                    hidden += 1
                    continue
            else:
                n = f" ({r.n_a or r.n_b} rows)" if (r.n_a or r.n_b) else ""
                side = (r.a, r.a_lo, r.a_hi) if r.kind == "disappeared" else (r.b, r.b_lo, r.b_hi)
                seen = f": {r.metric} {_value(*side)}" if r.metric and not math.isnan(side[0]) else ""
                lines.append(f"  {r.kind:<12} {r.level} {what}{n}{seen}")
            shown.add(group)
        close(current)
        for group, p in pairs.items():  # groups without a line of their own
            if p.table == table and group not in shown and (p.verdict == "changed" or full):
                kind = "changed" if p.verdict == "changed" else p.verdict
                lines.append(f"  {kind:<12} {_what(*group[1:])}: {_paired_text(p)}")
        if hidden:
            lines.append(f"  … and {hidden} more values within the noise (--full or --json lists them all)")
    lines += record_lines(d.records) if d.records else []
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# merge


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
    if name not in KNOWN_TABLES:
        raise ArchiveError(
            f"table: {table!r} is not a results table merge knows ({', '.join(Path(t).name for t in KNOWN_TABLES)})"
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
        hs = sorted({str(v) for v in df["config_hash"].dropna().unique()})
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
            df[c] = [_label(v) for v in df[c]]
    if runs:
        ident = ["instance", "algorithm", "eps", "seed"] + sorted(c for c in df.columns if c.startswith("p_"))
    else:
        ident = [c for c in _spec(name, df).identity if c in df.columns]
    if not ident:
        raise ArchiveError(f"table: {table} has no identity columns merge knows")
    df["_key"] = [
        "; ".join(f"{c}={_label(v)}" for c, v in zip(ident, r) if _label(v) is not None)
        for r in df[ident].itertuples(index=False)
    ]
    dup = df["_key"].duplicated(keep=False)
    if dup.any():
        values = [
            c
            for c in df.columns
            if c not in ("_part", "_key", "instance_tied") and c not in PROVENANCE_COLUMNS and not _timing(c)
        ]
        d = df[dup]
        sig = d[values].astype(object).map(_label) if hasattr(d, "map") else d[values].applymap(_label)
        sig = sig.astype(str).agg("\x1f".join, axis=1)
        conflicts = sig.groupby(d["_key"]).nunique()
        bad = conflicts[conflicts > 1]
        if not bad.empty:
            key = bad.index[0]
            rows = d[d["_key"] == key]
            first, other = rows.iloc[0], rows[sig[rows.index] != sig[rows.index[0]]].iloc[0]
            cols = [c for c in values if not _same_cell(first[c], other[c])]
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
        schema_path = Path(schema) if schema else _schema_file("results.schema.yaml", Path("."))
    else:
        spec = SPECS.get(name)
        schema_path = (
            Path(schema) if schema else (_schema_file(spec.schema, Path(".")) if spec and spec.schema else None)
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
