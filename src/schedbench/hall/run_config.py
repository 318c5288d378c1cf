"""What produced a run, as its files and tables record it: its config and its provenance.

* :func:`config_of_files` resolves a run's config files as the Snakefile does, the wings its
  ``wings:`` names registered first (:func:`use_run_wings` registers those of a run directory,
  for the commands that read its tables);
  :func:`find_config` finds the config of a run directory (the files given, those its
  ``paper/macros_config.tex`` names, else a ``config/*.yaml`` with the tables' hash) —
  a file is read only inside the run.
* :func:`provenance_of` reads the run-level provenance (commit, dirty flag, versions, package
  sources, plug-ins, platform, config hash) off a table's provenance columns; :func:`same_hash`
  compares two recorded SHA-256 digests; :func:`values_of` and :func:`run_hash_of` read a column's
  distinct values and the one config hash.

Shared by :mod:`.archive` (what an archive records) and :mod:`.run_diff` (what differs).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from schedbench.hall.archive_checks import ArchiveError, inside, leads_outside, read_manifest
from schedbench.hall.config import ConfigError, config_hash, load_config, load_config_strict, read_config
from schedbench.hall.io import PLUGIN_PREFIX, SOURCES_KEY
from schedbench.hall.wing import WingError, section_schemas, use_wings

__all__ = [
    "FoundConfig",
    "base_chain",
    "config_of_files",
    "find_config",
    "provenance_of",
    "run_hash_of",
    "same_hash",
    "schema_file",
    "use_run_wings",
    "values_of",
]

_SOURCE_ROOT = Path(__file__).resolve().parents[3]  # the source checkout (workflow/schemas)


def schema_file(name: str, root: Path) -> Path | None:
    """The schema ``workflow/schemas/<name>`` of the run in ``root``, else of the source checkout."""
    for base in (root, _SOURCE_ROOT):
        p = base / "workflow" / "schemas" / name
        if p.is_file():
            return p
    return None


def values_of(df: pd.DataFrame, column: str) -> list[str]:
    """The distinct values of a column as text, sorted ([] when the table has no such column)."""
    return sorted({str(v) for v in df[column].dropna().unique()}) if column in df.columns else []


def run_hash_of(df: pd.DataFrame) -> str | None:
    """The table's one config hash (None when it has none or several)."""
    hashes = values_of(df, "config_hash")
    return hashes[0] if len(hashes) == 1 else None


def config_of_files(paths: list[str | os.PathLike], root: str | os.PathLike = ".") -> dict:
    """The config a pipeline run with ``--configfile paths`` uses, defaults filled, as the
    Snakefile builds it (files in order, their ``base:``, the schema's defaults): its
    :func:`~schedbench.hall.config.config_hash` is the tables' ``config_hash``. The wings its
    ``wings:`` names (module files relative to ``root``, the run's working directory) are
    registered first, as the Snakefile does, so that their sections are checked by their schemas
    (a bad entry is a :class:`~schedbench.hall.wing.WingError` naming it)."""
    cfg = read_config(paths)
    use_wings(cfg.get("wings"), source="wings", base=root)
    schema = schema_file("config.schema.yaml", Path(root))
    if schema is not None:
        return load_config(paths, schema, section_schemas())
    return cfg


def _named_config_files(root: Path) -> list[Path]:
    """The config files ``paper/macros_config.tex`` of the run in ``root`` names (``\\ConfigFile``),
    those inside the run only; [] when it names none or one that is not there."""
    macros = root / "paper" / "macros_config.tex"
    if not macros.is_file() or leads_outside(root, macros) is not None:
        return []
    named = re.search(r"\\newcommand\{\\ConfigFile\}\{\\texttt\{(.*?)\}\}", macros.read_text(errors="replace"))
    if not named:
        return []
    try:
        files = [inside(root, _untex(p.strip()), "\\ConfigFile") for p in named.group(1).split(",")]
    except ArchiveError:
        return []
    return files if all(f.is_file() for f in files) else []


