"""Can a compatibility graph carry the load with slack? (docs/hostile-input.md: an overloaded bipartite system
is reported as unstable, never given a finite steady-state E[T]).

With infinite buffers a dispatching system can be stable only if the arrival rates lie strictly
inside the graph's capacity region: every set T of job types must have
λ(T) < μ(N(T)), the total rate of the servers it may use (Hall's condition with slack). By
max-flow/min-cut this holds iff the max flow source → types (capacities λ_m) → servers →
sink (capacities μ_n) carries all of Λ *and* every type can still reach the sink in the residual
graph — a type that cannot lies in a set T with λ(T) = μ(N(T)), a critically loaded subsystem
(null recurrent at best). One max flow (scipy, int32 capacities); with rates that are not
multiples of a small unit (:func:`integer_scale`) they are rounded towards overload (λ up, μ
down) to multiples of about (Λ + Σμ)/2^30, so a system that close to a capacity boundary (or
with rates that small) counts as overloaded; the reason then says so.
"""

from __future__ import annotations

import numpy as np

__all__ = ["integer_scale", "carries_load", "flow_network", "CAPACITY_BOUNDARY"]

#: Λ/Σμ within this relative distance of 1 is the capacity boundary up to rounding: unstable
#: (a load of 0.9999999999999999 was called stable, and its E[T] grew with the run length).
CAPACITY_BOUNDARY = 1e-9


def integer_scale(values: np.ndarray, limit: float) -> tuple[float, bool]:
    """A factor making every value an integer (exact) if a small one exists, else the largest
    factor that keeps ``limit``·factor inside int32 (rates are then rounded)."""
    top = (2**31 - 2) / limit
    for scale in (1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 200, 250, 500, 1000, 10**4, 10**5, 10**6):
        if scale <= top and np.allclose(values * scale, np.round(values * scale), rtol=0, atol=1e-9):
            return float(scale), True
    return float(top), False


def flow_network(M: int, N: int, indptr: np.ndarray, indices: np.ndarray):
    """The edges of source → types → servers → sink for M types and N servers (nodes: source
    0, types 1..M, servers M+1..M+N, sink M+N+1), in the order source→type (M edges),
    type→server (one per CSR entry), server→sink (N edges). Returns (tails, heads, sink)."""
    src, t0, s0, sink = 0, 1, 1 + M, 1 + M + N
    counts = np.diff(indptr)
    tails = np.concatenate([np.full(M, src), t0 + np.repeat(np.arange(M), counts), s0 + np.arange(N)])
    heads = np.concatenate([t0 + np.arange(M), s0 + indices, np.full(N, sink)])
    return tails, heads, sink


def carries_load(mu: np.ndarray, lam: np.ndarray, indptr: np.ndarray, indices: np.ndarray) -> tuple[bool, str]:
    """(True, "") if the rates ``lam`` (types) lie strictly inside the capacity region of the
    graph (``indptr``/``indices`` over types, checked by the caller) with server rates ``mu``;
    else (False, why)."""
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import breadth_first_order, maximum_flow

    N, M = mu.size, lam.size
    lam_tot = float(lam.sum())
    if lam_tot >= float(mu.sum()):
        return False, f"the graph cannot carry the load: Λ/Σμ = {lam_tot / float(mu.sum()):.6g} >= 1 (lam, mu)"
    if lam_tot >= float(mu.sum()) * (1.0 - CAPACITY_BOUNDARY):  # e.g. a load of 0.9999999999999999
        return False, (
            f"the load is at the capacity boundary: Λ/Σμ = {lam_tot / float(mu.sum())!r} is 1 up to "
            f"a relative {CAPACITY_BOUNDARY:g} (rounding): critically loaded, no steady state (lam, mu)"
        )
    scale, exact = integer_scale(np.concatenate([lam, mu]), 2.0 * (lam_tot + float(mu.sum())))
    if exact:
        cap_lam = np.round(lam * scale).astype(np.int64)
        cap_mu = np.round(mu * scale).astype(np.int64)
    else:  # round towards overload
        cap_lam = np.ceil(lam * scale).astype(np.int64)
        cap_mu = np.floor(mu * scale).astype(np.int64)
    need = int(cap_lam.sum())
    tails, heads, sink = flow_network(M, N, indptr, indices)
    src, t0 = 0, 1
    caps = np.concatenate([cap_lam, np.full(indices.size, need + 1), cap_mu])
    size = sink + 1
    graph = csr_array((caps.astype(np.int32), (tails, heads)), shape=(size, size))
    result = maximum_flow(graph, src, sink)
    rounded = (
        ""
        if exact
        else (
            f" (rates rounded towards overload to multiples of {1 / scale:.3g}: a system "
            f"this close to the capacity boundary counts as overloaded)"
        )
    )
    if int(result.flow_value) < need:
        return False, (
            "the graph cannot carry the load: some job types may only use servers whose total "
            "rate is below theirs (lam, mu, indices)" + rounded
        )
    flow = result.flow.tocsr()
    f = np.asarray(flow[tails, heads]).ravel().astype(np.int64)
    fwd = caps - f > 0  # residual capacity along each edge
    back = f > 0  # and against it
    # residual graph reversed (edges v -> u for every residual u -> v): who reaches the sink?
    r_tails = np.concatenate([heads[fwd], tails[back]])
    r_heads = np.concatenate([tails[fwd], heads[back]])
    reverse = csr_array((np.ones(r_tails.size, dtype=np.int8), (r_tails, r_heads)), shape=(size, size))
    reach = np.zeros(size, dtype=bool)
    reach[breadth_first_order(reverse, sink, directed=True, return_predecessors=False)] = True
    stuck = np.flatnonzero(~reach[t0 : t0 + M])
    if stuck.size:
        return False, (
            f"the graph cannot carry the load with slack: job type {int(stuck[0])} belongs to a "
            f"set of types whose rate equals the total rate of the servers it may use "
            f"(critically loaded; lam, mu, indices)" + rounded
        )
    return True, ""
