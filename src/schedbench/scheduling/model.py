"""Instances and outcomes: the plain-array contracts every other module speaks.

An :class:`Instance` is a restricted-assignment input (Roy Choudhury, Das, Garg, Kumar,
"Rejecting jobs to minimize load and maximum flow-time", SODA 2015, §2): ``m`` machines and,
per job, an integer release time, an integer size >= 1, the set of eligible machines (CSR
arrays ``indptr``/``indices``) and two weights (``w_flow`` for weighted flow time, ``w_reject``
for the weighted rejection budget). Jobs released at the same time arrive in array order.
An instance has at least one job, and its numbers are bounded (see :class:`Instance`) so that
every sum the engine, the validator and the offline solvers form is exact.

An :class:`Outcome` is what an online run decided, per job; the validator
(:mod:`schedbench.scheduling.validate`) re-derives every objective from it.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import stat
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, NamedTuple, Sequence

import numpy as np

__all__ = [
    "AlgorithmError",
    "Instance",
    "InstanceError",
    "JobSpec",
    "Outcome",
    "REJECT",
    "HOLD",
    "MAX_TOTAL",
    "MAX_MACHINES",
    "WORK_TOL",
]

#: The machine index an algorithm returns to reject a job on arrival.
REJECT = -1

#: Work at most ``WORK_TOL · max(1, p)`` left on a job of size p counts as done: floating point at a
#: fractional speed 1 + ε. The one tolerance of every processing path (the engine, the machine
#: core, ``global-edf``); the validator keeps its own, looser one (``validate.WORK_TOL``).
WORK_TOL = 1e-9
#: What an algorithm that declares deferred dispatch returns to keep a job and assign it later.
HOLD = -2

_FORMAT_VERSION = 1

#: Bound on ``max(release) + sum(size)`` (so on the total size and on every release): 2^53,
#: the largest range in which float64 represents every integer. The engine and the validator
#: keep times and loads in float64 and the solvers sum sizes in int64; below this bound both
#: are exact (sizes of 2^62 used to wrap int64 sums into a wrong "optimal" OPT).
MAX_TOTAL = 2**53
#: Bound on the number of machines ``m``: 2^31 - 1, the int32 indices of the solvers.
MAX_MACHINES = 2**31 - 1


class JobSpec(NamedTuple):
    """One job as a driver (instance replay or adversary) releases it to the engine."""

    release: int
    size: int
    eligible: Sequence[int]
    w_flow: float = 1.0
    w_reject: float = 1.0


class AlgorithmError(RuntimeError):
    """An algorithm made an illegal decision (the engine's checks, a compiled path's shape):
    the message names the algorithm and the job."""


class InstanceError(ValueError):
    """An instance (arrays or file) is malformed; the message names the job and the field."""


def _array(values: Any, field_name: str) -> np.ndarray:
    """``np.asarray(values)``, with numpy's own complaints (ragged lists...) as InstanceError."""
    try:
        return np.asarray(values)
    except (ValueError, TypeError) as exc:
        raise InstanceError(f"field '{field_name}': not a 1-d list of numbers ({exc})") from None


def _as_int_array(values: Any, field_name: str, where: Callable[[int], str] | None = None) -> np.ndarray:
    """``values`` as a 1-d int64 array: integer dtypes, or integer-valued floats (from lists);
    bool, complex, strings and objects are refused, and so is anything outside int64.
    ``where(k)`` names the job of entry k in messages (default: job k)."""
    where = where or (lambda k: f"job {k}")
    arr = _array(values, field_name)
    if arr.ndim != 1:
        raise InstanceError(f"field '{field_name}': expected a 1-d array, got shape {arr.shape}")
    if not arr.size:
        return arr.astype(np.int64)
    kind = arr.dtype.kind
    if kind == "O":  # Python ints beyond int64, None, strings mixed with numbers...
        for k, v in enumerate(arr.tolist()):
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
                raise InstanceError(f"{where(k)}: field '{field_name}' must be an integer, got {v!r}")
            if not -(2**63) <= v < 2**63:
                raise InstanceError(f"{where(k)}: field '{field_name}' = {v} is out of range (beyond int64)")
        raise InstanceError(f"field '{field_name}': expected integers, got dtype {arr.dtype}")
    if kind == "u":
        bad = np.flatnonzero(arr > np.iinfo(np.int64).max)
        if bad.size:
            raise InstanceError(
                f"{where(int(bad[0]))}: field '{field_name}' = {int(arr[bad[0]])} is out of range (beyond int64)"
            )
    elif kind == "f":
        bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)))
        if bad.size:
            raise InstanceError(
                f"{where(int(bad[0]))}: field '{field_name}' must be an integer, got {arr[bad[0]].item()!r}"
            )
        bad = np.flatnonzero(np.abs(arr) >= 2.0**63)
        if bad.size:
            raise InstanceError(
                f"{where(int(bad[0]))}: field '{field_name}' = {arr[bad[0]].item()!r} is out of range (beyond int64)"
            )
    elif kind != "i":
        raise InstanceError(f"field '{field_name}': expected integers, got dtype {arr.dtype}")
    return arr.astype(np.int64)


