"""Random restricted assignment (spec §1.1): each job may run on a uniformly random subset of
d of the m machines.

Sizes are ``unit`` or ``pow2`` (2^k with k uniform on 0..max_size_exp: log-uniform, so a few
large jobs dominate and OPT is not just the trivial bound ⌈Σp/m⌉). Releases are ``zero`` (all
at time 0, the pure LoadBalancing case) or ``poisson`` batches (at t = 0, 1, 2, ... a
Poisson(rate) number of jobs). Within a time, jobs arrive in array order.
"""

from __future__ import annotations

import numpy as np

from schedbench.scheduling.model import Instance
from schedbench.scheduling.registry import register_family
from schedbench.scheduling.instances.base import Family, FamilyParam, FamilyParameterError, csr_from_fixed_degree


def random_subsets(rng: np.random.Generator, n: int, m: int, d: int) -> np.ndarray:
    """``n`` rows of ``d`` distinct machines from 0..m-1, each row uniform and sorted."""
    if d > m:
        raise ValueError(f"d = {d} > m = {m}")
    if 4 * d > m:  # dense: take the first d of a random permutation per row
        return np.sort(np.argsort(rng.random((n, m)), axis=1)[:, :d], axis=1)
    rows = np.sort(rng.integers(0, m, size=(n, d)), axis=1)
    while True:  # redraw rows with a repeated machine (rare when d << m); uniform by rejection
        bad = np.flatnonzero((np.diff(rows, axis=1) == 0).any(axis=1))
        if bad.size == 0:
            return rows
        rows[bad] = np.sort(rng.integers(0, m, size=(bad.size, d)), axis=1)


def _generate(rng: np.random.Generator, m: int, n: int, d: int, sizes: str, max_size_exp: int,
              arrivals: str, rate: float) -> Instance:
    eligible = random_subsets(rng, n, m, d)
    if sizes == "unit":
        size = np.ones(n, dtype=np.int64)
    else:
        size = 2 ** rng.integers(0, max_size_exp + 1, size=n)
    if arrivals == "zero":
        release = np.zeros(n, dtype=np.int64)
    else:
        expected = int(np.ceil(n / rate)) + 1
        counts = rng.poisson(rate, size=expected)
        while counts.sum() < n:
            counts = np.concatenate([counts, rng.poisson(rate, size=expected)])
        release = np.repeat(np.arange(counts.size, dtype=np.int64), counts)[:n]
    indptr, indices = csr_from_fixed_degree(eligible)
    return Instance(m, release, size, indptr, indices, None, None)


def _check(p: dict) -> None:
    if p["d"] > p["m"]:
        raise FamilyParameterError(f"family 'random-restricted': parameter 'd' = {p['d']} exceeds 'm' = {p['m']}")


FAMILY = register_family(Family(
    name="random-restricted",
    parameters={
        "m": FamilyParam(int, minimum=1, doc="machines"),
        "n": FamilyParam(int, minimum=1, doc="jobs"),
        "d": FamilyParam(int, default=2, minimum=1, doc="eligible machines per job (<= m)"),
        "sizes": FamilyParam(str, default="unit", choices=("unit", "pow2")),
        "max_size_exp": FamilyParam(int, default=4, minimum=0, doc="pow2: largest size 2^max_size_exp"),
        "arrivals": FamilyParam(str, default="zero", choices=("zero", "poisson")),
        "rate": FamilyParam(float, default=1.0, minimum=1e-9, doc="poisson: mean jobs per time unit"),
    },
    generator=_generate,
    sized=lambda p: p["sizes"] != "unit",
    check=_check,
    doc=__doc__.split("\n\n")[0],
))
