"""Exact model of ``mft-unit`` (rejection-model.md §3) with the oracle T = T*: unit jobs; shortest queue (the
job in service counted, index ties); rejected on arrival when that queue holds ≥ Qcap = ⌈c·T/ε⌉;
FIFO. Between arrivals r_{j−1} ≤ r_j every busy machine finishes one job per slot, so the queue
job j sees is max(0, queue after j−1 − (r_j − r_{j−1})), and a job joining a queue of length Q
has flow Q + 1."""

from __future__ import annotations

from schedbench.scheduling.algorithms.mft_unit import queue_cap
from schedbench.scheduling.search.models._core import ORACLE_OPT, Builder, Decisions, ExactModel
from schedbench.scheduling.search.models.greedy_cap import over_cap


def build(b: Builder, eps, params: dict, T: int) -> Decisions:
    md, n = b.md, b.space.n
    cap = queue_cap(float(T), eps, float(params.get("cap_factor", 1.0)))
    Q = [[md.new_constant(0) for _ in b.M]]
    C, A, REJ, cands = [], [], [], []
    for j in b.N:
        c = b.least(j, Q[j])
        rej = over_cap(b, j, c, Q[j], cap + 1, "rej")  # queue + 1 ≥ cap + 1  ⟺  queue ≥ cap
        a = [b.and_(c[i], ~rej, f"a{j}_{i}") for i in b.M]
        for i in b.M:
            cands.append((a[i], Q[j][i] + 1))
        after = [Q[j][i] + a[i] for i in b.M]
        nxt = []
        for i in b.M:
            v = md.new_int_var(0, n, f"Q{j + 1}_{i}")
            if j + 1 < n:
                md.add_max_equality(v, [0, after[i] - (b.release[j + 1] - b.release[j])])
            else:
                md.add(v == after[i])
            nxt.append(v)
        Q.append(nxt)
        C.append(c), A.append(a), REJ.append(rej)
    F = b.max_of(cands, n, "alg_flow")
    return Decisions(C, A, REJ, Q, F, "flow", {"cap": cap})


MODEL = ExactModel("mft-unit", "maxflow", unit_only=True, rejects=True, build=build, follows=ORACLE_OPT)