#: Largest total of one weight field: sums over jobs and weighted flows w·F (F ≤ 2^53) stay finite.
_MAX_WEIGHT_TOTAL = 1e250


def _as_weight_array(values: Any, n: int, field_name: str) -> np.ndarray:
    if values is None:
        return np.ones(n, dtype=np.float64)
    arr = _array(values, field_name)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise InstanceError(f"field '{field_name}': expected {n} values (one per job), got shape {arr.shape}")
    if arr.dtype.kind not in "iufO":
        raise InstanceError(f"field '{field_name}': expected numbers, got dtype {arr.dtype}")
    try:  # an object array: a list mixing None (read as nan, refused below) with numbers
        arr = arr.astype(np.float64)
    except (ValueError, TypeError, OverflowError) as exc:
        raise InstanceError(f"field '{field_name}': expected numbers ({exc})") from None
    bad = np.flatnonzero(~np.isfinite(arr) | (arr <= 0))
    if bad.size:
        raise InstanceError(
            f"job {int(bad[0])}: field '{field_name}' must be a finite number > 0, got {arr[bad[0]].item()!r}"
        )
    # budgets and weighted objectives add weights up: a total that overflows float64 would turn
    # every rejected fraction into nan (and a budget check into a silent pass)
    with np.errstate(over="ignore"):
        total = float(np.sum(arr))
    if not math.isfinite(total) or total > _MAX_WEIGHT_TOTAL:
        raise InstanceError(
            f"field '{field_name}': the weights sum to {total!r}, beyond {_MAX_WEIGHT_TOTAL:g} "
            "(sums and weighted flows must stay finite; only the weights' ratios matter, so scale them down)"
        )
    return arr


def _is_list(value: Any) -> bool:
    """A list-like of per-job entries (list, tuple, range, 1-d or higher array); not a scalar,
    a string, a mapping, a set or an iterator (those have no order or length)."""
    if isinstance(value, np.ndarray):
        return value.ndim >= 1
    if isinstance(value, (str, bytes, Mapping, set, frozenset)):
        return False
    return hasattr(value, "__len__") and hasattr(value, "__getitem__")


def _check_bounds(release: np.ndarray, size: np.ndarray) -> None:
    """max(release) + sum(size) <= MAX_TOTAL (release >= 0 and size >= 1 already hold)."""
    bad = np.flatnonzero(size > MAX_TOTAL)
    if bad.size:
        raise InstanceError(
            f"job {int(bad[0])}: field 'size' = {int(size[bad[0]])} exceeds the bound {MAX_TOTAL} = 2^53"
        )
    # Each size <= 2^53, so a float64 sum far above the bound is safe to trust, and below
    # 2^54 the int64 sum cannot overflow and is exact.
    if float(size.sum(dtype=np.float64)) > 2.0 * MAX_TOTAL:
        raise InstanceError(
            f"field 'size': total size exceeds the bound {MAX_TOTAL} = 2^53 "
            f"(about {float(size.sum(dtype=np.float64)):.3g})"
        )
    total = int(size.sum())
    if total > MAX_TOTAL:
        raise InstanceError(f"field 'size': total size {total} exceeds the bound {MAX_TOTAL} = 2^53")
    j = int(np.argmax(release))
    if int(release[j]) + total > MAX_TOTAL:
        raise InstanceError(
            f"job {j}: field 'release' = {int(release[j])} plus the total size {total} "
            f"exceeds the bound {MAX_TOTAL} = 2^53"
        )


#: The arrays of an instance (one value per job, or the eligibility's CSR pair).
ARRAY_FIELDS = ("release", "size", "indptr", "indices", "w_flow", "w_reject")


