"""Bipartite load balancing with heterogeneous servers (seed 003: Weng, Zhou, Srikant, "Optimal
load balancing in bipartite graphs", arXiv 2008.08830; spec ``queueing-models.md`` §2) and the
van der Boor–Comte token policy (§3.1).

M job types arrive as Poisson processes (rates λ_m); N single-server FCFS queues with
exponential rates μ_n; type m may only join its neighbours S_m. Policies (spec §2.3):

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

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from schedbench.seeds import derived_seed
from schedbench.queueing.bipartite.kernels import (B_ARRIVALS, B_BLOCKED, B_FIXED, B_JOBS, B_TIME, OVERFLOW, POLICY_CODES,
                                queue_kernel, token_kernel)
from schedbench.queueing.estimators import batch_ci

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


def neighbors_csr(neighbors, N: int, M: int, mu: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """CSR of the compatibility graph with each row sorted by decreasing μ, then index.

    ``neighbors``: ``"complete"``, a list of M server lists, or a tuple (indptr, indices).
    Returns (indptr, indices, complete). Every type needs at least one server."""
    if isinstance(neighbors, str):
        if neighbors != "complete":
            raise ValueError(f"neighbors: only 'complete' is a named graph, got {neighbors!r}")
        rows = [np.arange(N)] * M
    elif isinstance(neighbors, tuple) and len(neighbors) == 2:
        indptr, indices = (np.asarray(a, dtype=np.int64) for a in neighbors)
        if indptr.shape != (M + 1,):
            raise ValueError(f"neighbors: indptr must have M + 1 = {M + 1} entries, got {indptr.shape}")
        rows = [indices[indptr[m]:indptr[m + 1]] for m in range(M)]
    else:
        if len(neighbors) != M:
            raise ValueError(f"neighbors: {len(neighbors)} lists for M = {M} types")
        rows = [np.asarray(r, dtype=np.int64) for r in neighbors]
    key = -mu
    out = []
    for m, r in enumerate(rows):
        r = np.unique(r)
        if r.size == 0:
            raise ValueError(f"neighbors: type {m} has no compatible server")
        if r[0] < 0 or r[-1] >= N:
            raise ValueError(f"neighbors: type {m} lists server {int(r[r.argmax()] if r[-1] >= N else r[0])}, out of range 0..{N - 1}")
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


# Keyword parameters that only some policies read (checked against the kernels): name ->
# (the policies that read it, its default, why the others do not). A non-default value for any
# other policy is an error that names it, never silently ignored.
_QUEUE_POLICIES = frozenset(POLICY_CODES)
_POLICY_PARAMETERS = {
    # token_kernel never sees `buffers`; queue_kernel never sees `tokens`
    "buffers": (_QUEUE_POLICIES, None, "it uses 'tokens'"),
    "tokens": (frozenset({"token-oldest"}), None, "it uses 'buffers'"),
    # ties_random is read only in the JSQ/JFSQ and JIQ/JFIQ branches; JSQ(d) always breaks the
    # ties of its sample uniformly; random, random-mu and the token policy have no ties
    "ties": (frozenset({"jsq", "jfsq", "jiq", "jfiq"}), "random",
             "only 'jsq', 'jfsq', 'jiq' and 'jfiq' break ties by it"),
    # read only under `policy == JFIQ`
    "jfiq_fallback": (frozenset({"jfiq"}), "random", "only 'jfiq' has a fallback"),
    # the token kernel has no complete-graph fast path
    "fast_complete": (_QUEUE_POLICIES, True, "only the queue policies have a complete-graph fast path"),
    # the kernels read `d` only under `policy == JSQD` (the sample size of JSQ(d))
    "d": (frozenset({"jsq-d"}), None, "only 'jsq-d' samples d servers"),
}


def _check_policy_parameters(policy: str, values: dict) -> None:
    for name, (policies, default, why) in _POLICY_PARAMETERS.items():
        value = values[name]
        is_default = value is None if default is None else (value is not None and value == default)
        if policy not in policies and not is_default:
            raise ValueError(f"simulate_bipartite: parameter {name!r} does not apply to policy "
                             f"{policy!r} ({why}); got {name}={value!r}")


def simulate_bipartite(mu: Sequence[float], lam: Sequence[float], neighbors, policy: str,
                       arrivals: int, seed: int = 0, warmup: float = 20.0, d: int | None = None,
                       buffers: Sequence[int] | int | None = None, batches: int = 20,
                       ties: str = "random", jfiq_fallback: str = "random",
                       tokens: Sequence[int] | None = None, fast_complete: bool = True) -> BipartiteResult:
    """Simulate ``policy`` (see the module table); ``arrivals`` post-warm-up arrivals in
    ``batches`` batch means; ``warmup`` in time units. For ``token-oldest``, ``tokens`` (per
    server, default 1) are the buffers and the result has blocking. ``fast_complete=False``
    makes a complete graph use the neighbour scan instead of the O(#classes) structures (the
    two must agree; tests compare them). A non-default ``d``, ``buffers``, ``tokens``, ``ties``,
    ``jfiq_fallback`` or ``fast_complete`` for a policy that does not read it is a ValueError
    (``d`` is for ``jsq-d`` only; its default ``None`` is accepted by every policy)."""
    mu = np.asarray(mu, dtype=np.float64)
    lam = np.asarray(lam, dtype=np.float64)
    N, M = mu.size, lam.size
    if N < 1 or M < 1 or np.any(mu <= 0) or np.any(lam < 0) or lam.sum() <= 0:
        raise ValueError("mu: rates must be > 0; lam: rates must be >= 0 with a positive total")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {list(POLICIES)}, got {policy!r}")
    if ties not in ("random", "index"):
        raise ValueError(f"ties must be 'random' or 'index', got {ties!r}")
    if jfiq_fallback not in ("random", "jfsq"):
        raise ValueError(f"jfiq_fallback must be 'random' or 'jfsq', got {jfiq_fallback!r}")
    _check_policy_parameters(policy, dict(buffers=buffers, tokens=tokens, ties=ties, d=d,
                                          jfiq_fallback=jfiq_fallback, fast_complete=fast_complete))
    if policy == "jsq-d" and (d is None or d < 1):
        raise ValueError(f"policy 'jsq-d' needs d >= 1, got d={d!r}")
    for name, value, low in (("arrivals", arrivals, 1), ("batches", batches, 2)):
        if not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    indptr, indices, complete = neighbors_csr(neighbors, N, M, mu)
    lam_tot = float(lam.sum())
    lam_cum = np.cumsum(lam) / lam_tot
    lam_cum[-1] = 1.0
    per_batch = max(1, int(arrivals) // int(batches))
    kseed = derived_seed(seed, "bipartite", policy, N, M) % (2**32 - 1)
    t0 = time.perf_counter()
    if policy == "token-oldest":
        tok = np.ones(N, dtype=np.int64) if tokens is None else np.asarray(tokens, dtype=np.int64)
        if tok.shape != (N,) or np.any(tok < 1):
            raise ValueError(f"tokens: one integer >= 1 per server expected, got {tokens!r}")
        compat = np.zeros((M, N), dtype=np.bool_)
        for m in range(M):
            compat[m, indices[indptr[m]:indptr[m + 1]]] = True
        acc, events = token_kernel(mu, tok, lam_tot, lam_cum, compat, float(warmup), int(batches),
                                   per_batch, kseed)
    else:
        cls, C = _speed_classes(mu)
        if buffers is None:
            buf = np.full(N, np.iinfo(np.int64).max, dtype=np.int64)
            qcap = DEFAULT_QCAP
        else:
            buf = np.broadcast_to(np.asarray(buffers, dtype=np.int64), (N,)).copy()
            if np.any(buf < 1):
                raise ValueError("buffers: every server needs room for at least one job")
            qcap = int(buf.max())
        acc, events, status = queue_kernel(mu, cls, C, lam_tot, lam_cum, indptr, indices,
                                           complete and fast_complete,
                                           POLICY_CODES[policy], int(d or 1), ties == "random",
                                           1 if jfiq_fallback == "jfsq" else 0, buf, qcap,
                                           float(warmup), int(batches), per_batch, kseed)
        if status == OVERFLOW:
            raise RuntimeError(f"a queue exceeded {qcap} jobs: the system looks unstable "
                               f"(load {lam_tot / mu.sum():.3f}); give finite buffers or a lower load")
    seconds = time.perf_counter() - t0
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
        policy=policy, N=N, M=M, load=lam_tot / float(mu.sum()), mean_response=resp,
        mean_response_ci=resp_ci, blocking=blocking, blocking_ci=blocking_ci,
        mean_jobs=float(acc[:, B_JOBS].sum() / time_b.sum()), busy_fraction=busy, server_jobs=server_jobs,
        arrivals=int(acc[:, B_ARRIVALS].sum()), events=int(events), seconds=seconds,
    )
