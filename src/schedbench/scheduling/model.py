"""Instances and outcomes: the plain-array contracts every other module speaks.

An :class:`Instance` is a restricted-assignment input (Roy Choudhury, Das, Garg, Kumar,
"Rejecting jobs to minimize load and maximum flow-time", SODA 2015, §2): ``m`` machines and,
per job, an integer release time, an integer size >= 1, the set of eligible machines (CSR
arrays ``indptr``/``indices``) and two weights (``w_flow`` for weighted flow time, ``w_reject``
for the weighted rejection budget). Jobs released at the same time arrive in array order.

An :class:`Outcome` is what an online run decided, per job; the validator
(:mod:`schedbench.scheduling.validate`) re-derives every objective from it.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Sequence

import numpy as np

__all__ = ["Instance", "InstanceError", "JobSpec", "Outcome", "REJECT", "HOLD"]

#: The machine index an algorithm returns to reject a job on arrival.
REJECT = -1
#: What an algorithm that declares deferred dispatch returns to keep a job and assign it later.
HOLD = -2

_FORMAT_VERSION = 1


class JobSpec(NamedTuple):
    """One job as a driver (instance replay or adversary) releases it to the engine."""

    release: int
    size: int
    eligible: Sequence[int]
    w_flow: float = 1.0
    w_reject: float = 1.0


class InstanceError(ValueError):
    """An instance (arrays or file) is malformed; the message names the job and the field."""


def _as_int_array(values: Any, field_name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InstanceError(f"field '{field_name}': expected a 1-d array, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        if not np.issubdtype(arr.dtype, np.number):
            raise InstanceError(f"field '{field_name}': expected integers, got dtype {arr.dtype}")
        bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)))
        if bad.size:
            raise InstanceError(
                f"job {int(bad[0])}: field '{field_name}' must be an integer, got {arr[bad[0]]!r}"
            )
    return arr.astype(np.int64)


def _as_weight_array(values: Any, n: int, field_name: str) -> np.ndarray:
    if values is None:
        return np.ones(n, dtype=np.float64)
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise InstanceError(
            f"field '{field_name}': expected {n} values (one per job), got shape {arr.shape}"
        )
    bad = np.flatnonzero(~np.isfinite(arr) | (arr <= 0))
    if bad.size:
        raise InstanceError(
            f"job {int(bad[0])}: field '{field_name}' must be a finite number > 0, got {arr[bad[0]]!r}"
        )
    return arr


@dataclass(frozen=True, eq=False)
class Instance:
    """A restricted-assignment instance as plain numpy arrays (see module docstring).

    Construct with :meth:`from_lists` (user-facing) or directly from arrays; both validate.
    ``meta`` records the generator name, its parameters and the seed (provenance).
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
        object.__setattr__(self, "m", int(self.m))
        release = _as_int_array(self.release, "release")
        size = _as_int_array(self.size, "size")
        n = release.shape[0]
        if size.shape[0] != n:
            raise InstanceError(
                f"field 'size': {size.shape[0]} values but 'release' has {n} (one per job)"
            )
        indptr = _as_int_array(self.indptr, "eligible.indptr")
        indices = _as_int_array(self.indices, "eligible.indices")
        if indptr.shape[0] != n + 1:
            raise InstanceError(
                f"field 'eligible.indptr': expected {n + 1} entries for {n} jobs, got {indptr.shape[0]}"
            )
        if indptr[0] != 0 or indptr[-1] != indices.shape[0]:
            raise InstanceError(
                "field 'eligible.indptr': must start at 0 and end at len(eligible.indices) "
                f"= {indices.shape[0]}, got {indptr[0]}..{indptr[-1]}"
            )
        counts = np.diff(indptr)
        if np.any(counts < 0):
            j = int(np.flatnonzero(counts < 0)[0])
            raise InstanceError(f"job {j}: field 'eligible.indptr' decreases")
        if np.any(counts == 0):
            j = int(np.flatnonzero(counts == 0)[0])
            raise InstanceError(f"job {j}: field 'eligible' is empty (a job needs an eligible machine)")
        if indices.size:
            bad = np.flatnonzero((indices < 0) | (indices >= self.m))
            if bad.size:
                j = int(np.searchsorted(indptr, bad[0], side="right") - 1)
                raise InstanceError(
                    f"job {j}: field 'eligible' has machine {int(indices[bad[0]])}, "
                    f"out of range 0..{self.m - 1}"
                )
            owner = np.repeat(np.arange(n, dtype=np.int64), counts)
            key = owner * self.m + indices
            order = np.argsort(key, kind="stable")
            dup = np.flatnonzero(np.diff(key[order]) == 0)
            if dup.size:
                j = int(owner[order[dup[0]]])
                raise InstanceError(
                    f"job {j}: field 'eligible' lists machine {int(indices[order[dup[0]]])} twice"
                )
        bad = np.flatnonzero(release < 0)
        if bad.size:
            raise InstanceError(f"job {int(bad[0])}: field 'release' must be >= 0, got {int(release[bad[0]])}")
        bad = np.flatnonzero(size < 1)
        if bad.size:
            raise InstanceError(f"job {int(bad[0])}: field 'size' must be >= 1, got {int(size[bad[0]])}")
        w_flow = _as_weight_array(self.w_flow, n, "w_flow")
        w_reject = _as_weight_array(self.w_reject, n, "w_reject")
        for name, arr in (
            ("release", release), ("size", size), ("indptr", indptr), ("indices", indices),
            ("w_flow", w_flow), ("w_reject", w_reject),
        ):
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "meta", dict(self.meta))

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
        """Build an instance from Python lists; ``eligible[j]`` lists job j's machines."""
        n = len(release)
        if len(eligible) != n:
            raise InstanceError(
                f"field 'eligible': {len(eligible)} machine lists but 'release' has {n} (one per job)"
            )
        counts = [len(e) for e in eligible]
        indptr = np.zeros(n + 1, dtype=np.int64)
        indptr[1:] = np.cumsum(counts)
        flat = [i for e in eligible for i in e]
        return cls(
            m=m,
            release=np.asarray(release),
            size=np.asarray(size),
            indptr=indptr,
            indices=np.asarray(flat, dtype=np.int64) if flat else np.zeros(0, np.int64),
            w_flow=None if w_flow is None else np.asarray(w_flow, dtype=np.float64),
            w_reject=None if w_reject is None else np.asarray(w_reject, dtype=np.float64),
            meta=meta or {},
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
                meta=np.asarray(json.dumps(self.meta, sort_keys=True)),
            )
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Instance":
        """Read and validate an instance written by :meth:`save`."""
        path = Path(path)
        try:
            data = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise InstanceError(f"{path}: not a readable instance file ({exc})") from exc
        with data:
            required = ("m", "release", "size", "indptr", "indices", "w_flow", "w_reject", "meta")
            missing = [k for k in required if k not in data.files]
            if missing:
                raise InstanceError(f"{path}: field '{missing[0]}' is missing")
            try:
                return cls(
                    m=int(data["m"]),
                    release=data["release"],
                    size=data["size"],
                    indptr=data["indptr"],
                    indices=data["indices"],
                    w_flow=data["w_flow"],
                    w_reject=data["w_reject"],
                    meta=json.loads(str(data["meta"])),
                )
            except InstanceError as exc:
                raise InstanceError(f"{path}: {exc}") from None


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
        """Units processed on jobs that were rejected later (spec §8.4)."""
        rejected = self.reject_step[self.trace_job] >= 0 if self.trace_job.size else np.zeros(0, bool)
        return float(self.trace_work[rejected].sum())

    def slot_log(self) -> list[tuple[int, int, int, float]]:
        """The trace as (slot, machine, job, work) rows, sorted; work split at slot borders."""
        rows: dict[tuple[int, int, int], float] = {}
        for i, j, a, b, w in zip(self.trace_machine.tolist(), self.trace_job.tolist(),
                                 self.trace_start.tolist(), self.trace_end.tolist(),
                                 self.trace_work.tolist()):
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