def immutable(arr: np.ndarray) -> np.ndarray:
    """A read-only copy of ``arr`` backed by an immutable ``bytes`` object: numpy refuses to make
    such an array writeable again (``setflags(write=True)`` raises), so code handed an instance —
    a plug-in above all — cannot change it and thereby every run after it on the same instance.
    An array already backed this way is returned as it is."""
    if isinstance(arr.base, bytes) and not arr.flags.writeable:
        return arr
    return np.frombuffer(np.ascontiguousarray(arr).tobytes(), dtype=arr.dtype)


def touched_field(inst: "Instance", arrays: tuple[np.ndarray, ...]) -> str | None:
    """The first field of ``inst`` that no longer holds its array of ``arrays`` (taken by
    :meth:`Instance.arrays` before some code ran), or whose array became writeable — an array
    replaced with ``object.__setattr__`` or a buffer made writeable; None when untouched. O(1):
    the arrays are immutable (:func:`immutable`), so the same objects hold the same values."""
    for name, before, now in zip(ARRAY_FIELDS, arrays, inst.arrays()):
        if now is not before or now.flags.writeable or not isinstance(now.base, bytes):
            return name
    return None


def differing_field(a: "Instance", b: "Instance") -> str | None:
    """The first array field (:data:`ARRAY_FIELDS` order) in which instances ``a`` and ``b``
    differ, in shape or values; None when every array is equal."""
    for name in ARRAY_FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        if x.shape != y.shape or not np.array_equal(x, y):
            return name
    return None


