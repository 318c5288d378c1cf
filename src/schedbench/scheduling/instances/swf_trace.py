"""Trace-driven restricted assignment: windows of a real workload log (SWF) with eligibility by
data locality.

The rejection model (docs/models/rejection-model.md §1.1) defines the input (release r_j, size p_j,
eligible set S_j) but says nothing about real traces: this mapping is our decision, made so that
a real arrival process and real, heavy-tailed durations drive the online algorithms while the
eligible sets stay those of restricted assignment.

Traces: parameter ``trace`` names one of the logs bundled in ``resources/traces/`` (provenance,
acknowledgements and citations in ``resources/traces/README.md``), see :data:`TRACES`; the
default is the Parallel Workloads Archive's NASA Ames iPSC/860 log, cleaned version 3.1.
Parameter ``path`` is the file read: left out, the file of ``trace``; given, a log of your own
(then leave ``trace`` at its default: a non-default ``trace`` with a ``path`` naming another
file is an error). The seven logs (records; usable = submit and run time present):

==============  =========  ========  ================================================
``trace``       records    usable    log
==============  =========  ========  ================================================
nasa-ipsc          18,239    18,239  NASA Ames iPSC/860, 1993, 128 nodes
kth-sp2            27,992    27,992  KTH IBM SP2, 1996-97, 100 nodes
llnl-thunder      121,039   119,849  LLNL Thunder (Linux), 2007, 1,002 nodes
hpc2n             202,876   202,876  HPC2N Seth (Linux), 2002-06, 240 nodes
sdsc-blue         243,306   232,562  SDSC Blue Horizon (IBM SP), 2000-03, 144 nodes
cea-curie         312,826   312,826  CEA Curie, 2011-12, 5,544 nodes
lublin-256         10,000    10,000  synthetic, Lublin-Feitelson model, 256 nodes
==============  =========  ========  ================================================

Mapping, per SWF record (fields as in :mod:`schedbench.scheduling.instances._swf`):

* **Skipped:** records whose submit time (field 2) or run time (field 4) is missing (−1; any
  negative value counts as missing). The NASA log has none: 18,239 records, 0 skipped. A log
  whose records are all skipped is refused, naming the file and the counts.
* **Order:** the usable records sorted by submit time, ties in file order (stable sort). The
  SWF spec already asks for this order; the sort only makes it a guarantee.
* **Window:** instance ``index`` takes the usable records ``start + index·n ..
  start + (index+1)·n − 1`` (the index-th block of n consecutive jobs after ``start``), so the
  instances of an experiment are disjoint, consecutive stretches of the log. A window that runs
  past the end of the log is a :class:`FamilyParameterError`; with 18,239 records and the
  default n = 1000 that allows indices 0..17. ``n = 0`` takes every record from ``start`` on,
  for every index (the instances then differ only in the eligibility draw).
* **Release:** r_j = ⌊(submit_j − submit_first)/time_unit⌋, with submit_first the first submit
  time of the window (so every instance starts at 0). In the NASA log the "submit" times are
  really start times (header note), so the releases carry no queueing of the original system.
* **Release at a target load** (``load`` = ρ given, instead of ``time_unit``): the window is
  stretched or compressed in time so that its offered load Σ_j p_j / (m·H) is ρ, with
  H = max(1, round(Σp/(m·ρ))) slots and r_j = ⌊(submit_j − submit_first)·(H − 1)/span⌋
  (:func:`scaled_releases`). A log's own pace depends on its machine (128 to 5,544 nodes, here
  m machines of one processor each), so the same ``time_unit`` gives some windows a load near 0
  — every job alone, OPT = max p_j, every algorithm at the same objective — and others a load
  far above 1; a target load makes windows of different logs comparable and contended.
* **Size:** p_j = max(1, ⌈run_j/size_unit⌉), clipped to ``max_size`` if ``max_size`` > 0.
  A run time of 0 (< 0.5 s in SWF) gives size 1. The number of processors (field 5) is not
  used: each job becomes a sequential job on one machine.
* **Eligibility (data locality):** every job of one user id (field 12) may run on the same d of
  the m machines ("where that user's data lives"), a uniform random d-subset drawn from the
  family's seeded stream once per user, in order of the user's first appearance in the window
  (row k of ``random_subsets(rng, users, m, d)`` goes to the k-th user to appear), so the draw
  is reproducible and does not depend on user id values. A record without a user id (−1) gets
  its own subset, drawn at its position in that order.
* Weights w_flow and w_reject are 1.
* **Size** (``Family.shape``), exact: n jobs (n = 0: the usable records from ``start`` on,
  counted in the log, which the parameter check reads anyway), m machines, jobs·d eligibility
  entries.

``path`` is a string; a relative path is resolved against the repository root (four levels
above this file's folder), not the working directory, so the bundled files are found wherever
the pipeline runs and instance provenance (``meta["params"]``, which holds both ``trace`` and the
resolved ``path``) stays portable. The log
is parsed once per process (cached by path, modification time and size). Random stream: only
the eligible sets use it.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import numpy as np

from schedbench.scheduling.instances._swf import SwfFormatError, load_swf
from schedbench.hall.params import Derived, Param
from schedbench.scheduling.instances.base import Family, FamilyParameterError
from schedbench.scheduling.instances.random_restricted import random_subsets
from schedbench.scheduling.model import Instance
from schedbench.scheduling.registry import register_family

NAME = "swf-trace"
#: The repository root: src/schedbench/scheduling/instances/ is four levels below it.
REPO_ROOT = Path(__file__).resolve().parents[4]
#: The bundled logs by name (parameter ``trace``), files relative to :data:`REPO_ROOT`.
TRACES: dict[str, str] = {
    "nasa-ipsc": "resources/traces/NASA-iPSC-1993-3.1-cln.swf.gz",
    "kth-sp2": "resources/traces/KTH-SP2-1996-2.1-cln.swf.gz",
    "llnl-thunder": "resources/traces/LLNL-Thunder-2007-1.1-cln.swf.gz",
    "hpc2n": "resources/traces/HPC2N-2002-2.1-cln.swf.gz",
    "sdsc-blue": "resources/traces/SDSC-BLUE-2000-4.2-cln.swf.gz",
    "cea-curie": "resources/traces/CEA-Curie-2011-2.1-cln.swf.gz",
    "lublin-256": "resources/traces/lublin_256.swf.gz",
}
#: The default trace's name and file.
DEFAULT_NAME = "nasa-ipsc"
DEFAULT_TRACE = TRACES[DEFAULT_NAME]


def _error(text: str) -> FamilyParameterError:
    return FamilyParameterError(f"family '{NAME}': {text}")


def trace_path(path: str) -> Path:
    """The file a ``path`` parameter names: absolute as given, relative to :data:`REPO_ROOT`."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else REPO_ROOT / p


