"""Exact and limiting values for the bipartite model (spec ``queueing-models.md`` §2.4, §5.3–§5.10).

* :func:`t_star_greedy` — the lower bound T*_N without a graph (greedy fill of the fastest servers);
* :func:`t_star_graph` — the graph-constrained LP bound (HiGHS via highspy), ≥ T*_N, and
  :func:`t_star_graph_flow`, the same bound by max flows (fast; used by the pipeline);
* :func:`jiq_fluid` — many-server limit of speed-unaware JIQ/JSQ with speed classes;
* :func:`random_exact` — Random dispatch: an M/M/1 per server, exact for every N;
* :func:`pod_mean_field` — power-of-d mean field (homogeneous, μ = 1);
* :func:`token_product_form` — the van der Boor–Comte product form for small N;
* :func:`policy_ctmc` — an exact truncated CTMC for N ≤ 4 servers and any deterministic policy;
* :func:`erlang_c` — M/M/c waiting probability.

All of these share no code with the simulators.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable, Sequence

import highspy
import numpy as np
import scipy.sparse as sp
from scipy.optimize import brentq
from scipy.sparse.linalg import spsolve

from schedbench.solvers import quiet_highs, run_checked
from schedbench.queueing.formulas import erlang_b

__all__ = ["t_star_greedy", "t_star_graph", "jiq_fluid", "random_exact", "pod_mean_field",
           "TokenExact", "token_product_form", "token_single_type", "policy_ctmc", "erlang_c",
           "t_star_graph_flow"]


def t_star_greedy(mu: Sequence[float], lam_tot: float) -> float:
    """T*_N = min Σ p_n / Λ s.t. Σ μ_n p_n = Λ, 0 ≤ p_n ≤ 1: fill the fastest servers first."""
    mu = np.sort(np.asarray(mu, dtype=np.float64))[::-1]
    if lam_tot >= mu.sum():
        raise ValueError(f"Λ = {lam_tot} >= Σμ = {mu.sum()}: no stable policy")
    cap = np.cumsum(mu)
    full = int(np.searchsorted(cap, lam_tot, side="right"))  # servers completely busy
    rest = lam_tot - (cap[full - 1] if full else 0.0)
    return (full + rest / mu[full]) / lam_tot


def t_star_graph(mu: Sequence[float], lam: Sequence[float], indptr: np.ndarray, indices: np.ndarray) -> float:
    """The graph-constrained bound: min Σ p_n / Λ with flows f_mn ≥ 0 on the edges,
    Σ_n f_mn = λ_m, Σ_m f_mn = μ_n p_n, 0 ≤ p_n ≤ 1 (an LP, solved with HiGHS)."""
    mu = np.asarray(mu, dtype=np.float64)
    lam = np.asarray(lam, dtype=np.float64)
    N, M, E = mu.size, lam.size, indices.size
    h = quiet_highs()
    # columns: f_e (E of them), then p_n (N)
    cost = np.r_[np.zeros(E), np.ones(N)]
    lower = np.zeros(E + N)
    upper = np.r_[np.full(E, highspy.kHighsInf), np.ones(N)]
    h.addVars(E + N, lower, upper)
    h.changeColsCost(E + N, np.arange(E + N, dtype=np.int32), cost)
    # type rows: Σ_e∈m f_e = λ_m
    h.addRows(M, lam, lam, E, indptr[:-1].astype(np.int32), np.arange(E, dtype=np.int32), np.ones(E))
    # server rows: Σ_e→n f_e − μ_n p_n = 0
    by_server = np.argsort(indices, kind="stable")
    counts = np.bincount(indices, minlength=N)
    starts = np.zeros(N + 1, dtype=np.int64)
    starts[1:] = np.cumsum(counts + 1)
    idx = np.empty(E + N, dtype=np.int32)
    val = np.empty(E + N)
    ends = np.cumsum(counts)
    for n in range(N):
        a, b, s = ends[n] - counts[n], ends[n], starts[n]
        idx[s:s + counts[n]] = by_server[a:b]
        val[s:s + counts[n]] = 1.0
        idx[s + counts[n]] = E + n
        val[s + counts[n]] = -mu[n]
    h.addRows(N, np.zeros(N), np.zeros(N), E + N, starts[:-1].astype(np.int32), idx, val)
    status = run_checked(h, "graph LP")
    if status != highspy.HighsModelStatus.kOptimal:
        raise ValueError(f"graph LP: {h.modelStatusToString(status)} (is the load feasible on this graph?)")
    return float(h.getInfo().objective_function_value) / float(lam.sum())


def jiq_fluid(mu: Sequence[float], lam_tot: float) -> float:
    """Many-server limit of JIQ/JSQ with speed classes (complete graph): the busy fraction of a
    class of speed μ_c is x_c = c₀/(μ_c + c₀) with Σ_n μ_n c₀/(μ_n + c₀) = Λ; E[T] = Σ_n x_n / Λ."""
    mu = np.asarray(mu, dtype=np.float64)
    if lam_tot >= mu.sum():
        raise ValueError("Λ >= Σμ: unstable")
    c0 = brentq(lambda c: float(np.sum(mu * c / (mu + c))) - lam_tot, 1e-12, 1e12, xtol=1e-14, rtol=1e-14)
    return float(np.sum(c0 / (mu + c0))) / lam_tot


def random_exact(mu: Sequence[float], lam: Sequence[float], indptr: np.ndarray, indices: np.ndarray,
                 weights: str = "uniform") -> float:
    """Random dispatch (uniform over S_m, or ∝ μ_n with ``weights='mu'``): server n is an M/M/1
    with arrival rate a_n, so E[T] = (1/Λ) Σ a_n / (μ_n − a_n) (needs a_n < μ_n)."""
    mu = np.asarray(mu, dtype=np.float64)
    lam = np.asarray(lam, dtype=np.float64)
    a = np.zeros(mu.size)
    for m in range(lam.size):
        nb = indices[indptr[m]:indptr[m + 1]]
        w = np.ones(nb.size) if weights == "uniform" else mu[nb]
        a[nb] += lam[m] * w / w.sum()
    if np.any(a >= mu):
        raise ValueError("random dispatch is unstable: some server gets a_n >= μ_n")
    return float(np.sum(a / (mu - a)) / lam.sum())


def pod_mean_field(lam: float, d: int, terms: int = 200) -> float:
    """JSQ(d) mean field (homogeneous μ = 1): E[T] = Σ_{i≥1} λ^((d^i − d)/(d − 1)) (d = 1: M/M/1)."""
    if d == 1:
        return 1.0 / (1.0 - lam)
    total = 0.0
    for i in range(1, terms):
        e = (d**i - d) / (d - 1)
        term = lam**e
        total += term
        if term < 1e-17:
            break
    return total


def erlang_c(c: int, a: float) -> float:
    """Probability of waiting in M/M/c with offered load a < c."""
    b = erlang_b(c, a)
    return c * b / (c - a * (1 - b))


@dataclass(frozen=True)
class TokenExact:
    blocking: float  # overall (arrival-weighted)
    blocking_by_type: np.ndarray
    mean_jobs: np.ndarray  # L_i per server
    idle: np.ndarray  # ψ_i = P(all tokens of i available)
    mean_response: float


def token_product_form(mu: Sequence[float], lam: Sequence[float], indptr: np.ndarray,
                       indices: np.ndarray, tokens: Sequence[int]) -> TokenExact:
    """van der Boor–Comte product form (spec §3.1): y_i available tokens of server i,
    Φ(0) = 1, Φ(y) = Σ_{i: y_i>0} μ_i Φ(y − e_i) / λ(I(y)), π ∝ Φ... over all y ≤ ℓ."""
    mu = np.asarray(mu, dtype=np.float64)
    lam = np.asarray(lam, dtype=np.float64)
    ell = np.asarray(tokens, dtype=np.int64)
    N, M = mu.size, lam.size
    compat = np.zeros((M, N), dtype=bool)
    for m in range(M):
        compat[m, indices[indptr[m]:indptr[m + 1]]] = True
    shape = tuple(int(v) + 1 for v in ell)
    if int(np.prod(shape)) > 5_000_000:
        raise ValueError("token product form: too many states for the exact solution")
    phi = np.zeros(shape)
    zero = (0,) * N
    # λ(I): arrival rate of types with at least one compatible server in I
    for y in itertools.product(*[range(s) for s in shape]):  # lexicographic: y − e_i comes first
        if y == zero:
            phi[y] = 1.0
            continue
        avail = np.array(y) > 0
        lam_I = float(lam[compat[:, avail].any(axis=1)].sum())
        total = 0.0
        for i in np.flatnonzero(avail):
            prev = list(y)
            prev[i] -= 1
            total += mu[i] * phi[tuple(prev)]
        phi[y] = total / lam_I
    pi = phi / phi.sum()
    grids = np.indices(shape).reshape(N, -1)
    flat = pi.reshape(-1)
    mean_y = grids @ flat
    idle = np.array([flat[grids[i] == ell[i]].sum() for i in range(N)])
    blocking_by_type = np.array([flat[(grids[compat[m]] == 0).all(axis=0)].sum() for m in range(M)])
    blocking = float(lam @ blocking_by_type / lam.sum())
    L = ell - mean_y
    return TokenExact(blocking=blocking, blocking_by_type=blocking_by_type, mean_jobs=L, idle=idle,
                      mean_response=float(L.sum() / (lam.sum() * (1 - blocking))))


def policy_ctmc(mu: Sequence[float], lam: Sequence[float], indptr: np.ndarray, indices: np.ndarray,
                choose: Callable[[int, tuple[int, ...]], int], truncation: int = 30) -> tuple[float, float]:
    """Exact E[T] of a deterministic dispatch rule on N ≤ 4 servers: the CTMC on queue lengths,
    each truncated at ``truncation`` (arrivals to a full queue are dropped). ``choose(m, Q)``
    returns the server of an arriving type-m job. Returns (E[T], mass on truncated states)."""
    mu = np.asarray(mu, dtype=np.float64)
    lam = np.asarray(lam, dtype=np.float64)
    N = mu.size
    if N > 4:
        raise ValueError("policy_ctmc is for N <= 4 servers")
    L = truncation
    states = list(itertools.product(range(L + 1), repeat=N))
    index = {s: i for i, s in enumerate(states)}
    rows, cols, vals = [], [], []
    for i, q in enumerate(states):
        for m in range(lam.size):
            n = choose(m, q)
            if q[n] < L:
                t = list(q)
                t[n] += 1
                rows.append(i); cols.append(index[tuple(t)]); vals.append(lam[m])
        for n in range(N):
            if q[n] > 0:
                t = list(q)
                t[n] -= 1
                rows.append(i); cols.append(index[tuple(t)]); vals.append(mu[n])
    S = len(states)
    Q = sp.csr_matrix((vals, (rows, cols)), shape=(S, S))
    Q = Q - sp.diags(np.asarray(Q.sum(axis=1)).ravel())
    At = Q.T.tocsc()
    pi = np.ones(S)
    pi[1:] = spsolve(At[1:, 1:], -At[1:, 0].toarray().ravel())
    pi = np.maximum(pi, 0)
    pi /= pi.sum()
    jobs = np.array([sum(q) for q in states])
    edge = np.array([max(q) == L for q in states])
    return float(pi @ jobs / lam.sum()), float(pi[edge].sum())


def token_single_type(mu: Sequence[float], lam_tot: float, tokens: Sequence[int]) -> TokenExact:
    """The token product form when one job type may use every server (SLACC's scenario).

    Then λ(I(y)) = Λ for every y ≠ 0 and Φ(y) = |y|! Π_i (μ_i/Λ)^{y_i} / y_i!, so every
    statistic is a sum over s of s! times a coefficient of a product of truncated exponential
    polynomials — exact for N = 10 servers with 6 tokens each (7^10 states) in milliseconds."""
    mu = np.asarray(mu, dtype=np.float64)
    ell = np.asarray(tokens, dtype=np.int64)
    N = mu.size

    def poly(i: int, weight: Callable[[np.ndarray], np.ndarray] | None = None) -> np.ndarray:
        y = np.arange(ell[i] + 1)
        coef = (mu[i] / lam_tot) ** y / np.array([math.factorial(int(v)) for v in y], dtype=float)
        return coef * (weight(y) if weight is not None else 1.0)

    def total(polys: list[np.ndarray]) -> float:
        prod = np.ones(1)
        for p in polys:
            prod = np.convolve(prod, p)
        fact = np.array([math.factorial(s) for s in range(prod.size)], dtype=float)
        return float(prod @ fact)

    base = [poly(i) for i in range(N)]
    Z = total(base)
    mean_y = np.empty(N)
    idle = np.empty(N)
    for i in range(N):
        others = base[:i] + base[i + 1:]
        mean_y[i] = total(others + [poly(i, lambda y: y.astype(float))]) / Z
        idle[i] = total(others + [poly(i, lambda y, li=ell[i]: (y == li).astype(float))]) / Z
    blocking = 1.0 / Z  # only y = 0 blocks
    L = ell - mean_y
    return TokenExact(blocking=blocking, blocking_by_type=np.array([blocking]), mean_jobs=L, idle=idle,
                      mean_response=float(L.sum() / (lam_tot * (1 - blocking))))


def _integer_scale(values: np.ndarray, limit: float) -> tuple[float, bool]:
    """A factor making every value an integer (exact) if a small one exists, else the largest
    factor that keeps ``limit``·factor inside int32 (rates are then rounded)."""
    top = (2**31 - 2) / limit
    for scale in (1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 200, 250, 500, 1000, 10**4, 10**5, 10**6):
        if scale <= top and np.allclose(values * scale, np.round(values * scale), rtol=0, atol=1e-9):
            return float(scale), True
    return float(top), False


def t_star_graph_flow(mu: Sequence[float], lam: Sequence[float], indptr: np.ndarray,
                      indices: np.ndarray) -> float:
    """The graph-constrained bound of :func:`t_star_graph` without an LP solver.

    The server loads reachable by routing every type's rate form the base of a polymatroid whose
    rank f(S) is the max flow from the types into the servers S (capacities μ_n). Minimising
    Σ_n load_n/μ_n over it is solved greedily (Edmonds): fill the speed classes fastest first,
    class c receiving f(fastest c classes) − f(faster classes). One max flow per class
    (scipy, integer capacities: rates are scaled to multiples of ``resolution``·Λ, so the
    bound is exact up to that relative resolution)."""
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import maximum_flow

    mu = np.asarray(mu, dtype=np.float64)
    lam = np.asarray(lam, dtype=np.float64)
    N, M = mu.size, lam.size
    lam_tot = float(lam.sum())
    scale, exact = _integer_scale(np.concatenate([lam, mu]), 2.0 * (lam_tot + mu.sum()))
    cap_lam = np.round(lam * scale).astype(np.int64)
    cap_mu = np.round(mu * scale).astype(np.int64)
    big = int(cap_lam.sum())
    src, t0, s0, sink = 0, 1, 1 + M, 1 + M + N
    counts = np.diff(indptr)
    tails = np.concatenate([np.full(M, src), t0 + np.repeat(np.arange(M), counts), s0 + np.arange(N)])
    heads = np.concatenate([t0 + np.arange(M), s0 + indices, np.full(N, sink)])
    base = np.concatenate([cap_lam, np.full(indices.size, big), np.zeros(N, np.int64)])
    speeds = np.unique(mu)[::-1]
    total, prev, served = 0.0, 0, 0
    for speed in speeds:
        caps = base.copy()
        caps[M + indices.size:] = np.where(mu >= speed, cap_mu, 0)
        graph = csr_array((caps.astype(np.int32), (tails, heads)), shape=(sink + 1, sink + 1))
        f = int(maximum_flow(graph, src, sink).flow_value)
        total += (f - prev) / scale / speed
        prev = served = f
    if served < big - (0 if exact else M):  # rounded rates: slack of one unit per type
        raise ValueError("graph bound: the graph cannot carry the load (max flow < Λ)")
    return total / lam_tot
