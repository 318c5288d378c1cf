"""Exact and limiting values for the bipartite model (``docs/models/bipartite.md`` §4, §6, §7).

* :func:`t_star_greedy` — the lower bound T*_N without a graph (greedy fill of the fastest servers);
* :func:`t_star_graph` — the graph-constrained LP bound (HiGHS via highspy), ≥ T*_N, and
  :func:`t_star_graph_flow`, the same bound by max flows (fast; used by the pipeline);
* :func:`jiq_fluid` — many-server limit of speed-unaware JIQ/JSQ with speed classes;
* :func:`random_exact` — Random dispatch: an M/M/1 per server, exact for every N;
* :func:`pod_mean_field` — power-of-d mean field (homogeneous, μ = 1);
* :func:`token_product_form` — the van der Boor–Comte product form for small N;
* :func:`policy_ctmc` — an exact truncated CTMC for N ≤ 4 servers and any deterministic policy;
* :func:`erlang_c` — M/M/c waiting probability.

All of these share no code with the simulators (the capacity check of
:mod:`.capacity` excepted). Every function checks its arguments first (finite rates, a CSR graph
with ``indptr`` of M + 1 non-decreasing entries from 0 to len(indices), server numbers 0..N−1,
no type without a server, no server listed twice by a type): a bad one is a ValueError naming
it. An overloaded system (Λ >= Σμ, or a graph that cannot carry the load with slack) is a
ValueError saying it is unstable, never a finite value.
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

from schedbench.hall.solvers import quiet_highs, run_checked
from schedbench.hall import arguments as arg
from schedbench.bipartite.capacity import carries_load, flow_network, integer_scale as _integer_scale
from schedbench.hall.erlang import erlang_b

__all__ = [
    "t_star_greedy",
    "t_star_graph",
    "jiq_fluid",
    "random_exact",
    "pod_mean_field",
    "TokenExact",
    "token_product_form",
    "token_single_type",
    "policy_ctmc",
    "erlang_c",
    "t_star_graph_flow",
]


def _graph_args(func: str, mu, lam, indptr, indices, stable: bool = True):
    """Checked (mu, lam, indptr, indices); with ``stable``, a graph that cannot carry the load
    with slack is a ValueError (the system is unstable)."""
    mu = arg.rate_vector(func, "mu", mu)
    lam = arg.rate_vector(func, "lam", lam, allow_zero=True)
    indptr, indices = arg.check_csr(func, indptr, indices, lam.size, mu.size)
    if stable:
        ok, why = carries_load(mu, lam, indptr, indices)
        if not ok:
            raise ValueError(f"{func}: unstable: {why}")
    return mu, lam, indptr, indices


def _plausible_bound(func: str, value: float, mu: np.ndarray) -> float:
    """A unit of load costs between 1/max μ and 1/min μ busy servers, so T* lies in between; a
    value outside (beyond 1e-3 relative: the max-flow bound rounds rates) means the solver lost
    precision on rates spanning too wide a range: say so instead of returning it."""
    lo, hi = 1.0 / float(mu.max()), 1.0 / float(mu.min())
    if not (math.isfinite(value) and lo * (1 - 1e-3) <= value <= hi * (1 + 1e-3)):
        raise ValueError(
            f"{func}: the bound {value!r} is outside [1/max mu, 1/min mu] = [{lo:.6g}, {hi:.6g}]: "
            f"the rates (mu, lam) span too wide a range for the solver; rescale them"
        )
    return value


def t_star_greedy(mu: Sequence[float], lam_tot: float) -> float:
    """T*_N = min Σ p_n / Λ s.t. Σ μ_n p_n = Λ, 0 ≤ p_n ≤ 1: fill the fastest servers first.
    Λ >= Σμ is a ValueError (no stable policy)."""
    mu = np.sort(arg.rate_vector("t_star_greedy", "mu", mu))[::-1]
    lam_tot = arg.rate("t_star_greedy", "lam_tot", lam_tot)
    if lam_tot >= mu.sum():
        raise ValueError(f"t_star_greedy: Λ = lam_tot = {lam_tot} >= Σμ = {mu.sum()} (mu): no stable policy (unstable)")
    cap = np.cumsum(mu)
    full = int(np.searchsorted(cap, lam_tot, side="right"))  # servers completely busy
    rest = lam_tot - (cap[full - 1] if full else 0.0)
    return (full + rest / mu[full]) / lam_tot


def t_star_graph(mu: Sequence[float], lam: Sequence[float], indptr: np.ndarray, indices: np.ndarray) -> float:
    """The graph-constrained bound: min Σ p_n / Λ with flows f_mn ≥ 0 on the edges,
    Σ_n f_mn = λ_m, Σ_m f_mn = μ_n p_n, 0 ≤ p_n ≤ 1 (an LP, solved with HiGHS). A graph that
    cannot carry the load with slack (see :func:`~.capacity.carries_load`) is a ValueError."""
    mu, lam, indptr, indices = _graph_args("t_star_graph", mu, lam, indptr, indices)
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
        idx[s : s + counts[n]] = by_server[a:b]
        val[s : s + counts[n]] = 1.0
        idx[s + counts[n]] = E + n
        val[s + counts[n]] = -mu[n]
    h.addRows(N, np.zeros(N), np.zeros(N), E + N, starts[:-1].astype(np.int32), idx, val)
    status = run_checked(h, "graph LP")
    if status != highspy.HighsModelStatus.kOptimal:
        raise ValueError(f"graph LP: {h.modelStatusToString(status)} (is the load feasible on this graph?)")
    return _plausible_bound("t_star_graph", float(h.getInfo().objective_function_value) / float(lam.sum()), mu)


def jiq_fluid(mu: Sequence[float], lam_tot: float) -> float:
    """Many-server limit of JIQ/JSQ with speed classes (complete graph): the busy fraction of a
    class of speed μ_c is x_c = c₀/(μ_c + c₀) with Σ_n μ_n c₀/(μ_n + c₀) = Λ; E[T] = Σ_n x_n / Λ.
    Λ >= Σμ is a ValueError (unstable).

    Solved for y = c₀/Λ, which is of order one whatever the rates' magnitudes: Σ_n y/(1 + y·Λ/μ_n)
    = 1 (no product to overflow or underflow; a ratio Λ/μ_n past the float range gives the
    term's limit, y or 0) in the bracket y ∈ [1/(2N), 2·max μ/(Σμ − Λ)] (the sum is at most N·y
    and at least Σμ·y/(max μ + Λ·y)), to a relative 1e-15; then E[T] = Σ_n y/(μ_n + Λ·y)."""
    mu = arg.rate_vector("jiq_fluid", "mu", mu)
    lam_tot = arg.rate("jiq_fluid", "lam_tot", lam_tot)
    if lam_tot >= mu.sum():
        raise ValueError(f"jiq_fluid: Λ = lam_tot = {lam_tot} >= Σμ = {mu.sum()} (mu): unstable")
    with np.errstate(over="ignore"):  # a ratio past the float range: inf, the term's limit
        q = lam_tot / mu
    lo, hi = 0.5 / mu.size, 2.0 * float(mu.max()) / (float(mu.sum()) - lam_tot)
    try:
        y = brentq(lambda y: float(np.sum(y / (1.0 + y * q))) - 1.0, lo, hi, xtol=1e-15 * lo, rtol=1e-15)
    except ValueError:  # the bracket's ends rounded to one sign: Λ within rounding of Σμ
        raise ValueError(f"jiq_fluid: Λ = lam_tot = {lam_tot} is within rounding of Σμ = {mu.sum()} (mu)") from None
    return float(np.sum(y / (mu + lam_tot * y)))


def random_exact(
    mu: Sequence[float], lam: Sequence[float], indptr: np.ndarray, indices: np.ndarray, weights: str = "uniform"
) -> float:
    """Random dispatch (uniform over S_m, or ∝ μ_n with ``weights='mu'``): server n is an M/M/1
    with arrival rate a_n, so E[T] = (1/Λ) Σ a_n / (μ_n − a_n) (needs a_n < μ_n: else a
    ValueError saying it is unstable)."""
    if not isinstance(weights, str) or weights not in ("uniform", "mu"):
        raise ValueError(f"random_exact: weights must be 'uniform' or 'mu', got {weights!r}")
    mu, lam, indptr, indices = _graph_args("random_exact", mu, lam, indptr, indices, stable=False)
    a = np.zeros(mu.size)
    for m in range(lam.size):
        nb = indices[indptr[m] : indptr[m + 1]]
        w = np.ones(nb.size) if weights == "uniform" else mu[nb]
        a[nb] += lam[m] * w / w.sum()
    if np.any(a >= mu):
        n = int(np.flatnonzero(a >= mu)[0])
        raise ValueError(
            f"random_exact: random dispatch is unstable: server {n} gets a_n = {a[n]:.6g} >= "
            f"μ_n = {mu[n]:.6g} (lam too high for mu on this graph)"
        )
    return float(np.sum(a / (mu - a)) / lam.sum())


def pod_mean_field(lam: float, d: int, terms: int = 200) -> float:
    """JSQ(d) mean field (homogeneous μ = 1): E[T] = Σ_{i≥1} λ^((d^i − d)/(d − 1)) (d = 1: M/M/1).
    Needs 0 <= λ < 1 (λ >= 1 is a ValueError: unstable), d >= 1 an integer."""
    lam = arg.real("pod_mean_field", "lam", lam, low=0.0)
    if lam >= 1:
        raise ValueError(f"pod_mean_field: lam = {lam} >= 1 = μ: unstable")
    d = arg.integer("pod_mean_field", "d", d, low=1)
    terms = arg.integer("pod_mean_field", "terms", terms, low=2, high=10**6)
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
    """Probability of waiting in M/M/c with offered load a < c (a >= c is a ValueError: unstable)."""
    c = arg.integer("erlang_c", "c", c, low=1, integral_float=True)
    a = arg.real("erlang_c", "a", a, low=0.0)
    if a >= c:
        raise ValueError(f"erlang_c: offered load a = {a} >= c = {c}: M/M/c is unstable")
    b = erlang_b(c, a)
    return c * b / (c - a * (1 - b))


@dataclass(frozen=True)
class TokenExact:
    blocking: float  # overall (arrival-weighted)
    blocking_by_type: np.ndarray
    mean_jobs: np.ndarray  # L_i per server
    idle: np.ndarray  # ψ_i = P(all tokens of i available)
    mean_response: float


def token_product_form(
    mu: Sequence[float], lam: Sequence[float], indptr: np.ndarray, indices: np.ndarray, tokens: Sequence[int]
) -> TokenExact:
    """van der Boor–Comte product form (bipartite.md §6): y_i available tokens of server i,
    Φ(0) = 1, Φ(y) = Σ_{i: y_i>0} μ_i Φ(y − e_i) / λ(I(y)), π ∝ Φ... over all y ≤ ℓ.
    ``tokens``: one integer >= 0 per server; at most 5·10^6 states Π(ℓ_i + 1); every server
    with a token must be compatible with a type of positive rate (else Φ is undefined)."""
    func = "token_product_form"
    mu, lam, indptr, indices = _graph_args(func, mu, lam, indptr, indices, stable=False)
    N, M = mu.size, lam.size
    ell = arg.integer_vector(func, "tokens", tokens, low=0, size=N, size_note="one per server: the length of mu")
    shape = tuple(int(v) + 1 for v in ell)
    if math.prod(shape) > 5_000_000:
        raise ValueError(f"{func}: tokens: {math.prod(shape)} states exceed 5e6, too many for the exact solution")
    compat = np.zeros((M, N), dtype=bool)
    for m in range(M):
        compat[m, indices[indptr[m] : indptr[m + 1]]] = True
    served = compat[lam > 0].any(axis=0)
    idle = np.flatnonzero((ell > 0) & ~served)
    if idle.size:
        raise ValueError(
            f"{func}: server {int(idle[0])} has tokens but no type of positive rate may use it (tokens, lam, indices)"
        )
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
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_response = float(L.sum() / (lam.sum() * (1 - blocking)))
    arg.finite_result(func, "the solution", "mu, lam", pi, blocking, mean_response)
    return TokenExact(
        blocking=blocking, blocking_by_type=blocking_by_type, mean_jobs=L, idle=idle, mean_response=mean_response
    )


def policy_ctmc(
    mu: Sequence[float],
    lam: Sequence[float],
    indptr: np.ndarray,
    indices: np.ndarray,
    choose: Callable[[int, tuple[int, ...]], int],
    truncation: int = 30,
) -> tuple[float, float]:
    """Exact E[T] of a deterministic dispatch rule on N ≤ 4 servers: the CTMC on queue lengths,
    each truncated at ``truncation`` (arrivals to a full queue are dropped). ``choose(m, Q)``
    returns the server of an arriving type-m job, one of its neighbours. Returns (E[T], mass on
    truncated states). At most 10^6 states (truncation + 1)^N; a graph that cannot carry the
    load with slack is a ValueError (unstable)."""
    func = "policy_ctmc"
    mu, lam, indptr, indices = _graph_args(func, mu, lam, indptr, indices)
    N = mu.size
    if N > 4:
        raise ValueError(f"{func}: mu: policy_ctmc is for N <= 4 servers, got {N}")
    if not callable(choose):
        raise ValueError(f"{func}: choose must be a function (m, Q) -> server, got {choose!r}")
    L = arg.integer(func, "truncation", truncation, low=1)
    if (L + 1) ** N > 10**6:
        raise ValueError(f"{func}: truncation = {L} gives {(L + 1) ** N} states for N = {N} servers (the bound is 1e6)")
    allowed = [set(indices[indptr[m] : indptr[m + 1]].tolist()) for m in range(lam.size)]
    states = list(itertools.product(range(L + 1), repeat=N))
    index = {s: i for i, s in enumerate(states)}
    rows, cols, vals = [], [], []
    for i, q in enumerate(states):
        for m in range(lam.size):
            n = choose(m, q)
            if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or int(n) not in allowed[m]:
                raise ValueError(f"{func}: choose({m}, {q}) returned {n!r}, not a neighbour of type {m}")
            if q[n] < L:
                t = list(q)
                t[n] += 1
                rows.append(i)
                cols.append(index[tuple(t)])
                vals.append(lam[m])
        for n in range(N):
            if q[n] > 0:
                t = list(q)
                t[n] -= 1
                rows.append(i)
                cols.append(index[tuple(t)])
                vals.append(mu[n])
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
    polynomials — exact for N = 10 servers with 6 tokens each (7^10 states) in milliseconds.
    ``tokens``: one integer >= 0 per server, at least one in all and at most 170 (the factorials
    are floats)."""
    func = "token_single_type"
    mu = arg.rate_vector(func, "mu", mu)
    lam_tot = arg.rate(func, "lam_tot", lam_tot)
    ell = arg.integer_vector(func, "tokens", tokens, low=0, size=mu.size, size_note="one per server: the length of mu")
    if not 1 <= int(ell.sum()) <= 170:
        raise ValueError(f"{func}: tokens: the total must be in 1..170, got {int(ell.sum())}")
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

    # rates far apart overflow the powers (μ_i/Λ)^y: the result is then not finite, refused below
    with np.errstate(over="ignore", invalid="ignore"):
        base = [poly(i) for i in range(N)]
        Z = total(base)
        mean_y = np.empty(N)
        idle = np.empty(N)
        for i in range(N):
            others = base[:i] + base[i + 1 :]
            mean_y[i] = total(others + [poly(i, lambda y: y.astype(float))]) / Z
            idle[i] = total(others + [poly(i, lambda y, li=ell[i]: (y == li).astype(float))]) / Z
        blocking = 1.0 / Z  # only y = 0 blocks
    arg.finite_result(func, "the solution", "mu, lam_tot", Z, mean_y, idle, blocking)
    L = ell - mean_y
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_response = float(L.sum() / (lam_tot * (1 - blocking)))
    arg.finite_result(func, "E[T]", "mu, lam_tot", mean_response)
    return TokenExact(
        blocking=blocking, blocking_by_type=np.array([blocking]), mean_jobs=L, idle=idle, mean_response=mean_response
    )