@dataclasses.dataclass(frozen=True)
class TraceJobs:
    """The usable records of a log, sorted by submit time (ties in file order)."""

    submit: np.ndarray  # seconds (float64)
    run: np.ndarray  # seconds (float64)
    user: np.ndarray  # user id, −1 if missing (int64)
    record: np.ndarray  # row in the parsed log (file order) of each usable job
    total: int  # records in the log
    skipped: int  # records skipped (submit or run time missing)
    no_submit: int = 0  # records without a submit time (−1 or any negative value)
    no_run: int = 0  # records without a run time (−1 or any negative value)


def trace_jobs(path: str) -> TraceJobs:
    """The usable, sorted jobs of the trace named by ``path`` (see the module docstring)."""
    log = load_swf(trace_path(path))
    return _trace_jobs(log)


@functools.lru_cache(maxsize=8)
def _trace_jobs(log) -> TraceJobs:
    submit, run, user = log["submit_time"], log["run_time"], log["user_id"]
    keep = np.flatnonzero((submit >= 0) & (run >= 0))
    keep = keep[np.argsort(submit[keep], kind="stable")]
    out = TraceJobs(
        submit[keep],
        run[keep],
        user[keep],
        keep,
        len(log),
        len(log) - keep.size,
        int(np.count_nonzero(submit < 0)),
        int(np.count_nonzero(run < 0)),
    )
    for arr in (out.submit, out.run, out.user, out.record):
        arr.setflags(write=False)
    return out


