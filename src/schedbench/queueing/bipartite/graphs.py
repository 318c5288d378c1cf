"""Random compatibility graphs for the bipartite model (spec ``queueing-models.md`` §2.5), as CSR
(indptr over types, server indices). Every generator takes a numpy Generator (seeded by the
caller through :mod:`schedbench.seeds`).

* ``complete``: every type may use every server;
* G1 ``erdos_renyi``: each (type, server) edge independently with probability p; a type left with
  no edge gets one uniform server (so every type can be served) — recorded as a decision;
* G2 ``random_degree``: each type picks D servers uniformly without replacement;
* G3 ``regular``: configuration model, D stubs per type and M·D/N per server, paired uniformly;
  repeated pairs are merged, so degrees are D up to those (rare) merges.
"""

from __future__ import annotations

import numpy as np

__all__ = ["complete", "erdos_renyi", "random_degree", "regular", "make_graph", "GRAPHS"]


def _csr(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([r.size for r in rows])
    return indptr, (np.concatenate(rows) if rows else np.zeros(0, np.int64)).astype(np.int64)


def complete(M: int, N: int, rng=None) -> tuple[np.ndarray, np.ndarray]:
    return _csr([np.arange(N)] * M)


def erdos_renyi(M: int, N: int, p: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    if not 0 < p <= 1:
        raise ValueError(f"erdos_renyi: p must be in (0, 1], got {p}")
    rows = []
    for _ in range(M):
        r = np.flatnonzero(rng.random(N) < p)
        rows.append(r if r.size else rng.integers(0, N, size=1))
    return _csr(rows)


def random_degree(M: int, N: int, D: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    if not 1 <= D <= N:
        raise ValueError(f"random_degree: D must be in 1..N = {N}, got {D}")
    return _csr([np.sort(rng.choice(N, size=D, replace=False)) for _ in range(M)])


def regular(M: int, N: int, D: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    if not 1 <= D <= N or (M * D) % N:
        raise ValueError(f"regular: need 1 <= D <= N and N | M·D, got M={M}, N={N}, D={D}")
    server_stubs = rng.permutation(np.repeat(np.arange(N), M * D // N))
    return _csr([np.unique(server_stubs[m * D:(m + 1) * D]) for m in range(M)])


GRAPHS = {"complete": complete, "G1": erdos_renyi, "G2": random_degree, "G3": regular}


def make_graph(kind: str, M: int, N: int, rng: np.random.Generator, degree: int | None = None,
               p: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """One graph of ``kind`` (complete, G1 with edge probability p, G2/G3 with degree D)."""
    if kind == "complete":
        return complete(M, N)
    if kind == "G1":
        return erdos_renyi(M, N, p if p is not None else min(1.0, degree / N), rng)
    if kind in ("G2", "G3"):
        return GRAPHS[kind](M, N, int(degree), rng)
    raise ValueError(f"graph kind must be one of {list(GRAPHS)}, got {kind!r}")
