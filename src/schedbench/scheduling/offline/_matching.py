"""Numba kernels of the max-flow-time optimum (docs/models/rejection-model.md §8.2): list schedule, per-machine EDF, and
Hopcroft–Karp on the implicit job × (machine, slot) graph of unit jobs.

Every array is checked by the caller (:mod:`schedbench.scheduling.offline.maxflow`) before it
reaches these kernels; they assume valid, consistent input.

**Implicit graph.** Job j may take slot offset t ∈ [0, wl_j) (time r_j + t) on any machine of
S_j. Right-side nodes are (machine, time) pairs, numbered per machine over the union of the
windows of that machine's jobs only (time compression): CSR entry k = (j, i) gets ``base[k]``,
and the slot r_j + t on i is node ``base[k] + t``. Within one machine the union is a set of
disjoint segments; each window lies inside one segment, so its nodes are consecutive.
A matched job stores its CSR entry ``match_k[j]`` and offset ``match_off[j]``: a matching valid
for window lengths wl stays valid (after renumbering) for any longer windows, and the pairs
with offset < wl' are a valid partial matching for shorter windows wl'.
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.jit import compiled

__all__ = ["list_schedule", "edf_completion", "slot_bases", "seed_matching", "greedy_fill", "hopcroft_karp"]


@compiled
def list_schedule(order, release, size, indptr, indices, m):
    """FIFO list schedule: jobs in ``order`` (arrival order), each to the eligible machine where
    it starts earliest (ties: lowest index), run without preemption. Returns (machine,
    completion). On one machine, FIFO is EDF for deadlines r_j + T, so the max flow of this
    schedule is a feasible upper bound."""
    n = release.shape[0]
    free = np.zeros(m, dtype=np.int64)
    machine = np.empty(n, dtype=np.int64)
    completion = np.empty(n, dtype=np.int64)
    for j in order:
        r = release[j]
        best = -1
        best_start = 0
        for k in range(indptr[j], indptr[j + 1]):
            i = indices[k]
            s = free[i] if free[i] > r else r
            if best < 0 or s < best_start or (s == best_start and i < best):
                best = i
                best_start = s
        machine[j] = best
        completion[j] = best_start + size[j]
        free[best] = completion[j]
    return machine, completion


@compiled
def _heap_less(a, b, deadline, rank):
    return deadline[a] < deadline[b] or (deadline[a] == deadline[b] and rank[a] < rank[b])


@compiled(inline="always")
def _heap_swap(heap, a, b):
    """Entries a and b of the heap change places (sift up and sift down alike)."""
    tmp = heap[a]
    heap[a] = heap[b]
    heap[b] = tmp


@compiled
def edf_completion(ptr, jobs, release, size, deadline, rank):
    """Preemptive EDF on each machine: ``jobs[ptr[i]:ptr[i+1]]`` are machine i's jobs sorted
    by release. Ties in deadline go to the lower ``rank`` (arrival position). Returns the
    completion time of every listed job (EDF is optimal for one preemptive machine, rejection-model.md §8.2)."""
    n = release.shape[0]
    completion = np.zeros(n, dtype=np.int64)
    rem = size.copy()
    heap = np.empty(jobs.shape[0] + 1, dtype=np.int64)
    m = ptr.shape[0] - 1
    for i in range(m):
        s, e = ptr[i], ptr[i + 1]
        p = s
        hs = 0
        t = np.int64(0)
        while p < e or hs > 0:
            if hs == 0 and release[jobs[p]] > t:
                t = release[jobs[p]]
            while p < e and release[jobs[p]] <= t:
                # push jobs[p]
                x = jobs[p]
                c = hs
                heap[hs] = x
                hs += 1
                while c > 0:
                    par = (c - 1) // 2
                    if _heap_less(heap[c], heap[par], deadline, rank):
                        _heap_swap(heap, c, par)
                        c = par
                    else:
                        break
                p += 1
            j = heap[0]
            run = rem[j]
            if p < e and release[jobs[p]] - t < run:
                run = release[jobs[p]] - t
            t += run
            rem[j] -= run
            if rem[j] == 0:
                completion[j] = t
                hs -= 1
                heap[0] = heap[hs]
                c = 0
                while True:
                    lft = 2 * c + 1
                    if lft >= hs:
                        break
                    best = lft
                    if lft + 1 < hs and _heap_less(heap[lft + 1], heap[lft], deadline, rank):
                        best = lft + 1
                    if _heap_less(heap[best], heap[c], deadline, rank):
                        _heap_swap(heap, c, best)
                        c = best
                    else:
                        break
    return completion


@compiled
def slot_bases(ent_ptr, ent, owner, release, wl, base):
    """Number the right-side nodes (module docstring): fill ``base`` (one per CSR entry) and
    return their count. ``ent[ent_ptr[i]:ent_ptr[i+1]]`` are machine i's CSR entries sorted by
    release; ``wl`` is each job's window length (>= 1)."""
    total = np.int64(0)
    m = ent_ptr.shape[0] - 1
    for i in range(m):
        seg_start = np.int64(0)
        seg_end = np.int64(-1)  # exclusive end of the current segment
        seg_base = np.int64(0)
        first = True
        for q in range(ent_ptr[i], ent_ptr[i + 1]):
            k = ent[q]
            j = owner[k]
            r = release[j]
            end = r + wl[j]
            if first or r >= seg_end:
                if not first:
                    total += seg_end - seg_start
                seg_start = r
                seg_end = end
                seg_base = total
                first = False
            elif end > seg_end:
                seg_end = end
            base[k] = seg_base + (r - seg_start)
        if not first:
            total += seg_end - seg_start
    return total


