"""Bipartite load balancing with heterogeneous servers (seed 003): numba kernels
(:mod:`.kernels`, :mod:`.simulate`), graph generators G1–G3 (:mod:`.graphs`), oracles
(:mod:`.oracles`), exact checks (:mod:`.checks`) and the pipeline's groups (:mod:`.experiments`)."""

from schedbench.queueing.bipartite.simulate import BipartiteResult, neighbors_csr, simulate_bipartite

__all__ = ["simulate_bipartite", "BipartiteResult", "neighbors_csr"]