def _archived_source(root: Path, arg: str) -> list[Path]:
    """The folder the run was archived from (its manifest's ``source``), if ``root`` is an archive."""
    if not (root / "manifest.json").is_file():
        return []
    source = read_manifest(root, "manifest.json", arg).get("source")
    return [Path(source)] if isinstance(source, str) and Path(source).is_absolute() else []


def use_run_wings(root: str | os.PathLike, configfiles: list[str] | None = None, arg: str = "root") -> list[str]:
    """Register the wings the run in ``root`` added from a researcher's folder: its config's
    ``wings:`` (the files ``configfiles`` given, relative to ``root``, else those its
    ``paper/macros_config.tex`` names), module files relative to ``root`` (for an archive: to
    the folder it was archived from, when not in the archive), so that ``diff``,
    ``merge`` and ``archive`` know its tables. A run without them registers none; a wing file
    no longer there is passed over (an archive moved away from it: its tables are not compared,
    and the run's config is not resolved, with a note), one that cannot be registered is an
    :class:`ArchiveError` naming ``arg`` and the entry."""
    root = Path(root)
    if configfiles:
        files = [Path(f) if Path(f).is_absolute() else root / f for f in configfiles]
    else:
        files = _named_config_files(root)
    try:
        wings_given = read_config(files).get("wings") if files and all(f.is_file() for f in files) else None
    except ConfigError:
        return []  # a config that does not read: find_config says so
    if isinstance(wings_given, list):  # each where it is: in the run's folder, else in the archived run's
        bases = [root, *_archived_source(root, arg)]
        found = [
            next((b / Path(w).expanduser() for b in bases if (b / Path(w).expanduser()).exists()), None)
            for w in wings_given
            if isinstance(w, str)
        ]
        wings_given = [str(w) for w in found if w is not None] + [w for w in wings_given if not isinstance(w, str)]
    try:
        return use_wings(wings_given, source="wings", base=root)
    except WingError as exc:
        raise ArchiveError(f"{arg}: the run's config: {exc}") from None


def base_chain(path: Path) -> list[Path]:
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
class FoundConfig:
    """A run's config as :func:`find_config` found it: its files, the resolved config (None when
    no file gives the run's hash), whether it was checked against the hash, how it was found."""

    files: list[Path]
    resolved: dict | None
    verified: bool
    found_by: str
    note: str = ""


def find_config(root: Path, run_hash: str | None, configfiles: list[str] | None) -> FoundConfig:
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
        return FoundConfig(files, cfg, True, "--configfile")
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
                    return FoundConfig(files, cfg, True, "paper/macros_config.tex")
                return FoundConfig(
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
                return FoundConfig([f], cfg, True, "config/ search by hash")
    note = "no config file found with the run's config hash (give --configfile)"
    return FoundConfig([], None, False, "none", f"{note}; {outside}" if outside else note)


def _split_commit(commit: str) -> tuple[str, bool]:
    commit = str(commit)
    return (commit[: -len("-dirty")], True) if commit.endswith("-dirty") else (commit, False)


def provenance_of(df: pd.DataFrame) -> dict[str, Any]:
    """The run-level provenance from a table's provenance columns (several values joined)."""
    commits = values_of(df, "git_commit")
    recorded: dict[str, str] = {}
    for text in values_of(df, "packages"):
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
        "schedbench_version": ", ".join(values_of(df, "schedbench_version")) or "unknown",
        "sources": recorded.get(SOURCES_KEY, "unknown"),
        "packages": packages,
        "plugins": plugins,
        "platform": ", ".join(values_of(df, "platform")) or "unknown",
        "config_hash": ", ".join(values_of(df, "config_hash")) or None,
    }


def same_hash(a: str | None, b: str | None) -> bool:
    """Two recorded SHA-256 digests are the same (an older table recorded the first 12 hex
    digits only: a prefix of at least 12 digits matches)."""
    if not a or not b:
        return a == b
    return a == b or (min(len(a), len(b)) >= 12 and (a.startswith(b) or b.startswith(a)))
