"""The files of a run or an archive from elsewhere, checked before they are read (``archive``,
``diff``, ``merge``, ``status``; docs/hostile-input.md, "Round three").

A run folder or an archive may be damaged, foreign or crafted. Every file these commands read
is first

* confined: it resolves (symlinks followed) inside the folder it was given — a manifest entry
  ``../../x``, an absolute path or a symlink leading out is refused (:func:`inside`);
* a regular file: a FIFO, a device or a folder in its place is refused by name before any read
  (a FIFO would block forever, ``/dev/zero`` never ends) (:func:`regular_file`);
* of its expected shape: a results table is a parquet file within :data:`MAX_TABLE_BYTES`
  holding the columns asked for (:func:`read_table`); a manifest is UTF-8 JSON within
  :data:`MAX_MANIFEST_BYTES` of the archive's schema (:func:`read_manifest`).

Each refusal is an :class:`ArchiveError`: one line naming the file and what is wrong.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pandas as pd

from schedbench.hall.config import ConfigError

__all__ = [
    "ArchiveError",
    "inside",
    "leads_outside",
    "regular_file",
    "read_table",
    "read_manifest",
    "MAX_TABLE_BYTES",
    "MAX_MANIFEST_BYTES",
]

#: A results table larger than this uncompressed (its parquet metadata, read before the data)
#: is refused: a crafted file of a few MB can decompress to gigabytes.
MAX_TABLE_BYTES = 4 * 2**30
#: A manifest larger than this is refused before reading (the default run's is about 40 kB).
MAX_MANIFEST_BYTES = 64 * 2**20
_DIGEST = re.compile(r"^[0-9a-f]{64}$")


class ArchiveError(ConfigError):
    """A user error of archive, diff, merge or status; the message names the argument and the
    file. It subclasses :class:`~schedbench.hall.config.ConfigError` only so that the command
    line's handler of user errors reports it (``schedbench: error: ...``, exit code 2)."""


def leads_outside(base: Path, path: Path) -> Path | None:
    """Where ``path`` resolves to (symlinks followed) when that is outside ``base``; None inside."""
    target = path.resolve()
    return None if target.is_relative_to(base.resolve()) else target


def inside(base: Path, rel: str, what: str) -> Path:
    """``base / rel`` when it resolves (symlinks followed) inside ``base``; an ArchiveError naming
    ``what`` otherwise — a manifest entry, a table name or a symlink must not reach out of the
    folder it was given."""
    if not isinstance(rel, str) or not rel:
        raise ArchiveError(f"{what}: expected a path inside {base}, got {rel!r}")
    target = leads_outside(base, base / rel)
    if target is not None:
        raise ArchiveError(f"{what}: {rel!r} points outside {base} (to {target}); refused")
    return (base / rel).resolve()


def regular_file(path: Path, what: str) -> Path:
    """``path`` when it is a regular file (symlinks followed); else an ArchiveError saying what it
    is — checked before any read."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise ArchiveError(f"{what}: {path} cannot be opened ({exc.strerror or exc})") from None
    if stat.S_ISDIR(mode):
        raise ArchiveError(f"{what}: {path} is a folder, not a file")
    if not stat.S_ISREG(mode):
        raise ArchiveError(
            f"{what}: {path} is not a regular file (a FIFO, a device or a socket); refused before reading"
        )
    return path


def read_table(path: Path, arg: str, columns: tuple[str, ...] = ()) -> pd.DataFrame:
    """A results table checked before its data is read: a regular file, a parquet file (else an
    error naming it), at most :data:`MAX_TABLE_BYTES` uncompressed, holding ``columns`` (one
    missing is named)."""
    import pyarrow.parquet as pq

    regular_file(path, arg)
    try:
        meta = pq.ParquetFile(path).metadata
    except Exception as exc:  # pyarrow raises ArrowInvalid, OSError, ... on a damaged or foreign file
        raise ArchiveError(f"{arg}: {path} is not a readable parquet table ({type(exc).__name__}: {exc})") from None
    size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    if size > MAX_TABLE_BYTES:
        raise ArchiveError(
            f"{arg}: {path} holds {size / 2**30:.1f} GiB uncompressed ({meta.num_rows:,} rows), more than "
            f"the {MAX_TABLE_BYTES / 2**30:.0f} GiB a results table may; refused before reading"
        )
    names = set(meta.schema.names)
    missing = [c for c in columns if c not in names]
    if missing:
        raise ArchiveError(f"{arg}: {path} has no column {missing[0]!r} (a results table needs {', '.join(columns)})")
    try:
        return pd.read_parquet(path)
    except Exception as exc:
        raise ArchiveError(f"{arg}: {path} cannot be read ({type(exc).__name__}: {exc})") from None


def read_json(path: Path, where: str, max_bytes: int = MAX_MANIFEST_BYTES):
    """The JSON in the regular file ``path`` (at most ``max_bytes``, UTF-8), or an ArchiveError
    naming ``where``."""
    regular_file(path, where)
    if path.stat().st_size > max_bytes:
        raise ArchiveError(f"{where}: {path.stat().st_size:,} bytes, more than the {max_bytes:,} it may hold")
    try:
        return json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ArchiveError(f"{where}: not a UTF-8 text file (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})")
    except (ValueError, OSError) as exc:
        raise ArchiveError(f"{where}: not readable JSON ({exc})") from None


def read_manifest(folder: Path, name: str, arg: str) -> dict:
    """The manifest ``folder / name`` of an archive, checked: inside the folder, a regular file,
    UTF-8 JSON, an object whose ``files`` is a list of ``{path, sha256}`` (each path inside the
    folder, each digest 64 hex digits) and whose ``config`` (if any) is an object with a
    ``resolved`` path inside the folder or null. The error names the manifest and the field."""
    where = f"{arg}: {folder / name}"
    path = inside(folder, name, where)
    manifest = read_json(path, where)
    if not isinstance(manifest, dict):
        raise ArchiveError(f"{where}: expected an object with a list 'files', got a {type(manifest).__name__}")
    if not isinstance(manifest.get("files"), list):
        raise ArchiveError(f"{where}: expected an object with a list 'files'")
    for k, entry in enumerate(manifest["files"]):
        if not isinstance(entry, dict) or not _DIGEST.match(str(entry.get("sha256", ""))):
            raise ArchiveError(f"{where}: files[{k}] is not {{path, sha256}} (a 64-hex-digit SHA-256)")
        inside(folder, entry.get("path"), f"{where}: files[{k}].path")
    config = manifest.get("config", {})
    if not isinstance(config, dict):
        raise ArchiveError(f"{where}: 'config' is not an object")
    if config.get("resolved") is not None:
        inside(folder, config["resolved"], f"{where}: config.resolved")
    for key in ("name", "run_date"):
        if key in manifest and not isinstance(manifest[key], str):
            raise ArchiveError(f"{where}: '{key}' is not a string")
    if not isinstance(manifest.get("provenance", {}), dict):
        raise ArchiveError(f"{where}: 'provenance' is not an object")
    return manifest
