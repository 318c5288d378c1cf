r"""A parser for the Standard Workload Format (SWF) v2.2 of the Parallel Workloads Archive.

Format (https://www.cs.huji.ac.il/labs/parallel/workload/swf.html): lines that start with ``;``
are comments; the header comments at the top carry ``; Key: value`` pairs (``Version``,
``MaxJobs``, ``UnixStartTime``, ...). Every other non-blank line is one job with exactly 18
whitespace-separated numeric fields (see :data:`FIELDS`); −1 means "not available". The spec
allows floating-point values in the time fields, so time and memory columns are float64 and the
others (counts, identifiers, status) are int64 (a fractional value there is an error).

Header parsing: a comment ``; Key: value`` (key = a word, then ``:`` followed by a space or the
end of the line) starts an entry; a following comment line without a key continues it (joined
with a space); a bare ``;`` ends it. A key given several times (``Note``, ``Queue``) keeps every
value, joined with a newline. All values are strings. Only the comments before the first job
line form the header; later comments are kept (``SwfLog.comments``) but not parsed. Blank lines
are skipped; line ends are ``\n`` (a trailing ``\r`` is stripped).

Errors: a malformed job line raises :class:`SwfFormatError` (an :class:`InstanceError`, hence a
``ValueError``) naming the file, the 1-based line number (of the decompressed text, comment
lines included) and what is wrong; so does a file with no job line (empty or header only).

The module name starts with ``_``: the registry does not import it as a family.
"""

from __future__ import annotations

import functools
import gzip
import os
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from schedbench.scheduling.model import InstanceError

__all__ = ["FIELDS", "MISSING", "SwfFormatError", "SwfLog", "parse_swf", "load_swf"]

#: The value SWF uses for "not available".
MISSING = -1

#: The 18 SWF v2.2 fields, in file order: (column name, dtype, description).
FIELDS: tuple[tuple[str, str, str], ...] = (
    ("job_number", "i8", "Job Number: a counter, from 1"),
    ("submit_time", "f8", "Submit Time, seconds since the start of the log"),
    ("wait_time", "f8", "Wait Time, seconds from submit to start"),
    ("run_time", "f8", "Run Time, wall-clock seconds (end minus start)"),
    ("allocated_processors", "i8", "Number of Allocated Processors"),
    ("avg_cpu_time", "f8", "Average CPU Time Used, seconds per processor"),
    ("used_memory", "f8", "Used Memory, KB per processor"),
    ("requested_processors", "i8", "Requested Number of Processors"),
    ("requested_time", "f8", "Requested Time, seconds"),
    ("requested_memory", "f8", "Requested Memory, KB per processor"),
    ("status", "i8", "Status: 1 completed, 0 failed, 5 cancelled"),
    ("user_id", "i8", "User ID"),
    ("group_id", "i8", "Group ID"),
    ("executable", "i8", "Executable (Application) Number"),
    ("queue", "i8", "Queue Number"),
    ("partition", "i8", "Partition Number"),
    ("preceding_job", "i8", "Preceding Job Number"),
    ("think_time", "f8", "Think Time from Preceding Job, seconds"),
)
NUM_FIELDS = len(FIELDS)
DTYPE = np.dtype([(name, kind) for name, kind, _ in FIELDS])
_INT_COLUMNS = np.array([kind == "i8" for _, kind, _ in FIELDS])
_NUM = r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"  # decimal, ASCII digits
_NUMBER = re.compile(_NUM)
_NOT_NUMERIC = re.compile(r"[^0-9eE.+\- ]")
_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*:(?:\s+(.*?))?\s*$")


class SwfFormatError(InstanceError):
    """An SWF file is malformed; the message names the file and the line."""


@dataclass(frozen=True, eq=False)
class SwfLog:
    """A parsed SWF file.

    ``records`` is a numpy structured array (dtype :data:`DTYPE`, field names from
    :data:`FIELDS`), one row per job line in file order; ``line`` the 1-based line number of each
    record; ``header`` the ``; Key: value`` pairs; ``comments`` every comment line without its
    ``;``. Arrays are read-only (a log may be shared through the cache of :func:`load_swf`).
    """

    path: str
    header: dict[str, str]
    comments: tuple[str, ...]
    records: np.ndarray
    line: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return int(self.records.shape[0])

    def __getitem__(self, column: str) -> np.ndarray:
        return self.records[column]

    def missing(self, column: str) -> np.ndarray:
        """Boolean mask of the records whose ``column`` is −1 (not available)."""
        return self.records[column] == MISSING


