"""Exact model of ``drop-every-k`` (B8): least-loaded (index ties); each machine rejects every
k-th job routed to it, k = ⌈1/ε⌉ (a per-machine counter mod k)."""

from __future__ import annotations

from schedbench.scheduling.budget import drop_period
from schedbench.scheduling.search.models._core import Builder, Decisions, ExactModel


def build(b: Builder, eps, params: dict, T: int) -> Decisions:
    md, n = b.md, b.space.n
    k = drop_period(eps)  # the plug-in's k (budget.py)
    L = [[md.new_constant(0) for _ in b.M]]
    cnt = [md.new_constant(0) for _ in b.M]  # jobs routed to i so far, mod k
    C, A, REJ = [], [], []
    for j in b.N:
        c = b.least(j, L[j])
        full = [b.reify_ge(cnt[i], k - 1, f"full{j}_{i}") for i in b.M]
        drop = [b.and_(c[i], full[i], f"drop{j}_{i}") for i in b.M]
        rej = md.new_bool_var(f"rej{j}")
        md.add(rej == sum(drop))
        a = [md.new_bool_var(f"a{j}_{i}") for i in b.M]
        nxt, ncnt = [], []
        for i in b.M:
            md.add(a[i] == c[i] - drop[i])
            v = md.new_int_var(0, b.load_ub, f"L{j + 1}_{i}")
            md.add(v == L[j][i] + b.inc(j, a[i], f"ai{j}_{i}"))
            w = md.new_int_var(0, k - 1, f"cnt{j + 1}_{i}")
            md.add(w == cnt[i] + c[i] - k * drop[i])
            nxt.append(v), ncnt.append(w)
        L.append(nxt)
        cnt = ncnt
        C.append(c), A.append(a), REJ.append(rej)
    F = b.max_of([(None, L[n][i]) for i in b.M], b.load_ub, "alg_load")
    return Decisions(C, A, REJ, L, F, "load", {"k": k})


MODEL = ExactModel("drop-every-k", "load", unit_only=False, rejects=True, build=build)
