"""Archiving a run: ``schedbench archive`` and the loading of a run for ``diff`` (docs/comparing-runs.md).

* :func:`archive` stores a finished pipeline run — the results tables (``results/*.parquet``),
  the config (the file(s) the run used and the resolved config, checked against the tables'
  config hash), the provenance (commit, dirty flag, package versions, platform, dates), the
  plug-in files, the figures, the LaTeX tables and macros and the PDF — as a directory
  ``<dest>/<name>`` with a ``manifest.json`` (every file with its sha256). It is built in a
  temporary directory and renamed: an archive is complete or absent. An existing archive is
  never overwritten. :func:`list_archives` lists them.
* :func:`load_run` reads one run — an archive, a run directory or ``"current"`` — for
  :mod:`.run_diff`: its known tables (:mod:`.table_specs`), provenance and config.

A user error raises :class:`ArchiveError`, one line naming the argument (``schedbench: error:
...``, exit code 2). Every file of a run or an archive is checked before it is read — confined to
its folder after resolving symlinks, a regular file, of its expected shape —
by :mod:`schedbench.hall.archive_checks`. Comparing two runs is :mod:`.run_diff`, merging the
parts of one run :mod:`.merge`.

Lives in the hall: it reads the wings' tables as files and imports no wing.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
from schedbench.hall.io import PROVENANCE_COLUMNS, file_sha256, ordinary_permissions
from schedbench.hall.run_config import (
    base_chain,
    find_config,
    provenance_of,
    run_hash_of,
    same_hash,
    use_run_wings,
    values_of,
)
from schedbench.hall.runlock import run_active
from schedbench.hall.table_specs import RUNS, RUNS_COLUMNS, known_tables, spec_columns, specs

__all__ = [
    "ArchiveError",
    "Run",
    "archive",
    "archive_dir",
    "list_archives",
    "load_run",
]

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
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
#: the registry's plug-in variable (registry.PLUGIN_ENV; the hall imports no wing, a test keeps them equal)
PLUGIN_ENV = "SCHEDBENCH_PLUGINS"


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
                info[c] = values_of(df, c)
        out[rel] = info
    return out


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
        if digest and path.name not in found and same_hash(file_sha256(path), digest):
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


def archive_dir(root: Path, dest: str | os.PathLike) -> Path:
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
    if run_active(root):
        raise ArchiveError(
            f"root: a pipeline is running in {root} (its run lock is held); archive when it has finished"
        )
    runs = read_table(runs_path, f"root: {RUNS}")
    missing = [c for c in PROVENANCE_COLUMNS if c not in runs.columns]
    if missing:
        raise ArchiveError(f"root: {RUNS} has no provenance column '{missing[0]}' (not a schedbench results table)")
    prov = provenance_of(runs)
    run_hash = run_hash_of(runs)
    run_date = dt.datetime.fromtimestamp(runs_path.stat().st_mtime, tz=dt.timezone.utc)
    if name is None:
        name = _default_name(prov, run_date)
    if not _NAME.match(name) or name == "current":
        raise ArchiveError(
            f"name: {name!r} is not a valid archive name (letters, digits, '.', '_', '+', '-'; not 'current')"
        )
    dest_dir = archive_dir(root, dest)
    if not Path(dest).is_absolute() and leads_outside(root, dest_dir) is not None:
        raise ArchiveError(
            f"dest: {dest} leads outside {root} (to {leads_outside(root, dest_dir)}); give --dest explicitly "
            "to write there"
        )
    final = dest_dir / name
    if final.exists():
        raise ArchiveError(f"name: archive {name!r} exists already ({final}); choose another name")
    config = find_config(root, run_hash, configfiles)
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
    for f in [p for given in config.files for p in base_chain(given)]:
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
            listed.append({"path": rel, "sha256": file_sha256(target), "bytes": target.stat().st_size})
        if config.resolved is not None:
            (tmp / RESOLVED).write_text(json.dumps(config.resolved, indent=1, sort_keys=True, default=str) + "\n")
            listed.append(
                {"path": RESOLVED, "sha256": file_sha256(tmp / RESOLVED), "bytes": (tmp / RESOLVED).stat().st_size}
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
    dest_dir = archive_dir(Path(root), dest)
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
class Run:
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
    for cand in (p if p.is_absolute() else root / p, p, archive_dir(root, dest) / spec):
        if cand.is_dir() and (os.path.lexists(cand / MANIFEST) or any((cand / "results").glob("*.parquet"))):
            return cand
    names = list_archives(root, dest)["name"].tolist()
    known = f" (archives: {', '.join(names)})" if names else " (no archives yet)"
    raise ArchiveError(
        f"{arg}: {spec!r} is neither 'current', an archive in {archive_dir(root, dest)}, nor a run directory{known}"
    )


def _manifest(path: Path, arg: str) -> dict | None:
    """The archive's manifest, checked (:func:`~schedbench.hall.archive_checks.read_manifest`);
    None for a plain run directory."""
    return read_manifest(path, MANIFEST, arg) if os.path.lexists(path / MANIFEST) else None


def load_run(spec: str, root: Path, dest: str | os.PathLike, arg: str) -> Run:
    """One run: its known tables (:func:`~.table_specs.known_tables`; every other file of results/ is left
    unread), each checked against its manifest digest and read within its limits, and its
    config — a file the manifest names only when it lies inside the archive."""
    path = _locate(spec, root, dest, arg)
    manifest = _manifest(path, arg)
    tables = {}
    digests = {e["path"]: e["sha256"] for e in manifest["files"]} if manifest else {}
    use_run_wings(path, arg=arg)  # the wings its config adds (`wings:`): their tables are known too
    known, table_specs = known_tables(), specs()
    for rel in known:
        if not os.path.lexists(path / rel):
            continue
        f = regular_file(inside(path, rel, f"{arg}: {rel}"), f"{arg}: {rel}")  # no symlink out, no FIFO
        if rel in digests and file_sha256(f) != digests[rel]:
            raise ArchiveError(f"{arg}: {rel} of archive {path.name} does not match its manifest (edited since?)")
        tables[rel] = read_table(f, f"{arg}: {rel}", RUNS_COLUMNS if rel == RUNS else spec_columns(table_specs[rel]))
    if not tables:
        raise ArchiveError(f"{arg}: no results tables ({', '.join(known)}) in {path}")
    main = tables.get(RUNS, next(iter(tables.values())))
    prov = provenance_of(main)
    run_hash = run_hash_of(main)
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
        found = find_config(path, run_hash, None)
        cfg, note = found.resolved, found.note
    return Run(label, path, tables, prov, run_hash, cfg, note)
