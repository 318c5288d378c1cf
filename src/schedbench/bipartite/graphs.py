"""Random compatibility graphs for the bipartite model (``docs/models/bipartite.md`` §5), as CSR
(indptr over types, server indices). Every generator takes a numpy Generator (seeded by the
caller through :mod:`schedbench.hall.seeds`).

* ``complete``: every type may use every server;
* G1 ``erdos_renyi``: each (type, server) edge independently with probability p; a type left with
  no edge gets one uniform server (so every type can be served) — recorded as a decision;
* G2 ``random_degree``: each type picks D servers uniformly without replacement;
* G3 ``regular``: configuration model, D stubs per type and M·D/N per server, paired uniformly;
  repeated pairs are merged, so degrees are D up to those (rare) merges.

Arguments are checked first: M and N integers >= 1, p a finite number in (0, 1], D an integer
in 1..N, ``rng`` a ``numpy.random.Generator``, and at most
:data:`~schedbench.hall.arguments.MAX_CELLS` edges (``erdos_renyi`` draws M·N numbers);
a bad one is a ValueError naming it.
"""

from __future__ import annotations

import numpy as np

from schedbench.hall import arguments as arg

__all__ = ["complete", "erdos_renyi", "random_degree", "regular", "make_graph", "GRAPHS"]


def _csr(rows: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([r.size for r in rows])
    return indptr, (np.concatenate(rows) if rows else np.zeros(0, np.int64)).astype(np.int64)


def _sizes(func: str, M, N, rng, edges_per_type=None) -> tuple[int, int]:
    M = arg.integer(func, "M", M, low=1, high=2**62)
    N = arg.integer(func, "N", N, low=1, high=2**62)
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise ValueError(f"{func}: rng must be a numpy.random.Generator, got {rng!r}")
    arg.check_sizes(
        func,
        "M·N" if edges_per_type is None else "M·D",
        float(M) * (N if edges_per_type is None else edges_per_type),
        f"M = {M} types x {N if edges_per_type is None else edges_per_type} edges each",
    )
    return M, N


def _generator(func: str, rng) -> None:
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"{func}: rng must be a numpy.random.Generator, got {rng!r}")


def complete(M: int, N: int, rng=None) -> tuple[np.ndarray, np.ndarray]:
    M, N = _sizes("complete", M, N, None)
    return _csr([np.arange(N)] * M)


def erdos_renyi(M: int, N: int, p: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    M, N = _sizes("erdos_renyi", M, N, None)
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, float, np.integer, np.floating)) or not 0 < p <= 1:
        raise ValueError(f"erdos_renyi: p must be in (0, 1], got {p}")
    _generator("erdos_renyi", rng)
    rows = []
    for _ in range(M):
        r = np.flatnonzero(rng.random(N) < p)
        rows.append(r if r.size else rng.integers(0, N, size=1))
    return _csr(rows)


def random_degree(M: int, N: int, D: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    M, N = _sizes("random_degree", M, N, None, edges_per_type=1)
    if isinstance(D, (bool, np.bool_)) or not isinstance(D, (int, np.integer)) or not 1 <= D <= N:
        raise ValueError(f"random_degree: D must be in 1..N = {N}, got {D}")
    _sizes("random_degree", M, N, None, edges_per_type=D)
    _generator("random_degree", rng)
    return _csr([np.sort(rng.choice(N, size=D, replace=False)) for _ in range(M)])


def regular(M: int, N: int, D: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    M, N = _sizes("regular", M, N, None, edges_per_type=1)
    if isinstance(D, (bool, np.bool_)) or not isinstance(D, (int, np.integer)) or not 1 <= D <= N or (M * D) % N:
        raise ValueError(f"regular: need 1 <= D <= N and N | M·D, got M={M}, N={N}, D={D}")
    _sizes("regular", M, N, None, edges_per_type=D)
    _generator("regular", rng)
    server_stubs = rng.permutation(np.repeat(np.arange(N), M * D // N))
    return _csr([np.unique(server_stubs[m * D : (m + 1) * D]) for m in range(M)])


GRAPHS = {"complete": complete, "G1": erdos_renyi, "G2": random_degree, "G3": regular}


def make_graph(
    kind: str, M: int, N: int, rng: np.random.Generator, degree: int | None = None, p: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """One graph of ``kind`` (complete, G1 with edge probability p — default min(1, degree/N) —,
    G2/G3 with degree D). ``degree`` is an integer >= 1 (a whole float is accepted), required by
    G2/G3 and by G1 without ``p``."""
    if not isinstance(kind, str) or kind not in GRAPHS:
        raise ValueError(f"make_graph: graph kind must be one of {list(GRAPHS)}, got {kind!r}")
    if kind == "complete":
        return complete(M, N)
    if degree is not None or kind != "G1" or p is None:
        if degree is None:
            raise ValueError(
                f"make_graph: graph {kind} needs degree{' (or p)' if kind == 'G1' else ''}, got degree=None"
            )
        degree = arg.integer("make_graph", "degree", degree, low=1, integral_float=True)
    M, N = _sizes("make_graph", M, N, None, edges_per_type=1)
    if kind in ("G2", "G3") and degree > N:
        raise ValueError(f"make_graph: degree must be in 1..N = {N} for graph {kind}, got {degree}")
    if kind == "G1":
        return erdos_renyi(M, N, p if p is not None else min(1.0, degree / N), rng)
    return GRAPHS[kind](M, N, int(degree), rng)
