"""Exact stationary solution of the sampled adaptive loss model for small n
(``docs/models/loss-system.md`` §2, §5).

State: busy servers per split class, c_j (j = 1..d). Linear speed-up ("together"): jobs are
x_j = c_j / j, a class-j job leaves at rate jμ freeing j servers. Independent sub-jobs: each
class-j server frees at rate jμ. Arrivals at rate nλ see I = n − Σc idle servers; the number of
idle servers in a uniform k-sample is Hypergeometric(n, I, k) (scipy), and the job takes
J = min(d, I_s) servers or is blocked if I_s = 0. The sparse generator is solved for π with
one balance equation replaced by Σπ = 1.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import MatrixRankWarning, spsolve
from scipy.stats import hypergeom

from schedbench.hall import arguments as arg
from schedbench.loss.formulas import mean_response_given_split

__all__ = [
    "LossExact",
    "solve_loss_exact",
    "FullAccessExact",
    "solve_full_access",
    "loss_state_count",
    "EXACT_MAX_STATES",
    "FULL_ACCESS_MAX_STATES",
]

#: the largest ``max_states`` of :func:`solve_loss_exact` (its states are enumerated in Python)
EXACT_MAX_STATES = 2_000_000
#: the largest chain of :func:`solve_full_access`: 2(⌊n/d⌋ + 1) states (built in Python, ~3 s
#: per million states)
FULL_ACCESS_MAX_STATES = 10_000_000


@dataclass(frozen=True)
class LossExact:
    blocking: float
    mean_response: float
    split_fractions: np.ndarray  # f_j, j = 1..d: fraction of accepted jobs split j ways
    mean_busy: float
    mean_jobs: float  # NaN for independent sub-jobs (jobs are not part of the state)
    n_states: int


def _stationary(rates: sp.csr_matrix, func: str, ref: int = 0) -> np.ndarray:
    """π with πQ = 0, Σπ = 1, for the generator with off-diagonal ``rates``: fix π_ref = 1 and solve
    the other balance equations (keeps the matrix sparse and banded). ``ref`` must be recurrent;
    choose a likely state so that no other π overflows relative to it. Rates that overflow, or
    so far apart that the equations are singular or π is not finite in floats, are a ValueError
    naming ``func`` and its rates (never a numpy or scipy warning and a NaN)."""
    if not np.all(np.isfinite(rates.data)):
        raise ValueError(f"{func}: a transition rate of the chain overflows (n, d, lam, mu): rescale the rates")
    Q = rates - sp.diags(np.asarray(rates.sum(axis=1)).ravel())
    At = Q.T.tocsc()
    keep = np.flatnonzero(np.arange(Q.shape[0]) != ref)
    pi = np.ones(Q.shape[0])
    if keep.size:
        with warnings.catch_warnings():
            warnings.simplefilter("error", MatrixRankWarning)
            try:
                pi[keep] = spsolve(At[keep][:, keep], -At[keep][:, [ref]].toarray().ravel())
            except MatrixRankWarning:
                raise ValueError(
                    f"{func}: the chain's balance equations are singular in floats (lam, mu): the rates are too far apart"
                ) from None
    pi = np.maximum(pi, 0.0)
    total = float(pi.sum())
    if not (math.isfinite(total) and total > 0):
        raise ValueError(
            f"{func}: the stationary distribution is not finite in floats (lam, mu): the rates are too far apart"
        )
    return pi / total


def loss_state_count(n: int, d: int, independent: bool, cap: int) -> int:
    """The number of states of :func:`solve_loss_exact`'s chain, or ``cap + 1`` as soon as it is
    known to exceed ``cap`` (computed without enumerating them).

    Independent sub-jobs: c ∈ {0..n}^d with Σc ≤ n, C(n + d, d) states. Together: x_j ∈
    0..⌊n/j⌋ with Σ j·x_j ≤ n (a partition count, by dynamic programming over j)."""
    if independent:
        count = 1  # C(n + j, j) for j = 0, 1, ..., d
        for j in range(1, d + 1):
            count = count * (n + j) // j
            if count > cap:
                return cap + 1
        return count
    if n + 1 > cap:  # class 1 alone has n + 1 states
        return cap + 1
    ways = np.zeros(n + 1, dtype=np.int64)  # ways[s]: vectors of the classes so far with Σ j·x_j = s
    ways[0] = 1
    for j in range(1, min(d, n) + 1):
        pad = (-(n + 1)) % j
        blocks = np.concatenate([ways, np.zeros(pad, dtype=np.int64)]).reshape(-1, j)
        ways = np.minimum(np.cumsum(blocks, axis=0), cap + 1).reshape(-1)[: n + 1]
        if int(ways.sum()) > cap:
            return cap + 1
    return int(ways.sum())


def _states(n: int, d: int, independent: bool) -> list[tuple[int, ...]]:
    """Every state c (busy servers per class j = 1..d), in the lexicographic order of
    itertools.product over the per-class ranges, filtered to Σc <= n — enumerated directly (an
    odometer over this down-closed set), so the work is O(states·d), never (n + 1)^d."""
    step = [1 if independent else j for j in range(1, d + 1)]
    c = [0] * d
    used = 0
    out = [tuple(c)]
    while True:
        i = d - 1
        while i >= 0 and used + step[i] > n:  # the last class that can take one more
            used -= c[i]
            c[i] = 0
            i -= 1
        if i < 0:
            return out
        c[i] += step[i]
        used += step[i]
        out.append(tuple(c))


def solve_loss_exact(
    n: int, k: int, d: int, lam: float, mu: float = 1.0, independent: bool = False, max_states: int = 200_000
) -> LossExact:
    """π of the CTMC and P_B, E[T], f_j, E[busy], E[jobs] (loss-system.md §5 oracle).

    ``n``, ``k``, ``d``: integers with 1 <= k <= n and d >= 1; ``lam``, ``mu``: finite rates > 0.
    The states are counted before they are enumerated (:func:`loss_state_count`): more than
    ``max_states`` (default 200 000; at most :data:`EXACT_MAX_STATES` = 2·10^6) is a ValueError
    naming n and d — use a simulator. A loss system is stable at any load."""
    func = "solve_loss_exact"
    n = arg.integer(func, "n", n, low=1)
    k = arg.integer(func, "k", k, low=1)
    d = arg.integer(func, "d", d, low=1)
    if not (1 <= k <= n and d >= 1):
        raise ValueError(f"need 1 <= k <= n and d >= 1, got n={n}, k={k}, d={d}")
    lam = arg.rate(func, "lam", lam)
    mu = arg.rate(func, "mu", mu)
    arg.rate(func, "lam", n * lam)  # the total arrival rate nλ must be finite too
    independent = arg.flag(func, "independent", independent)
    max_states = arg.integer(func, "max_states", max_states, low=1, high=EXACT_MAX_STATES)
    count = loss_state_count(n, d, independent, max_states)
    if count > max_states:
        raise ValueError(
            f"{func}: n = {n}, d = {d} (independent={independent}) give more than "
            f"max_states = {max_states} states; use a simulator (k does not change the count)"
        )
    arg.check_sizes(func, "d", float(count) * d + (n + 1.0) * (d + 1), f"{count} states of d = {d} classes")
    states = _states(n, d, independent)
    index = {s: i for i, s in enumerate(states)}
    S = len(states)
    # split distribution given I idle: P(J = j | I), j = 0..d (0 = blocked)
    split = np.zeros((n + 1, d + 1))
    for idle in range(n + 1):
        pmf = hypergeom.pmf(np.arange(d), n, idle, k)
        split[idle, :d] = pmf
        split[idle, d] = max(0.0, 1.0 - pmf.sum()) if idle >= d else 0.0
    rows, cols, vals = [], [], []
    busy = np.zeros(S)
    jobs = np.zeros(S)
    idle_of = np.zeros(S, dtype=np.int64)
    for i, c in enumerate(states):
        b = sum(c)
        busy[i] = b
        jobs[i] = sum(cj / j for j, cj in zip(range(1, d + 1), c))
        idle = n - b
        idle_of[i] = idle
        for j in range(1, d + 1):
            p = split[idle, j]
            if p > 0:
                t = list(c)
                t[j - 1] += j
                rows.append(i)
                cols.append(index[tuple(t)])
                vals.append(n * lam * p)
            if c[j - 1] > 0:
                t = list(c)
                if independent:
                    t[j - 1] -= 1
                    rate = j * mu * c[j - 1]
                else:
                    t[j - 1] -= j
                    rate = mu * c[j - 1]  # x_j = c_j/j jobs, each at rate jμ
                rows.append(i)
                cols.append(index[tuple(t)])
                vals.append(rate)
    pi = _stationary(sp.csr_matrix((vals, (rows, cols)), shape=(S, S)), func)
    blocking = float(pi @ split[idle_of, 0])
    accepted = pi @ split[idle_of, 1:]
    f = accepted / accepted.sum()
    arg.finite_result(func, "the stationary distribution", "lam, mu", pi, blocking, f)
    t = mean_response_given_split(np.arange(1, d + 1), mu, independent)
    return LossExact(
        blocking=blocking,
        mean_response=float(f @ t),
        split_fractions=f,
        mean_busy=float(pi @ busy),
        mean_jobs=float("nan") if independent else float(pi @ jobs),
        n_states=S,
    )


@dataclass(frozen=True)
class FullAccessExact:
    blocking: float
    mean_response: float
    excess_response: float  # E[T] − 1/(dμ)
    fraction_r_jobs: float  # fraction of accepted jobs split r = n mod d ways


def solve_full_access(n: int, d: int, lam: float, mu: float = 1.0) -> FullAccessExact:
    """Exact P_B and E[T] for k = n, any n, linear speed-up (loss-system.md §2 item 5).

    From the empty state the chain only holds d-jobs plus at most one r-job (r = n mod d): a
    two-phase birth–death chain on (x_d, z) with 2(⌊n/d⌋ + 1) states, solved sparsely, so n up
    to 10⁷ is cheap. With d | n it is Erlang-B with n/d servers of rate dμ.

    ``n``, ``d``: integers >= 1; ``lam``, ``mu``: finite rates > 0; at most
    :data:`FULL_ACCESS_MAX_STATES` states (a ValueError naming n and d beyond).
    """
    func = "solve_full_access"
    n = arg.integer(func, "n", n, low=1)
    d = arg.integer(func, "d", d, low=1)
    lam = arg.rate(func, "lam", lam)
    mu = arg.rate(func, "mu", mu)
    arg.rate(func, "lam", n * lam)  # the total arrival rate nλ must be finite too
    N, r = divmod(n, d)
    phases = 2 if r else 1
    S = (N + 1) * phases
    if S > FULL_ACCESS_MAX_STATES:
        raise ValueError(f"{func}: n = {n}, d = {d} give {S} states, more than {FULL_ACCESS_MAX_STATES}")

    def idx(x, z):
        return z * (N + 1) + x

    rows, cols, vals = [], [], []
    lam_tot = n * lam
    for z in range(phases):
        for x in range(N + 1):
            i = idx(x, z)
            idle = n - d * x - z * r
            if idle >= d:
                rows.append(i)
                cols.append(idx(x + 1, z))
                vals.append(lam_tot)
            elif idle > 0:  # idle = r, z = 0: an r-job starts
                rows.append(i)
                cols.append(idx(x, 1))
                vals.append(lam_tot)
            if x > 0:
                rows.append(i)
                cols.append(idx(x - 1, z))
                vals.append(d * mu * x)
            if z == 1:
                rows.append(i)
                cols.append(idx(x, 0))
                vals.append(r * mu)
    mode = lam_tot / (d * mu)
    likely = idx(min(N, int(mode)) if mode < N else N, 0)  # near the mode: x_d ≈ nλ/(dμ)
    pi = _stationary(sp.csr_matrix((vals, (rows, cols)), shape=(S, S)), func, ref=likely)
    blocked = pi[idx(N, 0)] if r == 0 else pi[idx(N, 1)]
    r_rate = pi[idx(N, 0)] if r else 0.0  # arrival rate into r-jobs / (nλ)
    accepted = 1.0 - blocked
    with np.errstate(invalid="ignore", divide="ignore"):  # non-finite: refused below
        f_r = r_rate / accepted
    t_d = 1.0 / (d * mu)
    excess = f_r * (1.0 / (r * mu) - t_d) if r else 0.0
    arg.finite_result(func, "the stationary distribution", "lam, mu", pi, excess, f_r)
    return FullAccessExact(
        blocking=float(blocked), mean_response=t_d + excess, excess_response=float(excess), fraction_r_jobs=float(f_r)
    )