def _named(p: dict) -> str:
    """How errors name the file: by 'trace' when it is the bundled file of the trace, else by 'path'."""
    if trace_path(p["path"]) == trace_path(TRACES[p["trace"]]):
        return f"parameter 'trace' = {p['trace']!r}"
    return f"parameter 'path' = {p['path']!r}"


def _load(p: dict) -> TraceJobs:
    """:func:`trace_jobs`, with file and format errors reported as errors of 'trace' or 'path'."""
    try:
        return trace_jobs(p["path"])
    except (OSError, SwfFormatError) as exc:
        raise _error(f"{_named(p)}: cannot read the trace {trace_path(p['path'])} ({exc})") from None


def window(jobs: TraceJobs, index: int, start: int, n: int) -> tuple[int, int]:
    """The usable-record range [lo, hi) of instance ``index``."""
    total = jobs.submit.size
    if n == 0:
        return start, total
    lo, hi = start + index * n, start + (index + 1) * n
    if hi > total:
        fits = max(0, (total - start) // n)
        raise _error(
            f"instance index {index} needs usable records {lo}..{hi - 1} (window = start + index·n "
            f"with 'start' = {start}, 'n' = {n}), but the trace has {total}: "
            f"with these 'start' and 'n' use at most {fits} instances (indices 0..{fits - 1})"
        )
    return lo, hi


def user_subsets(rng: np.random.Generator, user: np.ndarray, m: int, d: int) -> np.ndarray:
    """One row of d machines per job: the same random d-subset for every job of a user.

    Subsets are drawn once per user in order of first appearance; a job without a user id (< 0)
    counts as a user of its own.
    """
    n = user.size
    key = np.where(user >= 0, user, -1 - np.arange(n, dtype=np.int64))
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return random_subsets(rng, order.size, m, d)[rank[inverse.reshape(-1)]]


def _generate(
    rng: np.random.Generator,
    trace: str,
    path: str,
    m: int,
    d: int,
    n: int,
    start: int,
    time_unit: int,
    size_unit: int,
    max_size: int,
    load: float | None = None,
    *,
    index: int,
) -> Instance:
    jobs = _load({"trace": trace, "path": path})
    lo, hi = window(jobs, index, start, n)
    submit, run, user = jobs.submit[lo:hi], jobs.run[lo:hi], jobs.user[lo:hi]
    size = np.maximum(1, np.ceil(run / size_unit)).astype(np.int64)
    if max_size > 0:
        size = np.minimum(size, max_size)
    if load is None:
        release = np.floor_divide(submit - submit[0], time_unit).astype(np.int64)
    else:
        release = scaled_releases(submit, int(size.sum()), m, load)
    eligible = user_subsets(rng, user, m, d)
    count = hi - lo
    indptr = np.arange(0, count * d + 1, d, dtype=np.int64)
    return Instance(m, release, size, indptr, eligible.reshape(-1), None, None)


def scaled_releases(submit: np.ndarray, total_size: int, m: int, load: float) -> np.ndarray:
    """Releases of a window stretched or compressed to an offered load: H = max(1, round(Σp /
    (m·load))) slots, r_j = ⌊(submit_j − submit_first)·(H − 1)/span⌋ with span the window's
    submit span in seconds, so r spans 0..H − 1 and Σp/(m·H) is ``load`` up to the rounding of
    H. The order and the relative gaps of the log's arrivals are kept; a window submitted all
    at once gets r = 0."""
    horizon = max(1, round(total_size / (m * load)))
    span = float(submit[-1] - submit[0])
    if span <= 0 or horizon == 1:
        return np.zeros(submit.size, dtype=np.int64)
    scaled = np.floor((submit - submit[0]).astype(np.float64) * ((horizon - 1) / span))
    return np.minimum(scaled, horizon - 1).astype(np.int64)


def _size(p: dict) -> tuple[int, int, int]:
    """Exact: n jobs (n = 0: every usable record from 'start' on; the log is parsed once per
    process and already read by the check), m machines, d eligible machines per job."""
    n = p["n"] if p["n"] > 0 else _load(p).submit.size - p["start"]
    return n, p["m"], n * p["d"]


def _check(p: dict) -> None:
    if p["trace"] != DEFAULT_NAME and trace_path(p["path"]) != trace_path(TRACES[p["trace"]]):
        raise _error(
            f"parameters 'trace' = {p['trace']!r} and 'path' = {p['path']!r} name different logs: set "
            f"'trace' for a bundled log ({TRACES[p['trace']]}), or 'path' alone for a log of your own"
        )
    if p["d"] > p["m"]:
        raise _error(f"parameter 'd' = {p['d']} exceeds 'm' = {p['m']}")
    if p["load"] is not None and p["time_unit"] != FAMILY_PARAMETERS["time_unit"].default:
        raise _error(
            f"parameter 'time_unit' = {p['time_unit']} does not apply with 'load' = {p['load']} (the releases "
            "are scaled to the load); give one of them"
        )
    jobs = _load(p)  # a missing or malformed trace stops the config check, naming 'trace' or 'path'
    total = jobs.submit.size
    if total == 0:
        raise _error(
            f"{_named(p)}: the trace {trace_path(p['path'])} has no usable record: all {jobs.total} job records "
            f"are skipped ({jobs.no_submit} without a submit time, {jobs.no_run} without a run time; a missing "
            "or negative submit or run time skips a record), so no instance can be made"
        )
    if p["start"] >= total:
        raise _error(
            f"parameter 'start' = {p['start']} is past the end of the trace ({_named(p)}): the file has "
            f"{jobs.total} job records, {total} of them usable (a missing submit or run time skips a record), "
            f"so 'start' <= {total - 1}"
        )
    if p["n"] > total - p["start"]:
        raise _error(
            f"parameter 'n' = {p['n']} exceeds the {total - p['start']} usable records from 'start' = {p['start']} on"
        )


FAMILY_PARAMETERS = {
    "trace": Param(
        type=str,
        default=DEFAULT_NAME,
        choices=tuple(TRACES),
        doc="bundled workload log (resources/traces/README.md): NASA iPSC/860, KTH SP2, LLNL Thunder, HPC2N, "
        "SDSC Blue Horizon, CEA Curie, or the synthetic Lublin-Feitelson log of 256 nodes",
    ),
    "path": Param(
        type=str,
        derive=Derived(lambda v: TRACES[v["trace"]], "the file of trace"),
        doc="SWF log read (.swf or .swf.gz); relative paths are resolved against the repository root; "
        "set it only for a log of your own (with trace left at its default)",
    ),
    "m": Param(type=int, default=64, min=1, doc="machines"),
    "d": Param(type=int, default=2, min=1, doc="eligible machines per user (<= m)"),
    "n": Param(
        type=int,
        default=1000,
        min=0,
        doc="jobs per instance: instance i = usable records start+i·n .. start+(i+1)·n-1; 0 = all records from start",
    ),
    "start": Param(type=int, default=0, min=0, doc="first usable record (0-based, submit order) of instance 0"),
    "time_unit": Param(
        type=int, default=60, min=1, doc="seconds per time slot: r = ⌊(submit − first submit)/time_unit⌋"
    ),
    "size_unit": Param(type=int, default=60, min=1, doc="seconds per unit of size: p = max(1, ⌈run/size_unit⌉)"),
    "max_size": Param(type=int, default=0, min=0, doc="clip sizes to at most max_size (0 = no clip)"),
    "load": Param(
        type=float,
        default=None,
        min=0,
        min_open=True,
        max=10,
        doc="offered load Σp/(m·H) the window's releases are scaled to (H slots; the arrivals' order and "
        "relative gaps kept; replaces time_unit); null: releases from time_unit",
    ),
}

FAMILY = register_family(
    Family(
        name=NAME,
        parameters=FAMILY_PARAMETERS,
        generator=_generate,
        sized=lambda p: p["max_size"] != 1,  # max_size = 1 makes every size 1
        check=_check,
        size=_size,
        uses_index=True,
        data_files=lambda p: [str(trace_path(p["path"]))],
        doc=__doc__.split("\n\n")[0],
    )
)
