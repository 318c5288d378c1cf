r"""A streaming parser for the Standard Workload Format (SWF) v2.2 of the Parallel Workloads Archive.

Format (https://www.cs.huji.ac.il/labs/parallel/workload/swf.html): lines that start with ``;``
are comments; the header comments at the top carry ``; Key: value`` pairs (``Version``,
``MaxJobs``, ``UnixStartTime``, ...). Every other non-blank line is one job with exactly 18
whitespace-separated numeric fields (see :data:`FIELDS`); −1 means "not available". The spec
allows floating-point values in the time fields, so time and memory columns are float64 and the
others (counts, identifiers, status) are int64 (a fractional value there is an error). A number
is a plain decimal (``[-+]?(D+(.D*)?|.D+)([eE][-+]?D+)?``, ASCII digits): ``nan``, ``inf``,
``1_0`` and hexadecimal are refused.

Header parsing: a comment ``; Key: value`` (key = a word, then ``:`` followed by a space or the
end of the line) starts an entry; a following comment line without a key continues it (joined
with a space); a bare ``;`` ends it. A key given several times (``Note``, ``Queue``) keeps every
value, joined with a newline. All values are strings. Only the comments before the first job
line form the header; later comments are kept (``SwfLog.comments``) but not parsed.

Text: UTF-8 (ASCII in practice); a UTF-8 byte-order mark at the start is skipped; a byte
sequence that is not UTF-8 (a Latin-1 comment, UTF-16 text) is an error naming the line. Line
ends are ``\n``, ``\r\n`` or a lone ``\r`` (old Mac files); the last line needs no line end.
Blank lines are skipped. Whitespace inside a line: space, tab, ``\v``, ``\f`` and ``\x1c``–``\x1f``.

Record count: the header's ``MaxRecords`` is compared with the job lines read. A cleaned log of
the archive states either the count before cleaning (and notes ``(N jobs removed)`` per filter)
or the count after it, so the count agrees when it equals ``MaxRecords`` or ``MaxRecords`` minus
the jobs the header's notes remove; otherwise :class:`SwfLog` says so (``header_shortfall``,
``warnings``) and a warning is logged (logger ``schedbench.scheduling.instances._swf``).

Memory and speed: the file (plain or gzip, detected by content) is streamed twice in blocks of
:data:`BLOCK_BYTES`: the first pass counts the job lines, the second fills the arrays, allocated
once at their final size, with numpy operations on whole blocks (no Python object per record).
Peak memory is the result (152 bytes per record: 144 for the 18 fields, 8 for the line number)
plus a few megabytes per block.

Errors: a malformed job line raises :class:`SwfFormatError` (an :class:`InstanceError`, hence a
``ValueError``) naming the file, the 1-based line number (of the decompressed text, comment
lines included) and what is wrong; the first bad line of the file is reported (on one line: the
field count first, then a field that is not a number, out of range, or not an integer). So does
a file with no job line (empty or header only) and a gzip file that cannot be read.

The module name starts with ``_``: the registry does not import it as a family.
"""

from __future__ import annotations

import functools
import gzip
import logging
import os
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterator

import numpy as np

from schedbench.scheduling.model import InstanceError

__all__ = ["FIELDS", "MISSING", "SwfFormatError", "SwfLog", "parse_swf", "load_swf"]

log_ = logging.getLogger(__name__)

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
_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*:(?:\s+(.*?))?\s*$")
_REMOVED = re.compile(r"\((\d+) jobs? removed\)")

#: Bytes of decompressed text per block (the working memory of a block is a few times this).
BLOCK_BYTES = 1 << 17

# Byte classes of a job line.
_WS, _DIGIT, _SIGN, _DOT, _EXP, _OTHER = range(6)
_WS_BYTES = b" \t\n\v\f\x1c\x1d\x1e\x1f"  # \r never reaches the classifier (it ends a line)
_CLASS = np.full(256, _OTHER, dtype=np.uint8)
_CLASS[list(_WS_BYTES)] = _WS
_CLASS[list(b"0123456789")] = _DIGIT
_CLASS[list(b"+-")] = _SIGN
_CLASS[ord(".")] = _DOT
_CLASS[list(b"eE")] = _EXP
_TO_SPACE = bytes.maketrans(_WS_BYTES, b" " * len(_WS_BYTES))  # what numpy's text reader splits on
_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


class SwfFormatError(InstanceError):
    """An SWF file is malformed; the message names the file and the line."""