@dataclass(frozen=True, eq=False)
class Instance:
    """A restricted-assignment instance as plain numpy arrays (see module docstring).

    Construct with :meth:`from_lists` (user-facing) or directly from arrays; both validate.
    ``meta`` records the generator name, its parameters and the seed (provenance).

    Rules (each violation is an :class:`InstanceError` naming the field, and the job if any):

    * at least one job: ``n = 0`` is an error (field ``release``), not an empty instance —
      its objective and OPT would be 0 and every ratio 0/0, and algorithms that assume T*
      cannot run with T* = 0;
    * ``1 <= m <= MAX_MACHINES`` (2^31 − 1, the solvers' int32 indices);
    * integer fields (``release``, ``size``, machine indices) hold integers: an integer-valued
      float from a list is accepted, a fractional, non-finite, bool, complex or string value is
      not; ``release >= 0``, ``size >= 1``; each job has distinct machines in ``0..m-1``;
    * **size bound**: ``max(release) + sum(size) <= MAX_TOTAL`` = 2^53 (9 007 199 254 740 992),
      hence also ``sum(size) <= 2^53``. Every time and load the engine, the validator and the
      offline solvers compute is then an exact integer in both int64 and float64; larger sizes
      used to wrap int64 sums into a wrong "optimal" OPT. (The max-flow bound of
      :func:`~schedbench.scheduling.offline.opt_makespan` needs ``sum(size) < 2^31 - 1``
      and says so when an instance exceeds it);
    * weights ``w_flow``, ``w_reject``: finite numbers > 0, one per job.
    """

    m: int
    release: np.ndarray
    size: np.ndarray
    indptr: np.ndarray
    indices: np.ndarray
    w_flow: np.ndarray
    w_reject: np.ndarray
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.m, bool) or not isinstance(self.m, (int, np.integer)) or self.m < 1:
            raise InstanceError(f"field 'm': number of machines must be an integer >= 1, got {self.m!r}")
        if self.m > MAX_MACHINES:
            raise InstanceError(f"field 'm': {self.m} machines, more than the bound {MAX_MACHINES} = 2^31 - 1")
        object.__setattr__(self, "m", int(self.m))
        if not isinstance(self.meta, Mapping):
            raise InstanceError(f"field 'meta': expected a dict, got {type(self.meta).__name__} {self.meta!r:.60}")
        release = _as_int_array(self.release, "release")
        n = release.shape[0]
        if n == 0:
            raise InstanceError("field 'release': no jobs (n = 0); an instance needs at least one job")
        size = _as_int_array(self.size, "size")
        if size.shape[0] != n:
            raise InstanceError(f"field 'size': {size.shape[0]} values but 'release' has {n} (one per job)")
        indptr = _as_int_array(self.indptr, "eligible.indptr")
        raw_indices = _array(self.indices, "eligible.indices")
        if raw_indices.ndim != 1:
            raise InstanceError(f"field 'eligible.indices': expected a 1-d array, got shape {raw_indices.shape}")
        nnz = raw_indices.shape[0]
        if indptr.shape[0] != n + 1:
            raise InstanceError(
                f"field 'eligible.indptr': expected {n + 1} entries for {n} jobs, got {indptr.shape[0]}"
            )
        if indptr[0] != 0 or indptr[-1] != nnz:
            raise InstanceError(
                "field 'eligible.indptr': must start at 0 and end at len(eligible.indices) "
                f"= {nnz}, got {indptr[0]}..{indptr[-1]}"
            )
        counts = np.diff(indptr)
        if np.any(counts < 0):
            j = int(np.flatnonzero(counts < 0)[0])
            raise InstanceError(f"job {j}: field 'eligible.indptr' decreases")
        if np.any(counts == 0):
            j = int(np.flatnonzero(counts == 0)[0])
            raise InstanceError(f"job {j}: field 'eligible' is empty (a job needs an eligible machine)")
        indices = _as_int_array(
            raw_indices, "eligible.indices", where=lambda k: f"job {int(np.searchsorted(indptr, k, side='right') - 1)}"
        )
        if indices.size:
            bad = np.flatnonzero((indices < 0) | (indices >= self.m))
            if bad.size:
                j = int(np.searchsorted(indptr, bad[0], side="right") - 1)
                raise InstanceError(
                    f"job {j}: field 'eligible' has machine {int(indices[bad[0]])}, out of range 0..{self.m - 1}"
                )
            owner = np.repeat(np.arange(n, dtype=np.int64), counts)
            key = owner * self.m + indices
            order = np.argsort(key, kind="stable")
            dup = np.flatnonzero(np.diff(key[order]) == 0)
            if dup.size:
                j = int(owner[order[dup[0]]])
                raise InstanceError(f"job {j}: field 'eligible' lists machine {int(indices[order[dup[0]]])} twice")
        bad = np.flatnonzero(release < 0)
        if bad.size:
            raise InstanceError(f"job {int(bad[0])}: field 'release' must be >= 0, got {int(release[bad[0]])}")
        bad = np.flatnonzero(size < 1)
        if bad.size:
            raise InstanceError(f"job {int(bad[0])}: field 'size' must be >= 1, got {int(size[bad[0]])}")
        _check_bounds(release, size)
        w_flow = _as_weight_array(self.w_flow, n, "w_flow")
        w_reject = _as_weight_array(self.w_reject, n, "w_reject")
        for name, arr in (
            ("release", release),
            ("size", size),
            ("indptr", indptr),
            ("indices", indices),
            ("w_flow", w_flow),
            ("w_reject", w_reject),
        ):
            object.__setattr__(self, name, immutable(arr))
        object.__setattr__(self, "meta", dict(self.meta))

    def __setstate__(self, state: dict) -> None:
        """Unpickled (joblib workers, caches): the arrays immutable again (a plain unpickled array
        is writeable)."""
        for name, value in state.items():
            object.__setattr__(self, name, immutable(value) if name in ARRAY_FIELDS else value)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The instance's arrays (:data:`ARRAY_FIELDS` order): what :func:`touched_field` compares."""
        return tuple(getattr(self, name) for name in ARRAY_FIELDS)

    # ----------------------------------------------------------------- construction
    @classmethod
    def from_lists(
        cls,
        m: int,
        release: Sequence[int],
        size: Sequence[int],
        eligible: Sequence[Sequence[int]],
        w_flow: Sequence[float] | None = None,
        w_reject: Sequence[float] | None = None,
        meta: dict | None = None,
    ) -> "Instance":
        """Build an instance from Python lists; ``eligible[j]`` lists job j's machines.

        ``release``, ``size`` and ``eligible`` (and the weights, if given) are lists with one
        entry per job (at least one job); ``eligible[j]`` is itself a list (or set) of integer
        machine indices. A scalar where a list is expected, a fractional or non-numeric machine
        index, or a string is an :class:`InstanceError` naming the field."""
        for name, value in (
            ("release", release),
            ("size", size),
            ("eligible", eligible),
            ("w_flow", w_flow),
            ("w_reject", w_reject),
        ):
            if (value is not None or name in ("release", "size", "eligible")) and not _is_list(value):
                raise InstanceError(
                    f"field '{name}': expected a list with one entry per job, got {type(value).__name__} {value!r:.60}"
                )
        n = len(release)
        if len(eligible) != n:
            raise InstanceError(f"field 'eligible': {len(eligible)} machine lists but 'release' has {n} (one per job)")
        if not set(map(type, eligible)) <= {list, tuple}:  # the common case needs no per-row look
            for j, e in enumerate(eligible):
                if not (_is_list(e) or isinstance(e, (set, frozenset))):
                    hint = " (eligible is a list of lists, e.g. [[0, 1], [1]])" if np.ndim(e) == 0 else ""
                    raise InstanceError(
                        f"job {j}: field 'eligible' must be a list of machine indices, "
                        f"got {type(e).__name__} {e!r:.60}{hint}"
                    )
        indptr = np.zeros(n + 1, dtype=np.int64)
        indptr[1:] = np.cumsum(list(map(len, eligible)))
        flat = list(itertools.chain.from_iterable(eligible))
        owner = lambda k: f"job {int(np.searchsorted(indptr, k, side='right') - 1)}"  # noqa: E731
        if not set(map(type, flat)) <= {int}:  # plain ints need no per-entry look
            for k, i in enumerate(flat):
                if (
                    isinstance(i, (bool, np.bool_))
                    or not isinstance(i, (int, float, np.integer, np.floating))
                    or (isinstance(i, (float, np.floating)) and not float(i).is_integer())
                ):
                    shown = float(i) if isinstance(i, np.floating) else i
                    raise InstanceError(f"{owner(k)}: field 'eligible' has machine {shown!r}, not an integer index")
        indices = _as_int_array(flat, "eligible", where=owner) if flat else np.zeros(0, np.int64)
        return cls(
            m=m,
            release=_array(release, "release"),
            size=_array(size, "size"),
            indptr=indptr,
            indices=indices,
            w_flow=None if w_flow is None else _array(w_flow, "w_flow"),
            w_reject=None if w_reject is None else _array(w_reject, "w_reject"),
            meta={} if meta is None else meta,
        )

    # ----------------------------------------------------------------- accessors
    @property
    def n(self) -> int:
        return int(self.release.shape[0])

    def eligible(self, j: int) -> np.ndarray:
        """The machines job ``j`` may run on (a read-only view)."""
        return self.indices[self.indptr[j] : self.indptr[j + 1]]

    def arrival_order(self) -> np.ndarray:
        """Job indices in arrival order: by release time, ties in array order."""
        return np.argsort(self.release, kind="stable")

    @property
    def unit_sizes(self) -> bool:
        return bool(np.all(self.size == 1))

    # ----------------------------------------------------------------- persistence
    def save(self, path: str | os.PathLike) -> None:
        """Write the instance to ``path`` (``.npz``) atomically, with its provenance."""
        path = Path(path)
        try:
            meta = json.dumps(self.meta, sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise InstanceError(f"{path}: field 'meta' cannot be written as JSON ({exc})") from None
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".npz")
        os.close(fd)
        try:
            np.savez_compressed(
                tmp,
                format_version=np.int64(_FORMAT_VERSION),
                m=np.int64(self.m),
                release=self.release,
                size=self.size,
                indptr=self.indptr,
                indices=self.indices,
                w_flow=self.w_flow,
                w_reject=self.w_reject,
                meta=np.asarray(meta),
            )
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)  # mkstemp makes 0600; the file gets a plain open's mode
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Instance":
        """Read and validate an instance written by :meth:`save`.

        Any fault of the file — missing, empty, not an ``.npz`` archive, truncated, corrupted
        (bad CRC), a missing field, an array of the wrong shape or dtype, ``meta`` that is not
        a JSON object, or contents that break the instance rules — is one
        :class:`InstanceError` whose message starts with the path and names what is wrong."""
        path = Path(path)
        try:
            arrays = _read_npz(path)
            return cls(
                m=_file_scalar(arrays["m"], "m"),
                release=_file_ints(arrays["release"], "release"),
                size=_file_ints(arrays["size"], "size"),
                indptr=_file_ints(arrays["indptr"], "eligible.indptr"),
                indices=_file_ints(arrays["indices"], "eligible.indices"),
                w_flow=_file_numbers(arrays["w_flow"], "w_flow"),
                w_reject=_file_numbers(arrays["w_reject"], "w_reject"),
                meta=_file_meta(arrays["meta"]),
            )
        except InstanceError as exc:
            raise InstanceError(f"{path}: {exc}") from None


