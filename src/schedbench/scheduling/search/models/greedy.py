"""Exact model of ``greedy`` (B1, index ties): each job goes to argmin over S_j of (load, index);
nothing is rejected. Objective: the final max load (= the max over time: loads only grow)."""

from __future__ import annotations

from schedbench.scheduling.search.models._core import Builder, Decisions, ExactModel


def load_dispatch(b: Builder, rule) -> Decisions:
    """Least-loaded dispatch with a per-job acceptance rule ``rule(j, c, L_j) -> rej literal or
    None`` (None: accept); loads count accepted jobs only. Shared by the LoadBalancing models."""
    md, n = b.md, b.space.n
    L = [[md.new_constant(0) for _ in b.M]]
    C, A, REJ = [], [], []
    for j in b.N:
        c = b.least(j, L[j])
        rej = rule(j, c, L[j])
        if rej is None:
            a = c
        else:
            md.add_implication(rej, b.present[j])
            a = [b.and_(c[i], ~rej, f"a{j}_{i}") for i in b.M]
        nxt = []
        for i in b.M:
            v = md.new_int_var(0, b.load_ub, f"L{j + 1}_{i}")
            md.add(v == L[j][i] + b.inc(j, a[i], f"ai{j}_{i}"))
            nxt.append(v)
        L.append(nxt)
        C.append(c), A.append(a), REJ.append(rej)
    F = b.max_of([(None, L[n][i]) for i in b.M], b.load_ub, "alg_load")
    return Decisions(C, A, None if all(r is None for r in REJ) else REJ, L, F, "load")


def build(b: Builder, eps, params: dict, T: int) -> Decisions:
    return load_dispatch(b, lambda j, c, Lj: None)


#: The setting the model follows: index ties.
INDEX_TIES = {"ties": ("index", "index ties (ties='index')")}
MODEL = ExactModel("greedy", "load", unit_only=False, rejects=False, build=build, follows=INDEX_TIES)
