"""The bipartite wing: load balancing with heterogeneous servers on a bipartite graph (seed 003).
Numba kernels (:mod:`.kernels`, :mod:`.simulate`), graph generators G1–G3 (:mod:`.graphs`),
oracles (:mod:`.oracles`), the stability check (:mod:`.capacity`), and its pipeline stage
(:mod:`.stage`: groups, exact checks, rate fits, config checks, tables, report views, figures)."""

from schedbench.bipartite.simulate import BipartiteResult, neighbors_csr, simulate_bipartite

__all__ = ["simulate_bipartite", "BipartiteResult", "neighbors_csr"]
