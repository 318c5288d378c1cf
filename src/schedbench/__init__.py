"""schedbench: online load balancing and scheduling with job rejection, benchmarked.

Quick start::

    import schedbench
    inst = schedbench.Instance.from_lists(2, [0, 0, 0], [1, 1, 1], [[0], [0, 1], [1]])
    res = schedbench.run("lb-unit-reject", inst, eps=0.25)
    res.objective, res.valid, res.ratio

The queueing models have theirs too: ``schedbench.simulate_loss`` and
``schedbench.solve_loss_exact`` (the loss system), ``schedbench.simulate_bipartite``
(bipartite load balancing).

The names below are loaded on first use, so that importing one wing (e.g.
``schedbench.loss``) does not import the others: a pipeline job then depends only on the
sources it really uses.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from schedbench.hall.lazy import lazy_getattr

#: The wings, one line each: the stage module exporting its ``WING`` (:mod:`schedbench.hall.wing`
#: reads this list when first asked for the wings), in the order the paper's macros, the results
#: tables and the checks take them. Adding a wing is its folder and one line here. Imported on
#: first use, not with the package.
WINGS = (
    "schedbench.scheduling.stage",
    "schedbench.loss.stage",
    "schedbench.bipartite.stage",
)

_EXPORTS = {
    "RunResult": "schedbench.api",
    "run": "schedbench.api",
    "run_adversary": "schedbench.api",
    "ClaimedOptError": "schedbench.api",
    "Instance": "schedbench.scheduling.model",
    "InstanceError": "schedbench.scheduling.model",
    "Outcome": "schedbench.scheduling.model",
    "OptResult": "schedbench.scheduling.offline",
    "opt_makespan": "schedbench.scheduling.offline",
    "solve_opt": "schedbench.scheduling.offline",
    "opt_max_flow": "schedbench.scheduling.offline",
    "max_flow_lower_bound": "schedbench.scheduling.offline",
    "worst_case": "schedbench.scheduling.search",
    "search_worst": "schedbench.scheduling.search",
    "WorstCase": "schedbench.scheduling.search",
    "adversary_names": "schedbench.scheduling.registry",
    "algorithm_names": "schedbench.scheduling.registry",
    "family_names": "schedbench.scheduling.registry",
    "get_adversary": "schedbench.scheduling.registry",
    "get_algorithm": "schedbench.scheduling.registry",
    "get_family": "schedbench.scheduling.registry",
    "use_plugins": "schedbench.scheduling.registry",
    "PluginError": "schedbench.scheduling.registry",
    # the loss system: one point simulated, or its exact value (the wing's own names, schedbench.loss)
    "simulate_loss": "schedbench.loss.simulate",
    "LossResult": "schedbench.loss.simulate",
    "solve_loss_exact": "schedbench.loss.exact",
    "LossExact": "schedbench.loss.exact",
    # bipartite load balancing: one system simulated (its exact values: schedbench.bipartite.oracles)
    "simulate_bipartite": "schedbench.bipartite.simulate",
    "BipartiteResult": "schedbench.bipartite.simulate",
    "neighbors_csr": "schedbench.bipartite.simulate",
}

try:
    __version__ = version("schedbench")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

__all__ = [*_EXPORTS, "__version__"]


__getattr__ = lazy_getattr(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted(__all__)