_REQUIRED = ("m", "release", "size", "indptr", "indices", "w_flow", "w_reject", "meta")
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def _read_npz(path: Path) -> dict[str, np.ndarray]:
    """The arrays of an instance file; every way the bytes can be wrong is an InstanceError. A FIFO,
    a device or a socket is refused before it is opened (opening a FIFO blocks until a writer comes)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise InstanceError(f"not a readable instance file ({exc.strerror or exc})") from None
    if stat.S_ISDIR(mode):
        raise InstanceError("not a readable instance file (a folder)")
    if not stat.S_ISREG(mode):
        raise InstanceError("not a readable instance file (not a regular file: a FIFO, a device or a socket)")
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise InstanceError(f"not a readable instance file ({exc.strerror or exc})") from None
    with fh:  # our own handle: numpy leaks the one it opens when the archive is damaged
        try:
            head = fh.read(8)
            fh.seek(0)
        except OSError as exc:
            raise InstanceError(f"not a readable instance file ({exc.strerror or exc})") from None
        if not head:
            raise InstanceError("not a readable instance file (empty file, 0 bytes)")
        if not head.startswith(_ZIP_MAGIC):
            what = "an .npy file (one array)" if head.startswith(b"\x93NUMPY") else f"starts with {head!r}"
            raise InstanceError(f"not a readable instance file (not an .npz archive: {what})")
        with warnings.catch_warnings():
            # A damaged array header can make numpy's header parser warn (SyntaxWarning) before
            # it fails; the failure is reported below, the warning would be a second line.
            warnings.simplefilter("ignore")
            return _read_members(fh)


def _read_members(fh) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    try:
        # Anything numpy or zipfile raises here comes from the bytes of the file (truncation,
        # a bad CRC, a damaged array header or zlib stream...), never from our own code.
        with np.load(fh, allow_pickle=False) as data:
            files = set(data.files)
            missing = [k for k in _REQUIRED if k not in files]
            if missing:
                raise InstanceError(f"field '{missing[0]}' is missing")
            for key in ("format_version", *_REQUIRED):
                if key in files:
                    try:
                        value = data[key]
                    except Exception as exc:  # noqa: BLE001 - see above
                        raise InstanceError(
                            f"field '{key}': cannot read the array ({_why(exc)}); the "
                            "file is truncated, corrupted or not written by Instance.save"
                        ) from None
                    if not isinstance(value, np.ndarray):  # numpy hands back a non-.npy member as bytes
                        raise InstanceError(f"field '{key}': not an array (the archive member is not in .npy format)")
                    out[key] = value
    except InstanceError:
        raise
    except Exception as exc:  # noqa: BLE001 - see above
        raise InstanceError(f"not a readable instance file (truncated or corrupted: {_why(exc)})") from None
    if "format_version" in out:
        version = out["format_version"]
        if version.shape != () or version.dtype.kind not in "iu" or int(version) != _FORMAT_VERSION:
            raise InstanceError(
                f"field 'format_version': this version reads format {_FORMAT_VERSION}, got {version!r:.60}"
            )
    return out


def _why(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _describe(arr: np.ndarray) -> str:
    return f"dtype {arr.dtype}, shape {arr.shape}"


def _file_scalar(arr: np.ndarray, field_name: str) -> int:
    if arr.shape != () or arr.dtype.kind not in "iu":
        raise InstanceError(f"field '{field_name}': expected an integer scalar, got {_describe(arr)}")
    return int(arr)


def _file_ints(arr: np.ndarray, field_name: str) -> np.ndarray:
    """An integer field as stored: integer dtype only (``save`` writes int64)."""
    if arr.dtype.kind not in "iu":
        raise InstanceError(f"field '{field_name}': expected an integer array, got {_describe(arr)}")
    return arr


def _file_numbers(arr: np.ndarray, field_name: str) -> np.ndarray:
    if arr.dtype.kind not in "iuf":
        raise InstanceError(f"field '{field_name}': expected a float array, got {_describe(arr)}")
    return arr


def _file_meta(arr: np.ndarray) -> dict:
    if arr.shape != () or arr.dtype.kind != "U":
        raise InstanceError(f"field 'meta': expected a JSON string, got {_describe(arr)}")
    order = arr.dtype.byteorder if arr.dtype.byteorder in "<>" else "="
    codes = np.frombuffer(arr.tobytes(), dtype=np.dtype(np.uint32).newbyteorder(order))
    if np.any((codes > 0x10FFFF) | ((codes >= 0xD800) & (codes <= 0xDFFF))):  # damaged UCS-4
        raise InstanceError("field 'meta': not valid text (a character outside Unicode)")
    try:
        meta = json.loads(str(arr))
    except (ValueError, RecursionError) as exc:  # json.JSONDecodeError; nesting too deep
        raise InstanceError(f"field 'meta': not valid JSON ({exc})") from None
    if not isinstance(meta, dict):
        raise InstanceError(f"field 'meta': expected a JSON object, got {type(meta).__name__} {str(arr):.60}")
    return meta


@dataclass
class Outcome:
    """What one online run did, as compact arrays; :mod:`schedbench.scheduling.validate`
    re-derives every objective from it.

    The engine numbers its decision points **steps**: each arrival is one step, each call of
    an algorithm's slot hook is one step; ``step_time[s]`` is the slot of step s
    (non-decreasing). Per job j (original index):

    * ``arrival_step[j]``; ``dispatch_step[j]`` and ``machine[j]`` (``-1`` if never
      dispatched); ``reject_step[j]`` (``-1`` if never rejected). An immediate rejection has
      ``reject_step == arrival_step``;
    * ``completion[j]``: the instant the last unit of work was done (``nan`` if not completed;
      always ``nan`` for LoadBalancing, where nothing is processed).

    The processing trace is one row per maximal interval in which one machine worked on one
    job at its full speed: ``trace_machine``, ``trace_job``, ``trace_start``, ``trace_end``
    (instants, fractional at speed s ∉ ℕ) and ``trace_work`` (units done). :meth:`slot_log`
    cuts it into (slot, machine, job, work) rows.

    ``claimed_objective`` is the engine's own bookkeeping; the validator recomputes it.
    ``path`` says how the run was computed: ``"step"`` (the engine, slot by slot),
    ``"compiled"`` (the algorithm's compiled path, one call for the whole instance) or
    ``"whole-instance"`` (a migratory algorithm's own ``schedule_all``).
    """

    algorithm: str
    problem: str
    speed: float
    machine: np.ndarray
    arrival_step: np.ndarray
    dispatch_step: np.ndarray
    reject_step: np.ndarray
    completion: np.ndarray
    step_time: np.ndarray
    trace_machine: np.ndarray
    trace_job: np.ndarray
    trace_start: np.ndarray
    trace_end: np.ndarray
    trace_work: np.ndarray
    claimed_objective: float
    seconds: float = 0.0
    path: str = "step"  # how it ran: "step" (the engine), "compiled" (one numba call), "whole-instance"

    @property
    def rejected(self) -> np.ndarray:
        return self.reject_step >= 0

    @property
    def reject_time(self) -> np.ndarray:
        """Slot of each rejection (``nan`` if never rejected)."""
        return _time_of(self.reject_step, self.step_time)

    @property
    def dispatch_time(self) -> np.ndarray:
        """Slot of each dispatch (``nan`` if never dispatched)."""
        return _time_of(self.dispatch_step, self.step_time)

    @property
    def wasted_work(self) -> float:
        """Units processed on jobs that were rejected later (docs/models/rejection-model.md §8.4)."""
        rejected = self.reject_step[self.trace_job] >= 0 if self.trace_job.size else np.zeros(0, bool)
        return float(self.trace_work[rejected].sum())

    def slot_log(self) -> list[tuple[int, int, int, float]]:
        """The trace as (slot, machine, job, work) rows, sorted; work split at slot borders."""
        rows: dict[tuple[int, int, int], float] = {}
        for i, j, a, b, w in zip(
            self.trace_machine.tolist(),
            self.trace_job.tolist(),
            self.trace_start.tolist(),
            self.trace_end.tolist(),
            self.trace_work.tolist(),
        ):
            rate = w / (b - a) if b > a else 0.0
            t = math.floor(a)
            while t < b:
                lo, hi = max(a, t), min(b, t + 1)
                if hi > lo:
                    key = (t, i, j)
                    rows[key] = rows.get(key, 0.0) + rate * (hi - lo)
                t += 1
        return [(t, i, j, round(w, 12)) for (t, i, j), w in sorted(rows.items())]


def _time_of(step: np.ndarray, step_time: np.ndarray) -> np.ndarray:
    out = np.full(step.shape, np.nan)
    hit = step >= 0
    out[hit] = step_time[step[hit]]
    return out