@compiled
def seed_matching(match_k, match_off, wl, base, match_r):
    """Renumber a previous matching for the current windows: keep the pairs whose offset fits
    in the job's window, drop the others. ``match_r`` must be all -1. Returns the matched count."""
    n = match_k.shape[0]
    cnt = 0
    for j in range(n):
        k = match_k[j]
        if k < 0:
            continue
        if match_off[j] >= wl[j]:
            match_k[j] = -1
            continue
        v = base[k] + match_off[j]
        if match_r[v] >= 0:  # cannot happen for a valid previous matching; be safe
            match_k[j] = -1
            continue
        match_r[v] = j
        cnt += 1
    return cnt


@compiled
def greedy_fill(order, indptr, base, wl, match_k, match_off, match_r):
    """Match each free job (in ``order``) to its earliest free slot, any eligible machine."""
    cnt = 0
    for j in order:
        if match_k[j] >= 0:
            continue
        done = False
        for t in range(wl[j]):
            for k in range(indptr[j], indptr[j + 1]):
                v = base[k] + t
                if match_r[v] < 0:
                    match_r[v] = j
                    match_k[j] = k
                    match_off[j] = t
                    cnt += 1
                    done = True
                    break
            if done:
                break
    return cnt


@compiled
def hopcroft_karp(indptr, base, wl, match_k, match_off, match_r, max_phases):
    """Run up to ``max_phases`` Hopcroft–Karp phases from the given matching (updated in place).
    Returns (matched count, finished): ``finished`` means the matching is maximum."""
    n = match_k.shape[0]
    INF = np.int64(1) << 62
    dist = np.empty(n, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    cursor = np.empty(n, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    finished = False
    for _phase in range(max_phases):
        # BFS: layers of jobs from the free ones.
        qt = 0
        for j in range(n):
            if match_k[j] < 0:
                dist[j] = 0
                queue[qt] = j
                qt += 1
            else:
                dist[j] = INF
            cursor[j] = 0
        nfree = qt
        if nfree == 0:
            finished = True
            break
        limit = INF
        qh = 0
        while qh < qt:
            u = queue[qh]
            qh += 1
            du = dist[u]
            if du >= limit:
                break
            w_len = wl[u]
            for k in range(indptr[u], indptr[u + 1]):
                b = base[k]
                for t in range(w_len):
                    w = match_r[b + t]
                    if w < 0:
                        if limit == INF:
                            limit = du + 1
                    elif dist[w] == INF:
                        dist[w] = du + 1
                        queue[qt] = w
                        qt += 1
        if limit == INF:
            finished = True
            break
        # DFS along the layers from every free job (iterative, one cursor per job).
        for f in range(nfree):
            src = queue[f]
            if match_k[src] >= 0 or dist[src] != 0:
                continue
            sp = 0
            stack[0] = src
            while sp >= 0:
                u = stack[sp]
                w_len = wl[u]
                deg = (indptr[u + 1] - indptr[u]) * w_len
                advanced = False
                while cursor[u] < deg:
                    c = cursor[u]
                    k = indptr[u] + c // w_len
                    v = base[k] + c % w_len
                    w = match_r[v]
                    if w < 0:
                        # Augment along the stack: level s takes the node its cursor points at.
                        for s in range(sp, -1, -1):
                            x = stack[s]
                            cx = cursor[x]
                            wx = wl[x]
                            kx = indptr[x] + cx // wx
                            vx = base[kx] + cx % wx
                            match_r[vx] = x
                            match_k[x] = kx
                            match_off[x] = cx % wx
                            dist[x] = INF  # used in this phase
                        sp = -1
                        advanced = True
                        break
                    if dist[w] == dist[u] + 1 and dist[w] < limit:
                        sp += 1
                        stack[sp] = w
                        advanced = True
                        break
                    cursor[u] += 1
                if not advanced:
                    dist[u] = INF  # dead end for this phase
                    sp -= 1
                    if sp >= 0:
                        cursor[stack[sp]] += 1
    cnt = 0
    for j in range(n):
        if match_k[j] >= 0:
            cnt += 1
    return cnt, finished
