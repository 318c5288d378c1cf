"""The batch LP of anand-batch as max flow + cycle cancelling (algorithms/_transport.py),
against an independent LP solver (scipy's HiGHS) on random small batches: the same feasibility,
a solution of the LP, a forest as fractional support; and the rounding it feeds adds at most
one job per machine."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from schedbench.scheduling.algorithms import _transport
from schedbench.scheduling.algorithms._transport import transport_flow


def _batch(rng):
    m = int(rng.integers(1, 7))
    nt = int(rng.integers(1, 9))
    sets = [np.sort(rng.choice(m, size=int(rng.integers(1, m + 1)), replace=False)) for _ in range(nt)]
    indptr = np.r_[0, np.cumsum([s.size for s in sets])].astype(np.int64)
    indices = np.concatenate(sets).astype(np.int64)
    size = rng.integers(1, 6, nt).astype(np.int64)
    count = rng.integers(1, 4, nt).astype(np.int64)
    cap = int(rng.integers(1, 16))
    return m, indptr, indices, size, count, cap


def _lp_feasible(m, indptr, indices, size, count, cap) -> bool:
    nt, npairs = size.size, indices.size
    owner = np.repeat(np.arange(nt), np.diff(indptr))
    a_eq = np.zeros((nt, npairs))
    a_eq[owner, np.arange(npairs)] = 1.0
    a_ub = np.zeros((m, npairs))
    a_ub[indices, np.arange(npairs)] = size[owner]
    res = linprog(np.zeros(npairs), A_ub=a_ub, b_ub=np.full(m, cap), A_eq=a_eq, b_eq=count, method="highs")
    assert res.status in (0, 2)
    return res.status == 0


def _fractional_cycle(nt, indptr, indices, size, z) -> bool:
    """Whether the pairs with a fractional y form a cycle (union-find)."""
    owner = np.repeat(np.arange(nt), np.diff(indptr))
    parent = list(range(nt + int(indices.max(initial=0)) + 1))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for e in np.flatnonzero(z % size[owner] != 0):
        a, b = find(owner[e]), find(nt + indices[e])
        if a == b:
            return True
        parent[a] = b
    return False


def test_feasibility_solution_and_forest_against_an_lp_solver():
    rng = np.random.default_rng(2026)
    feasible = fractional = 0
    for _ in range(600):
        m, indptr, indices, size, count, cap = _batch(rng)
        z, _ = transport_flow(indptr, indices, size, count, cap, m)
        assert (z is not None) == _lp_feasible(m, indptr, indices, size, count, cap)
        if z is None:
            continue
        feasible += 1
        owner = np.repeat(np.arange(size.size), np.diff(indptr))
        assert np.all(z >= 0)
        assert np.array_equal(np.bincount(owner, weights=z, minlength=size.size), size * count)  # Σ_i y = count
        assert np.all(np.bincount(indices, weights=z, minlength=m) <= cap)
        assert not _fractional_cycle(size.size, indptr, indices, size, z)
        fractional += bool(np.any(z % size[owner]))
    assert feasible >= 200 and fractional >= 50  # the cases exercise the cancelling


def test_without_cancelling_the_max_flow_leaves_fractional_cycles(monkeypatch):
    """The forest check above can fail: with the cancelling planted out, some max flow of the
    same random batches has a fractional cycle."""
    monkeypatch.setattr(_transport, "_cancel_fractional_cycles", lambda *args: 0)
    rng = np.random.default_rng(2026)
    cycles = 0
    for _ in range(600):
        m, indptr, indices, size, count, cap = _batch(rng)
        z, _ = _transport.transport_flow(indptr, indices, size, count, cap, m)
        cycles += z is not None and _fractional_cycle(size.size, indptr, indices, size, z)
    assert cycles > 0


@pytest.mark.parametrize("seed", range(5))
def test_the_rounding_adds_at_most_one_job_per_machine(seed):
    """anand-batch's batch assignment: every machine's volume ≤ cap + the largest size, each
    job on an eligible machine, no rounding fallback."""
    from schedbench.scheduling.algorithms.anand_batch import AnandBatch

    rng = np.random.default_rng(seed)
    m, n = 6, 60
    size = rng.integers(1, 5, n).astype(np.int64)
    sets = [np.sort(rng.choice(m, size=2, replace=False)) for _ in range(n)]
    indptr = np.r_[0, np.cumsum([2] * n)].astype(np.int64)
    indices = np.concatenate(sets).astype(np.int64)
    alg = AnandBatch(m, eps=0.5, oracle="doubling")
    alg.T = 4.0
    span = int(size.sum() // m)
    machine = alg._assign_arrays(size, indptr, indices, span)
    cap = int(span + alg.T)
    assert all(machine[j] in sets[j] for j in range(n))
    assert np.all(np.bincount(machine, weights=size, minlength=m) <= cap + size.max())
    assert alg.counters["rounding_fallbacks"] == 0