def _read_text(path: Path) -> str:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":  # gzip magic, whatever the file name says
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise SwfFormatError(f"{path}: not a readable gzip file ({exc})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")  # comments in old logs; job lines are ASCII either way


def _parse_header(comments: list[str]) -> dict[str, str]:
    header: dict[str, str] = {}
    key = None
    for text in comments:
        if not text.strip():
            key = None
            continue
        match = _KEY.match(text)
        if match:
            key, value = match.group(1), match.group(2) or ""
            header[key] = f"{header[key]}\n{value}" if key in header else value
        elif key is not None:
            header[key] = f"{header[key]} {text.strip()}".strip()
    return header


def _check_tokens(path: Path, line_no: int, tokens: list[str]) -> None:
    """Raise for the first token of a job line that is not a decimal number."""
    for k, tok in enumerate(tokens):
        if not _NUMBER.fullmatch(tok):
            raise SwfFormatError(f"{path}, line {line_no}: field {k + 1} ({FIELDS[k][0]}) is not a number: {tok!r}")


def parse_swf(path: str | os.PathLike) -> SwfLog:
    """Parse an SWF file (plain or gzip, detected by content) into a :class:`SwfLog`."""
    path = Path(path)
    text = _read_text(path)
    comments: list[str] = []
    header_comments: list[str] = []
    tokens: list[str] = []
    lines: list[int] = []
    for line_no, line in enumerate(text.split("\n"), start=1):  # not splitlines(): \f, \x1c... are no line ends
        stripped = line.strip()
        if not stripped:
            continue
        if stripped[0] == ";":
            comments.append(stripped[1:])
            if not lines:  # header = the comments before the first job line
                header_comments.append(stripped[1:])
            continue
        row = stripped.split()
        if len(row) != NUM_FIELDS:
            raise SwfFormatError(
                f"{path}, line {line_no}: expected {NUM_FIELDS} whitespace-separated fields (SWF v2.2), got {len(row)}"
            )
        tokens.extend(row)
        lines.append(line_no)
    if not lines:
        what = "only header comments" if comments else "empty file"
        raise SwfFormatError(f"{path}: no job records ({what}); an SWF log needs at least one job line")
    line_arr = np.asarray(lines, dtype=np.int64)
    # Fast path: only the characters of decimal numbers, and numpy parses every token (numpy,
    # like float(), also takes '1_0', 'nan' or non-ASCII digits: the character test rules them out).
    values = None
    if not _NOT_NUMERIC.search(" ".join(tokens)):
        try:
            values = np.array(tokens, dtype=np.float64).reshape(-1, NUM_FIELDS)
        except ValueError:
            pass
    if values is None:  # find the first bad token, by line
        for i, line_no in enumerate(lines):
            _check_tokens(path, line_no, tokens[i * NUM_FIELDS : (i + 1) * NUM_FIELDS])
        values = np.array(tokens, dtype=np.float64).reshape(-1, NUM_FIELDS)
    if not np.isfinite(values).all():  # e.g. 1e999
        i, k = (int(v) for v in np.argwhere(~np.isfinite(values))[0])
        raise SwfFormatError(
            f"{path}, line {lines[i]}: field {k + 1} ({FIELDS[k][0]}) is out of range: {tokens[i * NUM_FIELDS + k]!r}"
        )
    ints = values[:, _INT_COLUMNS]
    frac = (ints != np.floor(ints)) | (np.abs(ints) > 2.0**53)  # integral and exact in int64
    if frac.any():
        i, k = (int(v) for v in np.argwhere(frac)[0])
        col = int(np.flatnonzero(_INT_COLUMNS)[k])
        raise SwfFormatError(
            f"{path}, line {lines[i]}: field {col + 1} ({FIELDS[col][0]}) must be an integer, "
            f"got {tokens[i * NUM_FIELDS + col]!r}"
        )
    records = np.empty(values.shape[0], dtype=DTYPE)
    for k, (name, kind, _) in enumerate(FIELDS):
        records[name] = values[:, k] if kind == "f8" else values[:, k].astype(np.int64)
    records.setflags(write=False)
    line_arr.setflags(write=False)
    return SwfLog(str(path), _parse_header(header_comments), tuple(comments), records, line_arr)


@functools.lru_cache(maxsize=8)
def _load_cached(path: str, mtime_ns: int, size: int) -> SwfLog:
    return parse_swf(path)


def load_swf(path: str | os.PathLike) -> SwfLog:
    """:func:`parse_swf`, cached per process by (real path, modification time, size)."""
    real = os.path.realpath(path)
    st = os.stat(real)
    return _load_cached(real, st.st_mtime_ns, st.st_size)
