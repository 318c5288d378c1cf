"""Online stand-ins for the oracle T* (docs/models/rejection-model.md §2.3): what an algorithm that is not given OPT can
know about it from the prefix it has seen. Shared by the algorithms that offer ``oracle``
choices; each keeps T(t) = the smallest power of two ≥ its lower bound LB(t)."""

from __future__ import annotations

import math

import numpy as np

from schedbench.hall.jit import compiled

__all__ = ["PrefixUnitOpt", "TrivialPrefixBound", "pow2_at_least", "pow2_at_least_nb"]


def _pow2(x):
    mant, exp = math.frexp(x)  # x = mant·2^exp, 0.5 ≤ mant < 1
    return math.ldexp(1.0, exp - 1 if mant == 0.5 else exp)


def pow2_at_least(x):
    """2^⌈log₂ x⌉ for x > 0, exactly (from the float's exponent; below 1 for x < ½);
    elementwise on an array. The one power-of-two rounding of T(t) and of the class rules."""
    if isinstance(x, np.ndarray):
        mant, exp = np.frexp(x)
        return np.ldexp(1.0, np.where(mant == 0.5, exp - 1, exp))
    return _pow2(float(x))


#: :func:`pow2_at_least` of one number inside a compiled kernel.
pow2_at_least_nb = compiled(_pow2)


class TrivialPrefixBound:
    """LB(t) = max(p_max, ⌈Σp/m⌉) over the prefix: a valid lower bound on OPT(prefix) for any
    sizes (weaker than the fractional LP of docs/models/rejection-model.md §2.3 (a), and O(1) per arrival)."""

    def __init__(self, m: int) -> None:
        self.m, self.total, self.pmax = m, 0.0, 0

    def add(self, size: int) -> float:
        self.total += size
        self.pmax = max(self.pmax, size)
        return pow2_at_least(max(float(self.pmax), math.ceil(self.total / self.m)))  # ≥ 1: p_max ≥ 1


class PrefixUnitOpt:
    """Unit jobs: T(t) = 2^⌈log₂ OPT(prefix)⌉ exactly (docs/models/rejection-model.md §2.3 (a), §8.1: for unit sizes the
    prefix optimum is a b-matching). Keeps a feasible assignment of the prefix with machine
    capacity T; each arrival searches one augmenting path (BFS), and T doubles while none
    exists — so T is a power of two and T/2 < OPT(prefix) ≤ T at every time."""

    def __init__(self, m: int) -> None:
        self.T = 1
        self.cnt = [0] * m
        self.jobs_on: list[list[int]] = [[] for _ in range(m)]
        self.assign: dict[int, int] = {}
        self.elig: dict[int, list[int]] = {}

    def add(self, j: int, eligible) -> int:
        self.elig[j] = [int(i) for i in eligible]
        while not self._augment(j):
            self.T *= 2
        return self.T

    def _augment(self, j: int) -> bool:
        parent_m: dict[int, int] = {}
        seen = {j}
        queue = [j]
        for u in queue:
            for i in self.elig[u]:
                if i in parent_m:
                    continue
                parent_m[i] = u
                if self.cnt[i] < self.T:
                    self._flip(i, parent_m)
                    return True
                for v in self.jobs_on[i]:
                    if v not in seen:
                        seen.add(v)
                        queue.append(v)
        return False

    def _flip(self, free: int, parent_m: dict[int, int]) -> None:
        f = free
        while True:
            u = parent_m[f]
            old = self.assign.get(u)
            self.assign[u] = f
            self.jobs_on[f].append(u)
            self.cnt[f] += 1
            if old is None:
                return
            self.jobs_on[old].remove(u)
            self.cnt[old] -= 1
            f = old