def t_star_graph_flow(mu: Sequence[float], lam: Sequence[float], indptr: np.ndarray, indices: np.ndarray) -> float:
    """The graph-constrained bound of :func:`t_star_graph` without an LP solver.

    The server loads reachable by routing every type's rate form the base of a polymatroid whose
    rank f(S) is the max flow from the types into the servers S (capacities μ_n). Minimising
    Σ_n load_n/μ_n over it is solved greedily (Edmonds): fill the speed classes fastest first,
    class c receiving f(fastest c classes) − f(faster classes). One max flow per class
    (scipy, integer capacities: rates are scaled to multiples of ``resolution``·Λ, so the
    bound is exact up to that relative resolution). A graph that cannot carry the load with slack
    (see :func:`~.capacity.carries_load`) is a ValueError."""
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import maximum_flow

    mu, lam, indptr, indices = _graph_args("t_star_graph_flow", mu, lam, indptr, indices)
    N, M = mu.size, lam.size
    lam_tot = float(lam.sum())
    scale, exact = _integer_scale(np.concatenate([lam, mu]), 2.0 * (lam_tot + mu.sum()))
    cap_lam = np.round(lam * scale).astype(np.int64)
    cap_mu = np.round(mu * scale).astype(np.int64)
    big = int(cap_lam.sum())
    tails, heads, sink = flow_network(M, N, indptr, indices)
    src = 0
    base = np.concatenate([cap_lam, np.full(indices.size, big), np.zeros(N, np.int64)])
    speeds = np.unique(mu)[::-1]
    total, prev, served = 0.0, 0, 0
    for speed in speeds:
        caps = base.copy()
        caps[M + indices.size :] = np.where(mu >= speed, cap_mu, 0)
        graph = csr_array((caps.astype(np.int32), (tails, heads)), shape=(sink + 1, sink + 1))
        f = int(maximum_flow(graph, src, sink).flow_value)
        total += (f - prev) / scale / speed
        prev = served = f
    if served < big - (0 if exact else M):  # rounded rates: slack of one unit per type
        raise ValueError("graph bound: the graph cannot carry the load (max flow < Λ)")
    return _plausible_bound("t_star_graph_flow", total / lam_tot, mu)