@dataclass(frozen=True, eq=False)
class SwfLog:
    """A parsed SWF file.

    ``records`` is a numpy structured array (dtype :data:`DTYPE`, field names from
    :data:`FIELDS`), one row per job line in file order; ``line`` the 1-based line number of each
    record; ``header`` the ``; Key: value`` pairs; ``comments`` every comment line without its
    ``;``. Arrays are read-only (a log may be shared through the cache of :func:`load_swf`).

    Record count against the header: ``max_records`` is the header's ``MaxRecords`` (None when
    absent or not an integer), ``cleaned_away`` the sum of the header's ``(N jobs removed)``
    notes, ``header_shortfall`` how many records the file lacks against the header (0 when the
    count agrees with ``MaxRecords`` or ``MaxRecords − cleaned_away``; otherwise
    ``MaxRecords − len``, negative for a file with more records), and ``warnings`` the messages
    (also logged) about it.
    """

    path: str
    header: dict[str, str]
    comments: tuple[str, ...]
    records: np.ndarray
    line: np.ndarray = field(repr=False)
    max_records: int | None = None
    cleaned_away: int = 0
    header_shortfall: int = 0
    warnings: tuple[str, ...] = ()

    def __len__(self) -> int:
        return int(self.records.shape[0])

    def __getitem__(self, column: str) -> np.ndarray:
        return self.records[column]

    def missing(self, column: str) -> np.ndarray:
        """Boolean mask of the records whose ``column`` is −1 (not available)."""
        return self.records[column] == MISSING


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


# ---------------------------------------------------------------- reading blocks of lines


def _open(path: Path) -> tuple[BinaryIO, bool]:
    f = open(path, "rb")
    try:
        magic = f.read(2)
        f.seek(0)
    except BaseException:
        f.close()
        raise
    if magic == b"\x1f\x8b":  # gzip magic, whatever the file name says
        f.close()  # a GzipFile over an open file never closes it: let gzip own its file
        return gzip.open(path, "rb"), True
    return f, False


def _blocks(path: Path, size: int) -> Iterator[tuple[int, bytes]]:
    """(number of the first line, text) per block: whole lines, each ending with ``\n`` (line
    ends normalised, byte-order mark removed; a last line without a line end gets one)."""
    f, zipped = _open(path)
    with f:
        carry, line0, first = b"", 1, True
        while True:
            try:
                chunk = f.read(size)
            except (OSError, EOFError, zlib.error) as exc:
                if not zipped:
                    raise
                raise SwfFormatError(f"{path}: not a readable gzip file ({exc})") from None
            eof = not chunk
            data = carry + chunk if carry else chunk
            if first and (len(data) >= 3 or eof):
                first = False
                if data.startswith(_BOM):
                    data = data[len(_BOM) :]
                elif data[:2] in _UTF16_BOMS:
                    raise SwfFormatError(
                        f"{path}: UTF-16 text (byte-order mark {data[:2].hex(' ').upper()}); "
                        "an SWF file must be ASCII or UTF-8"
                    )
            elif first:  # fewer than 3 bytes so far: wait for more (a BOM may be split)
                carry = data
                continue
            hold = b""
            if not eof and data.endswith(b"\r"):  # maybe the \r of a \r\n split between reads
                data, hold = data[:-1], b"\r"
            if b"\r" in data:
                data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            if eof:
                if data and not data.endswith(b"\n"):
                    data += b"\n"
                complete, carry = data, b""
            else:
                cut = data.rfind(b"\n") + 1
                complete, carry = data[:cut], data[cut:] + hold
            if complete:
                yield line0, complete
                line0 += complete.count(b"\n")
            if eof:
                return


@dataclass
class _Lines:
    """The lines of one block, classified."""

    text: bytes
    a: np.ndarray  # the bytes, padded: a[0] = '\n', then text, then two '\n'
    cls: np.ndarray  # the class of each byte of ``a`` (_WS, _DIGIT, ...)
    ends: np.ndarray  # index in ``a`` of each line's '\n'
    starts: np.ndarray  # index in ``a`` of each line's first byte
    job: np.ndarray  # bool per line
    comment: np.ndarray  # bool per line
    first: np.ndarray  # index in ``a`` of each line's first non-whitespace byte (when not blank)
    token_starts: np.ndarray  # index in ``a`` of the first byte of every token of the block
    token_ends: np.ndarray  # index in ``a`` just past the last byte of every token


