"""Exact stationary solution of the sampled adaptive loss model for small n (spec §1.3, §5.2).

State: busy servers per split class, c_j (j = 1..d). Linear speed-up ("together"): jobs are
x_j = c_j / j, a class-j job leaves at rate jμ freeing j servers. Independent sub-jobs: each
class-j server frees at rate jμ. Arrivals at rate nλ see I = n − Σc idle servers; the number of
idle servers in a uniform k-sample is Hypergeometric(n, I, k) (scipy), and the job takes
J = min(d, I_s) servers or is blocked if I_s = 0. The sparse generator is solved for π with
one balance equation replaced by Σπ = 1.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve
from scipy.stats import hypergeom

from .formulas import mean_response_given_split

__all__ = ["LossExact", "solve_loss_exact"]


@dataclass(frozen=True)
class LossExact:
    blocking: float
    mean_response: float
    split_fractions: np.ndarray  # f_j, j = 1..d: fraction of accepted jobs split j ways
    mean_busy: float
    mean_jobs: float  # NaN for independent sub-jobs (jobs are not part of the state)
    n_states: int


def _states(n: int, d: int, independent: bool) -> list[tuple[int, ...]]:
    if independent:
        ranges = [range(n + 1)] * d
        return [c for c in itertools.product(*ranges) if sum(c) <= n]
    out = []
    for x in itertools.product(*[range(n // j + 1) for j in range(1, d + 1)]):
        c = tuple(j * xj for j, xj in zip(range(1, d + 1), x))
        if sum(c) <= n:
            out.append(c)
    return out


def solve_loss_exact(n: int, k: int, d: int, lam: float, mu: float = 1.0,
                     independent: bool = False, max_states: int = 200_000) -> LossExact:
    """π of the CTMC and P_B, E[T], f_j, E[busy], E[jobs] (spec §5.2 oracle)."""
    if not (1 <= k <= n and d >= 1):
        raise ValueError(f"need 1 <= k <= n and d >= 1, got n={n}, k={k}, d={d}")
    states = _states(n, d, independent)
    if len(states) > max_states:
        raise ValueError(f"{len(states)} states exceed max_states={max_states}; use a simulator")
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
                rows.append(i); cols.append(index[tuple(t)]); vals.append(n * lam * p)
            if c[j - 1] > 0:
                t = list(c)
                if independent:
                    t[j - 1] -= 1
                    rate = j * mu * c[j - 1]
                else:
                    t[j - 1] -= j
                    rate = mu * c[j - 1]  # x_j = c_j/j jobs, each at rate jμ
                rows.append(i); cols.append(index[tuple(t)]); vals.append(rate)
    Q = sp.csr_matrix((vals, (rows, cols)), shape=(S, S))
    Q = Q - sp.diags(np.asarray(Q.sum(axis=1)).ravel())
    A = Q.T.tolil()
    A[0, :] = 1.0
    rhs = np.zeros(S)
    rhs[0] = 1.0
    pi = spsolve(A.tocsc(), rhs)
    pi = np.maximum(pi, 0.0)
    pi /= pi.sum()
    blocking = float(pi @ split[idle_of, 0])
    accepted = pi @ split[idle_of, 1:]
    f = accepted / accepted.sum()
    t = mean_response_given_split(np.arange(1, d + 1), mu, independent)
    return LossExact(
        blocking=blocking, mean_response=float(f @ t), split_fractions=f,
        mean_busy=float(pi @ busy), mean_jobs=float("nan") if independent else float(pi @ jobs),
        n_states=S,
    )
