"""The bipartite wing: load balancing with heterogeneous servers on a bipartite graph.
Numba kernels (:mod:`.kernels`, :mod:`.simulate`), graph generators G1–G3 (:mod:`.graphs`),
oracles (:mod:`.oracles`), the stability check (:mod:`.capacity`), and its pipeline stage
(:mod:`.stage`: groups, exact checks, rate fits, config checks, tables, report views, figures)."""

from __future__ import annotations

from schedbench.hall.lazy import lazy_getattr

#: the wing's public names, loaded on first use (see ``schedbench.loss``): importing one room of
#: the wing does not import the numba simulators
_EXPORTS = {
    "simulate_bipartite": "schedbench.bipartite.simulate",
    "BipartiteResult": "schedbench.bipartite.simulate",
    "neighbors_csr": "schedbench.bipartite.simulate",
}

__all__ = list(_EXPORTS)


__getattr__ = lazy_getattr(__name__, _EXPORTS)