def _classify(text: bytes, ends_too: bool = True) -> _Lines:
    a = np.frombuffer(b"\n" + text + b"\n\n", dtype=np.uint8)
    cls = _CLASS[a]
    is_ws = cls == _WS
    ends = np.flatnonzero(a[1:-2] == 10) + 1
    starts = np.empty_like(ends)
    starts[0] = 1
    starts[1:] = ends[:-1] + 1
    token_starts = np.flatnonzero(is_ws[:-1] & ~is_ws[1:]) + 1
    token_ends = np.flatnonzero(~is_ws[:-1] & is_ws[1:]) + 1 if ends_too else None  # a starts, ends with '\n'
    first = np.append(token_starts, a.size - 1)[np.searchsorted(token_starts, starts)]
    filled = first < ends
    comment = filled & (a[first] == ord(";"))
    return _Lines(text, a, cls, ends, starts, filled & ~comment, comment, first, token_starts, token_ends)


def _utf8(path: Path, line0: int, text: bytes) -> None:
    """Refuse text that is not UTF-8, naming the line."""
    if text.isascii():
        return
    try:
        text.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = line0 + text.count(b"\n", 0, exc.start)
        column = exc.start - (text.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SwfFormatError(
            f"{path}, line {line}: not UTF-8 text (byte 0x{text[exc.start]:02X} at column {column}); "
            "an SWF file must be ASCII or UTF-8"
        ) from None


# ---------------------------------------------------------------- checking and reading job lines


def _field_error(path: Path, kind: str, line_no: int, k: int, token: bytes) -> SwfFormatError:
    name = FIELDS[k][0]
    tok = token.decode("utf-8", "replace")
    if kind == "number":
        return SwfFormatError(f"{path}, line {line_no}: field {k + 1} ({name}) is not a number: {tok!r}")
    if kind == "range":
        return SwfFormatError(f"{path}, line {line_no}: field {k + 1} ({name}) is out of range: {tok!r}")
    return SwfFormatError(f"{path}, line {line_no}: field {k + 1} ({name}) must be an integer, got {tok!r}")


_POW10 = 10.0 ** np.arange(23)  # exact in float64


@dataclass
class _Tokens:
    """The tokens of a block's job lines: starts ``ts`` and ends ``te`` (indices in ``a``), line
    (index in the block) of each, and ``of(pos)``: the token of byte positions ``pos`` (after
    ``jobs(pos)`` kept only those in job lines)."""

    ts: np.ndarray
    te: np.ndarray
    line: np.ndarray
    tid: np.ndarray  # per byte: the block-wide token index (-1 before the first token)
    index: np.ndarray | None  # block-wide token index -> job-token index (None: all tokens are jobs')
    in_job: np.ndarray | None  # per block-wide token: in a job line

    def jobs(self, pos: np.ndarray) -> np.ndarray:
        return pos if self.in_job is None else pos[self.in_job[self.tid[pos]]]

    def of(self, pos: np.ndarray) -> np.ndarray:
        return self.tid[pos] if self.index is None else self.index[self.tid[pos]]


def _tokens(b: _Lines) -> _Tokens:
    ts, te = b.token_starts, b.token_ends
    mark = np.zeros(b.a.size, dtype=np.int32)
    mark[ts] = 1
    tid = np.cumsum(mark, dtype=np.int32)
    tid -= 1
    mark[:] = 0
    mark[b.ends] = 1
    line = np.cumsum(mark, dtype=np.int32)[ts]  # a[0] is the '\n' before line 0
    if b.job.all():
        return _Tokens(ts, te, line, tid, None, None)
    in_job = b.job[line]
    index = np.cumsum(in_job) - 1
    return _Tokens(ts[in_job], te[in_job], line[in_job], tid, index, in_job)


def _decimals(b: _Lines, t: _Tokens) -> np.ndarray | None:
    """The values of checked tokens without an exponent and with at most 15 digits, computed
    exactly as ``float()`` does: the digits as an integer below 2^53, one correctly rounded
    division by a power of ten (Clinger's fast path). None for anything else."""
    a, cls = b.a, b.cls
    if t.jobs(np.flatnonzero(cls == _EXP)).size:
        return None
    digits = t.jobs(np.flatnonzero(cls == _DIGIT))
    tok = t.of(digits)
    if np.bincount(tok, minlength=t.ts.size).max() > 15:
        return None
    dots = t.jobs(np.flatnonzero(cls == _DOT))
    power = t.te[tok] - digits - 1  # digits after this one in the token, if it has no point
    if dots.size:
        dot_at = np.full(t.ts.size, -1, dtype=np.int64)  # no point
        dot_at[t.of(dots)] = dots
        power -= dot_at[tok] > digits
    values = np.bincount(tok, weights=_POW10[power] * (a[digits] - 48), minlength=t.ts.size)
    if dots.size:
        values /= _POW10[np.where(dot_at >= 0, t.te - dot_at - 1, 0)]
    np.negative(values, out=values, where=a[t.ts] == ord("-"))
    return values


def _bad_tokens(b: _Lines, t: _Tokens) -> np.ndarray:
    """Bool per job token: not a plain decimal number."""
    a, cls = b.a, b.cls
    bad = np.zeros(t.ts.size, dtype=bool)
    bad[t.of(t.jobs(np.flatnonzero(cls == _OTHER)))] = True
    signs = t.jobs(np.flatnonzero(cls == _SIGN))  # only first, or right after the exponent mark
    bad[t.of(signs[(cls[signs - 1] != _WS) & (cls[signs - 1] != _EXP)])] = True
    exps = t.jobs(np.flatnonzero(cls == _EXP))  # after the mantissa, then [sign] digit
    if exps.size:
        nxt, nxt2 = cls[exps + 1], cls[exps + 2]
        ok = ((cls[exps - 1] == _DIGIT) | (cls[exps - 1] == _DOT)) & (
            (nxt == _DIGIT) | ((nxt == _SIGN) & (nxt2 == _DIGIT))
        )
        bad[t.of(exps[~ok])] = True
    exp_tok = t.of(exps)
    bad[exp_tok[np.bincount(exp_tok, minlength=t.ts.size)[exp_tok] > 1]] = True  # one exponent at most
    dots = t.jobs(np.flatnonzero(cls == _DOT))
    if dots.size:
        dot_tok = t.of(dots)
        bad[dot_tok[np.bincount(dot_tok, minlength=t.ts.size)[dot_tok] > 1]] = True  # one point at most
        exp_at = np.full(t.ts.size, a.size, dtype=np.int64)
        exp_at[exp_tok] = exps
        bad[dot_tok[exp_at[dot_tok] < dots]] = True  # no point in the exponent
    # a digit in the mantissa: it starts with a digit, [sign|point] digit, or sign point digit
    c0 = cls[t.ts]
    lead = c0 != _DIGIT
    if lead.any():
        at = t.ts[lead]
        c0, c1, c2 = c0[lead], cls[at + 1], cls[at + 2]
        bad[lead] |= ~(
            (((c0 == _SIGN) | (c0 == _DOT)) & (c1 == _DIGIT)) | ((c0 == _SIGN) & (c1 == _DOT) & (c2 == _DIGIT))
        )
    return bad


def _read_jobs(path: Path, line0: int, b: _Lines) -> tuple[np.ndarray, np.ndarray]:
    """The values (float64, one row of 18 per job line) and line numbers of a block's job lines."""
    job_lines = np.flatnonzero(b.job)
    line_no = line0 + job_lines
    t = _tokens(b)
    counts = np.bincount(t.line, minlength=b.job.size)[job_lines]
    bad_count = np.flatnonzero(counts != NUM_FIELDS)
    first_bad_count = int(job_lines[bad_count[0]]) if bad_count.size else None
    bad_tok = np.flatnonzero(_bad_tokens(b, t))
    first_bad_tok = int(t.line[bad_tok[0]]) if bad_tok.size else None
    if first_bad_count is not None and (first_bad_tok is None or first_bad_count <= first_bad_tok):
        raise SwfFormatError(
            f"{path}, line {line0 + first_bad_count}: expected {NUM_FIELDS} whitespace-separated fields (SWF v2.2), "
            f"got {int(counts[bad_count[0]])}"
        )
    if first_bad_tok is not None:
        i = int(bad_tok[0])
        k = i - int(np.searchsorted(t.line, t.line[i]))
        raise _field_error(path, "number", line0 + first_bad_tok, k, bytes(b.a[t.ts[i] : t.te[i]]))
    values = _decimals(b, t)
    if values is None:  # exponents or long mantissas: numpy's text reader (as exact as float())
        if b.job.all():
            text = b.text
        else:  # only the job lines (comments may hold anything)
            text = b.a[1:-2][np.repeat(b.job, b.ends - b.starts + 1)].tobytes()
        values = np.fromstring(text.translate(_TO_SPACE), dtype=np.float64, sep=" ")
    if values.size != job_lines.size * NUM_FIELDS:  # cannot happen after the checks above
        raise SwfFormatError(f"{path}, lines {line_no[0]}..{line_no[-1]}: could not read the numbers")
    values = values.reshape(-1, NUM_FIELDS)
    bad_range = ~np.isfinite(values)  # e.g. 1e999
    ints = values[:, _INT_COLUMNS]
    bad_int = np.zeros_like(bad_range)
    bad_int[:, _INT_COLUMNS] = (ints != np.floor(ints)) | (np.abs(ints) > 2.0**53)  # integral, exact in int64
    bad_int &= ~bad_range
    if bad_range.any() or bad_int.any():
        row = int(np.flatnonzero((bad_range | bad_int).any(axis=1))[0])
        kind = "range" if bad_range[row].any() else "integer"
        k = int(np.flatnonzero(bad_range[row] if kind == "range" else bad_int[row])[0])
        i = row * NUM_FIELDS + k
        raise _field_error(path, kind, int(line_no[row]), k, bytes(b.a[t.ts[i] : t.te[i]]))
    return values, line_no


def _comment_lines(b: _Lines, which: np.ndarray) -> list[str]:
    return [b.text[b.starts[i] - 1 : b.ends[i] - 1].decode("utf-8").strip()[1:] for i in which]


def _count_check(path: Path, header: dict[str, str], header_comments: list[str], n: int) -> tuple:
    try:
        declared = int(header.get("MaxRecords", "").strip())
    except ValueError:
        declared = None
    removed = sum(int(m) for text in header_comments for m in _REMOVED.findall(text))
    if declared is None or n == declared or (removed and n == declared - removed):
        return declared, removed, 0, ()
    message = f"{path}: the header says MaxRecords {declared}, but the file has {n} job records"
    message += f" ({declared - n} fewer)" if n < declared else f" ({n - declared} more)"
    if removed:
        message += (
            f"; its cleaning notes remove {removed} jobs, which accounts for neither count "
            f"({declared} or {declared - removed})"
        )
    log_.warning(message)
    return declared, removed, declared - n, (message,)


def parse_swf(path: str | os.PathLike, *, block_bytes: int = BLOCK_BYTES) -> SwfLog:
    """Parse an SWF file (plain or gzip, detected by content) into a :class:`SwfLog`."""
    path = Path(path)
    # Pass 1: count the job lines, so the arrays are allocated once at their final size.
    n = n_comments = 0
    for line0, text in _blocks(path, block_bytes):
        _utf8(path, line0, text)
        b = _classify(text, ends_too=False)
        n += int(np.count_nonzero(b.job))
        n_comments += int(np.count_nonzero(b.comment))
    if n == 0:
        what = "only header comments" if n_comments else "empty file"
        raise SwfFormatError(f"{path}: no job records ({what}); an SWF log needs at least one job line")
    # Pass 2: check and read every job line into the arrays.
    records = np.empty(n, dtype=DTYPE)
    lines = np.empty(n, dtype=np.int64)
    comments: list[str] = []
    header_comments: list[str] = []
    at = 0
    for line0, text in _blocks(path, block_bytes):
        b = _classify(text)
        if b.comment.any():
            if at == 0:  # header = the comments before the first job line
                first_job = np.flatnonzero(b.job)
                cut = int(first_job[0]) if first_job.size else b.job.size
                header_comments += _comment_lines(b, np.flatnonzero(b.comment[:cut]))
            comments += _comment_lines(b, np.flatnonzero(b.comment))
        if not b.job.any():
            continue
        values, line_no = _read_jobs(path, line0, b)
        k = line_no.size
        if at + k > n:
            raise SwfFormatError(f"{path}: the file changed while it was read")
        for col, (name, kind, _) in enumerate(FIELDS):
            records[name][at : at + k] = values[:, col]  # int columns: exact, checked above
        lines[at : at + k] = line_no
        at += k
    if at != n:
        raise SwfFormatError(f"{path}: the file changed while it was read")
    records.setflags(write=False)
    lines.setflags(write=False)
    header = _parse_header(header_comments)
    declared, removed, shortfall, warnings = _count_check(path, header, header_comments, n)
    return SwfLog(str(path), header, tuple(comments), records, lines, declared, removed, shortfall, warnings)


@functools.lru_cache(maxsize=8)
def _load_cached(path: str, mtime_ns: int, size: int) -> SwfLog:
    return parse_swf(path)


def load_swf(path: str | os.PathLike) -> SwfLog:
    """:func:`parse_swf`, cached per process by (real path, modification time, size)."""
    real = os.path.realpath(path)
    st = os.stat(real)
    return _load_cached(real, st.st_mtime_ns, st.st_size)
