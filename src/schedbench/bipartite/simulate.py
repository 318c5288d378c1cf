"""Bipartite load balancing with heterogeneous servers (Weng, Zhou, Srikant, "Optimal
load balancing in bipartite graphs", arXiv 2008.08830; ``docs/models/bipartite.md``) and the
van der Boor–Comte token policy (§6).

M job types arrive as Poisson processes (rates λ_m); N single-server FCFS queues with
exponential rates μ_n; type m may only join its neighbours S_m. Policies (bipartite.md §3):

========== ==================================================================================
random      uniform over S_m (``random-mu``: ∝ μ_n)
jsq         shortest queue in S_m, ties uniform
jfsq        shortest queue, ties to the fastest, then uniform [Q: "ties in favour of the fastest"]
jiq         a uniform idle server of S_m, else uniform over S_m
jfiq        the fastest idle server (ties uniform), else uniform over S_m [fallback R; option
            ``jfiq_fallback="jfsq"``]
jsq-d       d servers of S_m sampled without replacement, the shortest, ties uniform
token-oldest  van der Boor–Comte: the oldest available compatible token, else blocked
========== ==================================================================================

``ties="index"`` breaks remaining ties to the lowest server index instead (for exact CTMC
checks). Buffers are infinite unless ``buffers`` is given (jobs present, including the one in
service); an arrival routed to a full server is blocked. E[T] is computed by Little's law from
the time-average number of jobs.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from schedbench.hall.seeds import derived_seed
from schedbench.hall import arguments as arg
from schedbench.hall.params import Applies, Param, check_applies
from schedbench.bipartite.capacity import CAPACITY_BOUNDARY, carries_load
from schedbench.bipartite.kernels import (
    B_ARRIVALS,
    B_BLOCKED,
    B_FIXED,
    B_JOBS,
    B_TIME,
    OVERFLOW,
    POLICY_CODES,
    queue_kernel,
    token_kernel,
)
from schedbench.hall.stats import batch_ci

__all__ = ["BipartiteResult", "simulate_bipartite", "POLICIES", "neighbors_csr"]

POLICIES = tuple(POLICY_CODES) + ("token-oldest",)
DEFAULT_QCAP = 4096


@dataclass
class BipartiteResult:
    policy: str
    N: int
    M: int
    load: float  # Λ / Σμ
    mean_response: float
    mean_response_ci: tuple[float, float]
    blocking: float
    blocking_ci: tuple[float, float]
    mean_jobs: float
    busy_fraction: np.ndarray = field(repr=False)  # per speed class, fastest first (queue policies)
    server_jobs: np.ndarray = field(repr=False)  # mean jobs per server (token policy)
    arrivals: int = 0
    events: int = 0
    seconds: float = 0.0
    #: True if the system is unstable (see :func:`simulate_bipartite`): then ``mean_response``,
    #: its CI and ``mean_jobs`` are inf, and ``note`` says why
    unstable: bool = False
    note: str = ""


def neighbors_csr(
    neighbors, N: int, M: int, mu: np.ndarray, func: str = "neighbors_csr"
) -> tuple[np.ndarray, np.ndarray, bool]:
    """CSR of the compatibility graph with each row sorted by decreasing μ, then index.

    ``neighbors``: ``"complete"``, a list of M server lists, or a tuple (indptr, indices) (any
    tuple of exactly two arrays is read as CSR).
    Returns (indptr, indices, complete). Every type needs at least one server; server numbers
    are integers 0..N−1 (a repeated server counts once); a CSR ``indptr`` has M + 1
    non-decreasing entries from 0 to len(indices). Anything else is a ValueError naming
    ``neighbors`` (or its ``indptr``/``indices``)."""
    N = arg.integer(func, "N", N, low=1)
    M = arg.integer(func, "M", M, low=1)
    mu = arg.rate_vector(func, "mu", mu, size=N)
    if isinstance(neighbors, str):
        if neighbors != "complete":
            raise ValueError(f"{func}: neighbors: only 'complete' is a named graph, got {neighbors!r}")
        arg.check_sizes(func, "neighbors", float(M) * N, f"the complete graph on M = {M} types and N = {N} servers")
        rows = [np.arange(N)] * M
    elif isinstance(neighbors, tuple) and len(neighbors) == 2:
        indptr, indices = arg.check_csr(
            func, neighbors[0], neighbors[1], M, N, unique=False, names=("neighbors indptr", "neighbors indices")
        )
        rows = [indices[indptr[m] : indptr[m + 1]] for m in range(M)]
    else:
        if (
            not isinstance(neighbors, (list, tuple, np.ndarray))
            or isinstance(neighbors, np.ndarray)
            and neighbors.ndim == 0
        ):
            raise ValueError(
                f"{func}: neighbors must be 'complete', a list of M server lists or a "
                f"tuple (indptr, indices), got {neighbors!r:.200}"
            )
        if len(neighbors) != M:
            raise ValueError(f"{func}: neighbors: {len(neighbors)} lists for M = {M} types (the length of lam)")
        rows = []
        for m, r in enumerate(neighbors):
            if isinstance(r, (str, bytes)) or np.ndim(r) != 1:
                raise ValueError(
                    f"{func}: neighbors: type {m}'s entry must be a list of server numbers, got {r!r:.200}"
                )
            if len(r) == 0:
                raise ValueError(f"{func}: neighbors: type {m} has no compatible server")
            r = arg.integer_vector(func, f"neighbors[{m}]", r, low=-(2**62))
            rows.append(r)
    key = -mu
    out = []
    for m, r in enumerate(rows):
        r = np.unique(r)
        if r.size == 0:
            raise ValueError(f"{func}: neighbors: type {m} has no compatible server")
        if r[0] < 0 or r[-1] >= N:
            raise ValueError(
                f"{func}: neighbors: type {m} lists server {int(r[r.argmax()] if r[-1] >= N else r[0])}, "
                f"out of range 0..{N - 1} (N = {N} servers, the length of mu)"
            )
        out.append(r[np.lexsort((r, key[r]))])
    indptr = np.zeros(M + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([r.size for r in out])
    complete = all(r.size == N for r in out)
    return indptr, np.concatenate(out), complete


def _speed_classes(mu: np.ndarray) -> tuple[np.ndarray, int]:
    """Class index per server, class 0 the fastest."""
    speeds = np.unique(mu)[::-1]
    cls = np.searchsorted(-speeds, -mu)
    return cls.astype(np.int64), int(speeds.size)


# Keyword parameters that only some policies read (checked against the kernels), each with the
# policies that read it, its default and why the others do not. A non-default value for any
# other policy is an error that names it (hall.params.check_applies), never silently ignored.
_QUEUE_POLICIES = frozenset(POLICY_CODES)


def _for(policies, why: str) -> Applies:
    return Applies(by="policy", values=frozenset(policies), why=why)


POLICY_PARAMETERS = {
    # token_kernel never sees `buffers`; queue_kernel never sees `tokens`
    "buffers": Param(None, applies=_for(_QUEUE_POLICIES, "it uses 'tokens'")),
    "tokens": Param(None, applies=_for({"token-oldest"}, "it uses 'buffers'")),
    # ties_random is read only in the JSQ/JFSQ and JIQ/JFIQ branches; JSQ(d) always breaks the
    # ties of its sample uniformly; random, random-mu and the token policy have no ties
    "ties": Param(
        "random",
        applies=_for({"jsq", "jfsq", "jiq", "jfiq"}, "only 'jsq', 'jfsq', 'jiq' and 'jfiq' break ties by it"),
    ),
    # read only under `policy == JFIQ`
    "jfiq_fallback": Param("random", applies=_for({"jfiq"}, "only 'jfiq' has a fallback")),
    # the token kernel has no complete-graph fast path
    "fast_complete": Param(
        True, applies=_for(_QUEUE_POLICIES, "only the queue policies have a complete-graph fast path")
    ),
    # the kernels read `d` only under `policy == JSQD` (the sample size of JSQ(d))
    "d": Param(None, applies=_for({"jsq-d"}, "only 'jsq-d' samples d servers")),
}


def simulate_bipartite(
    mu: Sequence[float],
    lam: Sequence[float],
    neighbors,
    policy: str,
    arrivals: int,
    seed: int = 0,
    warmup: float = 20.0,
    d: int | None = None,
    buffers: Sequence[int] | int | None = None,
    batches: int = 20,
    ties: str = "random",
    jfiq_fallback: str = "random",
    tokens: Sequence[int] | int | None = None,
    fast_complete: bool = True,
) -> BipartiteResult:
    """Simulate ``policy`` (see the module table); ``arrivals`` post-warm-up arrivals in
    ``batches`` batch means; ``warmup`` in time units. For ``token-oldest``, ``tokens`` (per
    server, default 1) are the buffers and the result has blocking. ``fast_complete=False``
    makes a complete graph use the neighbour scan instead of the O(#classes) structures (the
    two must agree; tests compare them). A non-default ``d``, ``buffers``, ``tokens``, ``ties``,
    ``jfiq_fallback`` or ``fast_complete`` for a policy that does not read it is a ValueError
    (``d`` is for ``jsq-d`` only; its default ``None`` is accepted by every policy).

    Arguments are checked before any kernel runs; a bad one is a ValueError naming it: ``mu``
    (N finite rates > 0), ``lam`` (M finite rates >= 0 with a positive total), ``neighbors``
    (see :func:`neighbors_csr`: server numbers 0..N−1, CSR ``indptr`` monotone from 0 to
    len(indices), no type without a server), ``warmup`` (finite, >= 0, and at most
    :data:`~schedbench.hall.arguments.MAX_WARMUP_EVENTS` expected warm-up events
    ``warmup·(Λ + Σμ)``), ``arrivals >= batches`` (every batch needs an arrival), ``d`` (an
    integer >= 1), ``buffers``/``tokens`` (integers >= 1, one per server or one for all), and
    arrays of at most :data:`~schedbench.hall.arguments.MAX_CELLS` entries.

    **Unstable systems.** With infinite buffers (``buffers=None``, queue policies) a system that
    no policy can stabilise is not simulated: if Λ >= Σμ, if the graph cannot carry the load
    with slack (some set of types has a rate >= the total rate of the servers it may use; see
    :func:`~schedbench.bipartite.capacity.carries_load`), or if ``random``/``random-mu``
    routing sends a server a rate >= its μ, the result has ``unstable=True``, ``mean_response``
    = ``mean_jobs`` = inf (CI (inf, inf)), ``arrivals = events = 0`` and ``note`` saying why.
    A policy that is unstable on a system other policies can carry shows as a queue that grows
    past :data:`DEFAULT_QCAP` jobs during the run: the same flagged result (with the arrivals
    and events simulated until then). Finite ``buffers`` and the token policy are loss systems,
    stable at any load: they are always simulated."""
    func = "simulate_bipartite"
    mu = arg.rate_vector(func, "mu", mu)
    lam = arg.rate_vector(func, "lam", lam, allow_zero=True)
    N, M = mu.size, lam.size
    if not isinstance(policy, str) or policy not in POLICIES:
        raise ValueError(f"{func}: policy must be one of {list(POLICIES)}, got {policy!r}")
    if not isinstance(ties, str) or ties not in ("random", "index"):
        raise ValueError(f"{func}: ties must be 'random' or 'index', got {ties!r}")
    if not isinstance(jfiq_fallback, str) or jfiq_fallback not in ("random", "jfsq"):
        raise ValueError(f"{func}: jfiq_fallback must be 'random' or 'jfsq', got {jfiq_fallback!r}")
    fast_complete = arg.flag(func, "fast_complete", fast_complete)
    check_applies(
        func,
        POLICY_PARAMETERS,
        dict(
            policy=policy,
            buffers=buffers,
            tokens=tokens,
            ties=ties,
            d=d,
            jfiq_fallback=jfiq_fallback,
            fast_complete=fast_complete,
        ),
        error=ValueError,
    )
    if policy == "jsq-d":
        if d is None:
            raise ValueError(f"{func}: policy 'jsq-d' needs d >= 1, got d=None")
        d = arg.integer(func, "d", d, low=1, high=2**62, integral_float=True)
    arrivals, batches = arg.arrivals_batches(func, arrivals, batches)
    warmup = arg.real(func, "warmup", warmup, low=0.0)
    seed = arg.seed(func, seed)
    indptr, indices, complete = neighbors_csr(neighbors, N, M, mu, func=func)
    lam_tot = float(lam.sum())
    if not math.isfinite(lam_tot + float(mu.sum())):
        raise ValueError(f"{func}: the event rate Λ + Σμ overflows (mu, lam): rescale the rates")
    arg.warmup_events(func, warmup, lam_tot + float(mu.sum()), "mu, lam")
    if policy == "token-oldest":
        tok = (
            np.ones(N, dtype=np.int64)
            if tokens is None
            else arg.integer_vector(
                func, "tokens", tokens, low=1, size=N, scalar_ok=True, size_note="one per server: the length of mu"
            )
        )
        arg.check_sizes(func, "tokens", float(tok.sum()), f"{int(tok.sum())} tokens")
        arg.check_sizes(func, "neighbors", float(M) * N, f"the M x N compatibility table (M = {M}, N = {N})")
        arg.check_sizes(func, "batches", float(batches) * (B_FIXED + N), f"{batches} batches x {N} servers")
    else:
        cls, C = _speed_classes(mu)
        if buffers is None:
            buf = np.full(N, np.iinfo(np.int64).max, dtype=np.int64)
            qcap = DEFAULT_QCAP
        else:
            buf = arg.integer_vector(
                func,
                "buffers",
                buffers,
                low=1,
                high=2**62,
                size=N,
                scalar_ok=True,
                size_note="one per server: the length of mu",
            )
            qcap = int(buf.max())
        arg.check_sizes(
            func,
            "buffers" if buffers is not None else "mu",
            float(C) * (qcap + 2),
            f"{C} speed classes x a queue-length table of {qcap + 2}",
        )
        arg.check_sizes(func, "batches", float(batches) * (B_FIXED + C), f"{batches} batches x {C} speed classes")
        if buffers is None:
            why = _overload(mu, lam, indptr, indices, complete, policy)
            if why:
                return _unstable_result(policy, N, M, lam_tot, mu, C, why, 0, 0, 0.0)
    lam_cum = np.cumsum(lam) / lam_tot
    lam_cum[-1] = 1.0
    per_batch = max(1, int(arrivals) // int(batches))
    kseed = derived_seed(seed, "bipartite", policy, N, M) % (2**32 - 1)
    t0 = time.perf_counter()
    if policy == "token-oldest":
        compat = np.zeros((M, N), dtype=np.bool_)
        for m in range(M):
            compat[m, indices[indptr[m] : indptr[m + 1]]] = True
        acc, events = token_kernel(mu, tok, lam_tot, lam_cum, compat, float(warmup), int(batches), per_batch, kseed)
    else:
        acc, events, status = queue_kernel(
            mu,
            cls,
            C,
            lam_tot,
            lam_cum,
            indptr,
            indices,
            complete and fast_complete,
            POLICY_CODES[policy],
            int(d or 1),
            ties == "random",
            1 if jfiq_fallback == "jfsq" else 0,
            buf,
            qcap,
            float(warmup),
            int(batches),
            per_batch,
            kseed,
        )
        if status == OVERFLOW:
            why = (
                f"a queue exceeded {qcap} jobs: the system looks unstable "
                f"(load {lam_tot / mu.sum():.3f}); give finite buffers or a lower load"
            )
            return _unstable_result(
                policy, N, M, lam_tot, mu, C, why, int(acc[:, B_ARRIVALS].sum()), int(events), time.perf_counter() - t0
            )
    seconds = time.perf_counter() - t0
    accepted_b = acc[:, B_ARRIVALS] - acc[:, B_BLOCKED]
    if not np.all(accepted_b > 0):  # E[T] of accepted jobs is undefined (it would read inf or NaN)
        raise ValueError(
            f"{func}: every arrival was blocked in {int(np.sum(~(accepted_b > 0)))} of "
            f"{accepted_b.size} batches: E[T] is undefined; give more arrivals per batch "
            f"(arrivals / batches), lower lam, or give more buffers/tokens"
        )
    time_b = acc[:, B_TIME]
    jobs_b = acc[:, B_JOBS] / time_b
    block_b = acc[:, B_BLOCKED] / acc[:, B_ARRIVALS]
    resp_b = jobs_b / (lam_tot * (1.0 - block_b))
    resp, resp_ci = batch_ci(resp_b)
    blocking, blocking_ci = batch_ci(block_b)
    per_column = acc[:, B_FIXED:].sum(axis=0) / time_b.sum()
    if policy == "token-oldest":
        busy, server_jobs = np.full(0, np.nan), per_column
    else:
        busy, server_jobs = per_column / np.bincount(_speed_classes(mu)[0]), np.full(0, np.nan)
    return BipartiteResult(
        policy=policy,
        N=N,
        M=M,
        load=lam_tot / float(mu.sum()),
        mean_response=resp,
        mean_response_ci=resp_ci,
        blocking=blocking,
        blocking_ci=blocking_ci,
        mean_jobs=float(acc[:, B_JOBS].sum() / time_b.sum()),
        busy_fraction=busy,
        server_jobs=server_jobs,
        arrivals=int(acc[:, B_ARRIVALS].sum()),
        events=int(events),
        seconds=seconds,
    )


def _overload(
    mu: np.ndarray, lam: np.ndarray, indptr: np.ndarray, indices: np.ndarray, complete: bool, policy: str
) -> str:
    """Why no stationary regime exists with infinite buffers ("" if the checks pass): Λ >= Σμ,
    a graph that cannot carry the load with slack, or static random routing that overloads a
    server (``random``: uniform over S_m, ``random-mu``: ∝ μ_n)."""
    lam_tot, mu_tot = float(lam.sum()), float(mu.sum())
    if lam_tot >= mu_tot:
        return f"overloaded: Λ/Σμ = {lam_tot / mu_tot:.6g} >= 1, no policy is stable (give finite buffers for a loss system)"
    if lam_tot >= mu_tot * (1.0 - CAPACITY_BOUNDARY):  # e.g. a load of 0.9999999999999999
        return (
            f"at the capacity boundary: Λ/Σμ = {lam_tot / mu_tot!r} is 1 up to a relative {CAPACITY_BOUNDARY:g} "
            "(rounding): critically loaded, no policy has a steady state"
        )
    if not complete:
        ok, why = carries_load(mu, lam, indptr, indices)
        if not ok:
            return why
    if policy in ("random", "random-mu"):
        counts = np.diff(indptr)
        types = np.repeat(np.arange(lam.size), counts)
        if policy == "random":
            share = lam[types] / counts[types]
        else:
            mu_of_type = np.add.reduceat(mu[indices], indptr[:-1])
            share = lam[types] * mu[indices] / mu_of_type[types]
        a = np.bincount(indices, weights=share, minlength=mu.size)
        over = np.flatnonzero(a >= mu)
        if over.size:
            n = int(over[0])
            rule = "uniform" if policy == "random" else "μ-proportional"
            return f"{rule} routing overloads server {n}: it receives rate {a[n]:.6g} >= μ = {mu[n]:.6g}"
    return ""


def _unstable_result(
    policy: str,
    N: int,
    M: int,
    lam_tot: float,
    mu: np.ndarray,
    C: int,
    why: str,
    arrivals: int,
    events: int,
    seconds: float,
) -> BipartiteResult:
    inf = float("inf")
    return BipartiteResult(
        policy=policy,
        N=N,
        M=M,
        load=lam_tot / float(mu.sum()),
        mean_response=inf,
        mean_response_ci=(inf, inf),
        blocking=0.0,
        blocking_ci=(0.0, 0.0),
        mean_jobs=inf,
        busy_fraction=np.full(C, np.nan),
        server_jobs=np.full(0, np.nan),
        arrivals=arrivals,
        events=events,
        seconds=seconds,
        unstable=True,
        note=why,
    )
