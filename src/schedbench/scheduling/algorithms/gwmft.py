"""GenWtdMaxFlowTime and maximum stretch with rejection: A_gen and B_gen, paper §7 (Roy
Choudhury, Das, Garg, Kumar, SODA 2015), rule of ``docs/models/rejection-model.md`` §5.

The run's problem gives the two weights (:mod:`schedbench.scheduling.problems`): the flow
weight w^f (GenWtd: ``w_flow``; stretch: 1/p_j) and the budget weight w^r (GenWtd: ``w_reject``;
stretch: 1 per job). OPT's objective is max_j w^f_j F_j; the budget counts w^r.

* A_gen [R]: classes (a, b, e) with a = ⌈log₂ p⌉, b = ⌊log₂ w^f⌋, e = ⌊log₂ w^r⌋; per-class
  least-load dispatch, limit α·T/2^b, priority load·2^b/2^a (ties: larger b, smaller a, larger
  e), FIFO inside a class; its rejections (at arrival) are charged w^r. Stretch: b = −a.
* B_gen [R]: B of §4.3 (``wmft-B``) on A_gen, with
  - timeout t − r_j ≥ c'·T/w^f_j (stretch: c'·T·p_j); ``c`` = ``"1/eps"``, ``"1/eps2"``,
    ``"1/eps4"``, ``"1/eps6"`` or a number > 0, default ``"1/eps6"`` (the O(1/ε⁶) ratio's
    Θ(1/ε⁶), theory-faithful; sweep the others);
  - ``density``: ``"flow"`` (default) ŵ^f/p̂ = 2^{b−a} (stretch: 1/p̂²), or ``"reject"``
    ŵ^r/p̂ = 2^{e−a}, the spec's alternative;
  - ``no_hopeless_preemption``: False (default, plain B_gen) or True: never preempt the job
    running on a machine, if it is partly processed, for a job that would itself time out
    before completing (it could not finish by its timeout slot even if run from now on) —
    the spec's variant against unbounded wasted work [Q: the paper cannot bound it].
* ``alpha``, ``D`` (None → 1/ε), ``oracle`` (``"opt"``: T = T*; ``"prefix-lb"``: T(t) =
  2^⌈log₂ max_j w^f_j p_j⌉ over the prefix — for stretch always 1, the spec's LB ≥ 1; the
  migratory-LP term of §5 is not used).

Guarantee, as B: every completed job has w^f_j F_j < c'·T + w^f_j ≤ (c' + 1)·OPT with T = T*.
"""

from __future__ import annotations

from schedbench.hall.params import Param
from schedbench.scheduling.algorithms._classes import ORACLES
from schedbench.scheduling.algorithms.wmft_b import WmftB
from schedbench.scheduling.registry import register_algorithm

__all__ = ["Gwmft"]


@register_algorithm
class Gwmft(WmftB):
    """A_gen/B_gen (§5): classes (a, b, e), timeout c'·T/w^f, density w^f/p (or w^r/p)."""

    name = "gwmft"
    problem = "genwtd"
    problems = ("stretch",)
    c_rules = ("1/eps", "1/eps2", "1/eps4", "1/eps6")
    parameters = {
        "alpha": Param(None, None, "A_gen's queue limit α·T/2^b (b from w^f); None: α = 1/ε"),
        "D": Param(None, None, "'much higher density' factor; None: D = 1/ε"),
        "c": Param(
            "1/eps6",
            None,
            "timeout c'·T/w^f: '1/eps', '1/eps2', '1/eps4', '1/eps6' (theory-faithful, default) or a number > 0",
        ),
        "density": Param(
            "flow",
            ("flow", "reject"),
            "B's density: flow ŵ^f/p̂ (rejection-model.md §5) or reject ŵ^r/p̂ (the spec's alternative)",
        ),
        "no_hopeless_preemption": Param(
            False,
            (False, True),
            "True: never preempt a partly processed job for one that would time "
            "out before completing (docs/models/rejection-model.md §5 variant)",
        ),
        "oracle": Param("opt", ORACLES, "opt: T = T*; prefix-lb: T(t) = 2^⌈log₂ max_j w^f_j p_j⌉ over the prefix"),
    }
    summary = "A and B on classes of flow and rejection weight; timeout c'·T/w^f"
    bound = "O(1/ε⁶)"
    cites = "cdgk"
    section = "§7"
    reference = "Roy Choudhury et al. SODA 2015 §7 (GenWtdMaxFlowTime, max stretch); rejection-model.md §5, §4.3, §10"

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.by_reject = self.params["density"] == "reject"
        self.no_hopeless = bool(self.params["no_hopeless_preemption"])
        self.counters["hopeless_kept"] = 0
        self.kept: set[int] = set()  # machines whose running job was kept against a hopeless one

    def T_changed(self) -> None:
        # a larger T moves timeouts later: a job found hopeless may not be any more
        self.bdirty.update(self.kept)

    def density_exponent(self, c: tuple) -> int:
        return (c[2] if self.by_reject else c[1]) - c[0]

    def keep_running(self, i: int, t: int, pick: int) -> int:
        cur = self.brun[i]
        self.kept.discard(i)
        if not self.no_hopeless or cur < 0 or pick == cur or pick < 0 or self.brem[cur] == self.size[cur]:
            return pick
        if t + self.brem[pick] > self.timeout_of(pick):  # pick would be rejected before it completes
            # (with a fixed T it only gets more hopeless while it waits: no re-check needed
            # until the machine changes, or T does)
            self.counters["hopeless_kept"] += 1
            self.kept.add(i)
            return cur
        return pick
