"""Online simulation engines. Only the dispatch-only engine (LoadBalancing) exists so far."""

from schedbench.scheduling.engine.dispatch import AlgorithmError, simulate_dispatch

__all__ = ["AlgorithmError", "simulate_dispatch"]
