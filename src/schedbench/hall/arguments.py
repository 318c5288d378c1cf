"""Argument checks shared by the queueing APIs (docs/hostile-input.md).

Every public queueing function checks its arguments here, in Python, before any numba kernel or
solver runs: a bad argument is a ``ValueError`` whose message starts with the function and names
the argument (``"simulate_bipartite: mu: rates must be > 0 and finite, got nan at index 0"``).
Without these checks a NaN or inf rate hangs a kernel (a clock that never advances) or crashes it
(a NaN speed indexes past an array), and an out-of-range CSR array is silently misread.
Scalar arguments are checked by the one parameter vocabulary, :class:`schedbench.hall.params.Param`
(:func:`integer`, :func:`real` and :func:`flag` are its shorthands); arrays, CSR graphs and
sizes have their own checks here.

Bounds (documented in each function that uses them; all far above the pipeline's sizes):

* :data:`MAX_WARMUP_EVENTS` — warm-up length × largest event rate: the warm-up is in time units,
  so a huge warm-up or huge rates would run a practically endless warm-up;
* :data:`MAX_CELLS` — the largest array a simulator or generator may allocate (entries);
* :data:`MAX_ARRIVALS` — arrivals must fit the kernels' 64-bit counters;
* :data:`MAX_BATCHES` — batch means need tens of batches, not millions.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from schedbench.hall.params import Param, check_value

__all__ = [
    "MAX_WARMUP_EVENTS",
    "MAX_CELLS",
    "MAX_ARRIVALS",
    "MAX_BATCHES",
    "integer",
    "real",
    "rate",
    "flag",
    "seed",
    "rate_vector",
    "integer_vector",
    "check_csr",
    "check_sizes",
    "warmup_events",
    "arrivals_batches",
    "finite_result",
]

#: the largest expected number of warm-up events (warm-up time × largest total event rate)
MAX_WARMUP_EVENTS = 10**10
#: the largest array (entries) a simulator, an exact solver or a graph generator may allocate
MAX_CELLS = 10**8
#: the largest number of arrivals (the kernels count in int64)
MAX_ARRIVALS = 2**62
#: the largest number of batch means
MAX_BATCHES = 10**5


def _fail(func: str, name: str, what: str, value: Any) -> ValueError:
    return ValueError(f"{func}: {name} {what}, got {value!r}")


def integer(
    func: str, name: str, value: Any, low: int | None = None, high: int | None = None, integral_float: bool = False
) -> int:
    """``value`` as an int in [low, high]. Booleans are refused; floats only when
    ``integral_float`` and they are whole numbers (never silently truncated)."""
    return check_value(
        func, name, Param(type=int, min=low, max=high, nullable=False, integral_float=integral_float), value
    )


def real(
    func: str,
    name: str,
    value: Any,
    low: float | None = None,
    low_open: bool = False,
    high: float | None = None,
    high_open: bool = False,
) -> float:
    """``value`` as a finite float (NaN and ±inf refused) in the given interval."""
    return check_value(
        func, name, Param(type=float, min=low, min_open=low_open, max=high, max_open=high_open, nullable=False), value
    )


def rate(func: str, name: str, value: Any) -> float:
    """A rate: finite, > 0, and with a finite reciprocal (a mean time that does not overflow)."""
    out = real(func, name, value, low=0.0, low_open=True)
    if not math.isfinite(1.0 / out):
        raise _fail(func, name, "is too small (its reciprocal overflows)", value)
    return out


def flag(func: str, name: str, value: Any) -> bool:
    return check_value(func, name, Param(type=bool, nullable=False), value)


def seed(func: str, value: Any) -> int:
    """A base seed: an integer >= 0 (a float or NaN seed would be hashed as text, silently)."""
    return integer(func, "seed", value, low=0)


def _as_float_array(func: str, name: str, values: Any) -> np.ndarray:
    if isinstance(values, (str, bytes)):
        raise _fail(func, name, "must be a 1-D sequence of numbers", values)
    try:
        arr = np.asarray(values)
    except Exception:  # ragged nesting and the like
        raise _fail(func, name, "must be a 1-D sequence of numbers", values) from None
    if arr.dtype == np.bool_ or arr.dtype.kind not in "iuf":
        raise _fail(func, name, "must be a 1-D sequence of numbers", values)
    return arr.astype(np.float64)


def rate_vector(func: str, name: str, values: Any, allow_zero: bool = False, size: int | None = None) -> np.ndarray:
    """A non-empty 1-D float array of finite rates, each > 0 (or >= 0 with a positive, finite
    total when ``allow_zero``); ``size`` fixes the length."""
    arr = _as_float_array(func, name, values)
    if arr.ndim != 1 or arr.size == 0:
        raise _fail(func, name, f"must be a non-empty 1-D sequence of rates (shape {arr.shape})", values)
    if size is not None and arr.size != size:
        raise _fail(func, name, f"must have {size} entries, not {arr.size}", values)
    bad = ~np.isfinite(arr) | ((arr < 0) if allow_zero else (arr <= 0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{func}: {name}: rates must be {'>= 0' if allow_zero else '> 0'} and finite, "
            f"got {float(arr[i])!r} at index {i}"
        )
    with np.errstate(over="ignore", divide="ignore"):
        total = float(arr.sum())
        if not math.isfinite(total) or not total > 0 or not math.isfinite(1.0 / total):
            raise ValueError(f"{func}: {name}: the total rate must be positive and finite, got {total!r}")
        if not allow_zero and not np.isfinite(1.0 / arr).all():
            raise ValueError(f"{func}: {name}: a rate is too small (its reciprocal overflows)")
    return arr


def integer_vector(
    func: str,
    name: str,
    values: Any,
    low: int,
    high: int | None = None,
    size: int | None = None,
    scalar_ok: bool = False,
    size_note: str = "",
) -> np.ndarray:
    """A 1-D int64 array of whole numbers in [low, high] (floats only if whole; NaN refused);
    a scalar is broadcast to ``size`` when ``scalar_ok``."""
    arr = _as_float_array(func, name, values) if not _is_int_array(values) else np.asarray(values)
    if arr.ndim == 0 and scalar_ok and size is not None:
        arr = np.full(size, arr[()])
    if arr.ndim != 1 or (size is not None and arr.size != size):
        want = f"{size} entries" if size is not None else "a 1-D sequence"
        raise _fail(
            func,
            name,
            f"must be {'an integer or ' if scalar_ok else ''}{want} of integers"
            f"{' (' + size_note + ')' if size_note else ''} (shape {arr.shape})",
            values,
        )
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{func}: {name}: entries must be integers, got {float(arr[i])!r} at index {i}")
    if high is None or high > 2**62:
        high = 2**62  # and int64 must hold every entry
    low = max(low, -(2**62))
    if arr.size:
        lo_i = int(np.argmin(arr))
        if arr[lo_i] < low:
            raise ValueError(f"{func}: {name}: entries must be >= {low}, got {arr[lo_i].item()!r} at index {lo_i}")
        hi_i = int(np.argmax(arr))
        if arr[hi_i] > high:
            raise ValueError(f"{func}: {name}: entries must be <= {high}, got {arr[hi_i].item()!r} at index {hi_i}")
    return arr.astype(np.int64)


def _is_int_array(values: Any) -> bool:
    if isinstance(values, np.ndarray):
        return values.dtype.kind in "iu"
    if isinstance(values, numbers.Integral) and not isinstance(values, (bool, np.bool_)):
        return True
    return False


def check_csr(
    func: str,
    indptr: Any,
    indices: Any,
    M: int,
    N: int,
    unique: bool = True,
    names: tuple[str, str] = ("indptr", "indices"),
) -> tuple[np.ndarray, np.ndarray]:
    """A CSR compatibility graph over M types and N servers: ``indptr`` has M + 1 non-decreasing
    entries from 0 to len(indices), ``indices`` are server numbers 0..N−1, every type has at least
    one server and (``unique``) lists none twice. Returns int64 copies."""
    p_name, i_name = names
    ip = integer_vector(func, p_name, indptr, low=0)
    ix = integer_vector(func, i_name, indices, low=-(2**62))
    if ip.size != M + 1:
        raise ValueError(
            f"{func}: {p_name} must have M + 1 = {M + 1} entries (one more than the "
            f"number of job types, the length of lam), got {ip.size}"
        )
    steps = np.diff(ip)
    if (steps < 0).any():
        m = int(np.flatnonzero(steps < 0)[0])
        raise ValueError(
            f"{func}: {p_name} must be non-decreasing, got {p_name}[{m}] = {int(ip[m])} > "
            f"{p_name}[{m + 1}] = {int(ip[m + 1])}"
        )
    if ip[0] != 0 or ip[-1] != ix.size:
        raise ValueError(
            f"{func}: {p_name} must start at 0 and end at len({i_name}) = {ix.size}, got {int(ip[0])} ... {int(ip[-1])}"
        )
    if (steps == 0).any():
        m = int(np.flatnonzero(steps == 0)[0])
        raise ValueError(f"{func}: {p_name}: type {m} has no compatible server (empty neighbour set)")
    bad = (ix < 0) | (ix >= N)
    if bad.any():
        e = int(np.flatnonzero(bad)[0])
        m = int(np.searchsorted(ip, e, side="right") - 1)
        raise ValueError(
            f"{func}: {i_name}: type {m} lists server {int(ix[e])}, out of range 0..{N - 1} "
            f"(N = {N} servers, the length of mu)"
        )
    if unique and ix.size:
        rows = np.repeat(np.arange(M), steps)
        order = np.lexsort((ix, rows))
        same = (np.diff(rows[order]) == 0) & (np.diff(ix[order]) == 0)
        if same.any():
            e = order[int(np.flatnonzero(same)[0])]
            raise ValueError(f"{func}: {i_name}: type {int(rows[e])} lists server {int(ix[e])} twice")
    return ip, ix


def check_sizes(func: str, name: str, cells: float, what: str) -> None:
    """Refuse an allocation of more than :data:`MAX_CELLS` entries before making it."""
    if cells > MAX_CELLS:
        raise ValueError(
            f"{func}: {name} too large: {what} would need {cells:.3g} entries (the bound is {MAX_CELLS:.0e})"
        )


def warmup_events(func: str, warmup: float, event_rate: float, rates: str) -> None:
    """Refuse a warm-up whose expected number of events exceeds :data:`MAX_WARMUP_EVENTS`
    (``rates`` names the rate arguments that make up ``event_rate``)."""
    if warmup == 0:
        return
    events = warmup * event_rate
    if not events <= MAX_WARMUP_EVENTS:
        raise ValueError(
            f"{func}: warmup = {warmup!r} time units at an event rate of up to "
            f"{event_rate:.3g} is about {events:.3g} events (the bound is "
            f"{MAX_WARMUP_EVENTS:.0e}): shorten the warm-up or rescale the rates "
            f"({rates}); the warm-up is in time units, not events"
        )


def arrivals_batches(func: str, arrivals: Any, batches: Any) -> tuple[int, int]:
    """``arrivals`` post-warm-up arrivals in ``batches`` batch means: each batch needs at least
    one arrival, so ``arrivals >= batches`` (else the kernels would silently run more)."""
    batches = integer(func, "batches", batches, low=2, high=MAX_BATCHES)
    arrivals = integer(func, "arrivals", arrivals, low=1, high=MAX_ARRIVALS)
    if arrivals < batches:
        raise ValueError(
            f"{func}: arrivals = {arrivals} is less than batches = {batches}: every "
            f"batch needs at least one arrival (give arrivals >= batches, ideally "
            f"thousands per batch)"
        )
    return arrivals, batches


def finite_result(func: str, what: str, names: str, *values: Any) -> None:
    """An exact solver's answer must be finite: rates far apart can overflow a solve; say so
    (naming the rate arguments ``names``) instead of returning NaN or inf."""
    for v in values:
        if not np.all(np.isfinite(np.asarray(v, dtype=np.float64))):
            raise ValueError(
                f"{func}: {what} is not finite (NaN or inf): the rates ({names}) are too "
                f"far apart for this solver (or every arrival is blocked); rescale them"
            )
