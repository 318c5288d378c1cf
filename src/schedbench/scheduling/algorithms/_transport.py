"""The batch LP of ``anand-batch`` (algorithms/anand_batch.py) solved exactly as a transportation
problem, compiled.

The LP (per batch, at the current T): x_ij ≥ 0 over i ∈ S_j, Σ_i x_ij = 1 per job,
Σ_j p_j x_ij ≤ C per machine (C = ⌊span + T⌋). Jobs of one type (size p_t, eligible set S_t)
are merged: y_ti ∈ [0, count_t], Σ_i y_ti = count_t. In volume units z_ti = p_t·y_ti it is a
transportation problem — source → type t (capacity p_t·count_t), type → eligible machine
(unbounded), machine → sink (capacity C) — feasible iff the maximum flow carries the whole
volume. Integral capacities give an integral flow z (Dinic's algorithm).

The rounding (Lenstra–Shmoys–Tardos) needs the **fractional support** — the pairs with y_ti not
an integer, i.e. z_ti not a multiple of p_t — to be a forest: then every type's leftover jobs can
be matched to distinct machines among its fractional ones, at most one per machine over the
batch (root each tree; a type with r leftovers has ≥ r + 1 fractional pairs, at most one to its
parent). A simplex vertex has that property; a max flow need not, so cycles of the fractional
support are cancelled: around a cycle (type, machine, type, machine, ...) the volume changes
alternate +δ, −δ — every type keeps its volume, every machine its load — and δ is the smallest
step that makes one pair's z a multiple of its p (an integer ≥ 1; z never goes negative, since a
decreasing pair stops at the multiple below it). Each cancellation leaves the fractional support
with one pair fewer; all in integers, so the result is the same on every machine.
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.jit import compiled

__all__ = ["transport_flow"]

_INF = np.int64(1) << np.int64(60)


@compiled
def _max_flow(nt, m, indptr, indices, volume, cap):
    """Dinic on source → types → machines → sink; returns (flow value, z per (type, machine)
    pair in CSR order)."""
    npairs = indices.shape[0]
    nv = nt + m + 2
    src, snk = nt + m, nt + m + 1
    ne = 2 * (nt + npairs + m)
    to = np.empty(ne, np.int64)
    rc = np.empty(ne, np.int64)  # residual capacity
    nxt = np.empty(ne, np.int64)
    head = np.full(nv, -1, np.int64)
    k = 0
    for t in range(nt):
        to[k], rc[k], nxt[k], head[src] = t, volume[t], head[src], k
        k += 1
        to[k], rc[k], nxt[k], head[t] = src, 0, head[t], k
        k += 1
    pair_edge = np.empty(npairs, np.int64)
    for t in range(nt):
        for e in range(indptr[t], indptr[t + 1]):
            i = nt + indices[e]
            pair_edge[e] = k
            to[k], rc[k], nxt[k], head[t] = i, _INF, head[t], k
            k += 1
            to[k], rc[k], nxt[k], head[i] = t, 0, head[i], k
            k += 1
    for i in range(m):
        u = nt + i
        to[k], rc[k], nxt[k], head[u] = snk, cap, head[u], k
        k += 1
        to[k], rc[k], nxt[k], head[snk] = u, 0, head[snk], k
        k += 1
    level = np.empty(nv, np.int64)
    queue = np.empty(nv, np.int64)
    it = np.empty(nv, np.int64)
    path = np.empty(nv, np.int64)  # edges of the current path
    total = 0
    while True:
        level[:] = -1
        level[src] = 0
        qh, qt = 0, 1
        queue[0] = src
        while qh < qt:
            u = queue[qh]
            qh += 1
            e = head[u]
            while e >= 0:
                if rc[e] > 0 and level[to[e]] < 0:
                    level[to[e]] = level[u] + 1
                    queue[qt] = to[e]
                    qt += 1
                e = nxt[e]
        if level[snk] < 0:
            break
        it[:] = head
        depth = 0
        u = src
        while True:
            if u == snk:
                push = _INF
                for d in range(depth):
                    if rc[path[d]] < push:
                        push = rc[path[d]]
                for d in range(depth):
                    rc[path[d]] -= push
                    rc[path[d] ^ 1] += push
                total += push
                # back to the tail of the first saturated edge
                for d in range(depth):
                    if rc[path[d]] == 0:
                        depth = d
                        break
                u = src if depth == 0 else to[path[depth - 1]]
                continue
            e = it[u]
            while e >= 0 and not (rc[e] > 0 and level[to[e]] == level[u] + 1):
                e = nxt[e]
            it[u] = e
            if e >= 0:
                path[depth] = e
                depth += 1
                u = to[e]
            else:  # dead end: retreat
                if u == src:
                    break
                level[u] = -1
                depth -= 1
                u = src if depth == 0 else to[path[depth - 1]]
                it[u] = nxt[it[u]]
    z = np.empty(npairs, np.int64)
    for e in range(npairs):
        z[e] = rc[pair_edge[e] ^ 1]
    return total, z


@compiled
def _cancel_fractional_cycles(nt, m, indptr, indices, size, z):
    """Cancel every cycle of the fractional support in place (see the module docstring); returns
    the number of cancellations."""
    npairs = indices.shape[0]
    owner = np.empty(npairs, np.int64)
    for t in range(nt):
        for e in range(indptr[t], indptr[t + 1]):
            owner[e] = t
    # pairs by machine (counting sort)
    mptr = np.zeros(m + 1, np.int64)
    for e in range(npairs):
        mptr[indices[e] + 1] += 1
    for i in range(m):
        mptr[i + 1] += mptr[i]
    fill = mptr[:-1].copy()
    by_machine = np.empty(npairs, np.int64)
    for e in range(npairs):
        by_machine[fill[indices[e]]] = e
        fill[indices[e]] += 1
    frac = np.empty(npairs, np.bool_)
    for e in range(npairs):
        frac[e] = z[e] % size[owner[e]] != 0
    nv = nt + m
    state = np.zeros(nv, np.int8)  # 0 new, 1 on the current search, 2 in an acyclic component
    parent_edge = np.full(nv, -1, np.int64)
    pos = np.zeros(nv, np.int64)
    stack = np.empty(nv, np.int64)
    seen = np.empty(nv, np.int64)
    cyc = np.empty(nv + 1, np.int64)
    cancelled = 0
    for root in range(nv):
        if state[root] != 0:
            continue
        restart = True
        while restart:
            restart = False
            nseen = 0
            sp = 0
            stack[0] = root
            state[root] = 1
            parent_edge[root] = -1
            pos[root] = 0
            seen[nseen] = root
            nseen += 1
            while sp >= 0:
                u = stack[sp]
                if u < nt:
                    lo, hi = indptr[u], indptr[u + 1]
                else:
                    lo, hi = mptr[u - nt], mptr[u - nt + 1]
                found = False
                while pos[u] < hi - lo:
                    k = lo + pos[u]
                    pos[u] += 1
                    e = k if u < nt else by_machine[k]
                    if not frac[e] or e == parent_edge[u]:
                        continue
                    w = nt + indices[e] if u < nt else owner[e]
                    if state[w] == 0:
                        state[w] = 1
                        parent_edge[w] = e
                        pos[w] = 0
                        seen[nseen] = w
                        nseen += 1
                        sp += 1
                        stack[sp] = w
                        found = True
                        break
                    if state[w] == 1:
                        # a cycle: e, then the tree path from u up to w
                        nc = 0
                        cyc[nc] = e
                        nc += 1
                        x = u
                        while x != w:
                            pe = parent_edge[x]
                            cyc[nc] = pe
                            nc += 1
                            x = owner[pe] if x >= nt else nt + indices[pe]
                        # signs alternate around the cycle; step until a pair turns integral
                        delta = _INF
                        for c in range(nc):
                            p = size[owner[cyc[c]]]
                            r = z[cyc[c]] % p
                            step = p - r if c % 2 == 0 else r
                            if step < delta:
                                delta = step
                        for c in range(nc):
                            if c % 2 == 0:
                                z[cyc[c]] += delta
                            else:
                                z[cyc[c]] -= delta
                            frac[cyc[c]] = z[cyc[c]] % size[owner[cyc[c]]] != 0
                        cancelled += 1
                        restart = True
                        break
                if restart:
                    break
                if not found:
                    sp -= 1
            for s in range(nseen):
                state[seen[s]] = 0 if restart else 2
    return cancelled


def transport_flow(
    indptr: np.ndarray, indices: np.ndarray, size: np.ndarray, count: np.ndarray, cap: int, m: int
) -> tuple[np.ndarray | None, int]:
    """(z, cycles cancelled): the volume z_ti = p_t·y_ti per (type, eligible machine) pair in CSR
    order (integers), with Σ_i y_ti = count_t, Σ_t z_ti ≤ cap and a forest as fractional support
    (the pairs where p_t does not divide z_ti); (None, 0) if the LP is infeasible."""
    nt = size.shape[0]
    indptr = np.ascontiguousarray(indptr, dtype=np.int64)
    indices = np.ascontiguousarray(indices, dtype=np.int64)
    size = np.ascontiguousarray(size, dtype=np.int64)
    volume = size * np.asarray(count, dtype=np.int64)
    total, z = _max_flow(nt, int(m), indptr, indices, volume, int(cap))
    if total < int(volume.sum()):
        return None, 0
    cancelled = _cancel_fractional_cycles(nt, int(m), indptr, indices, size, z)
    return z, int(cancelled)
