"""MaxFlowTime with rejection, unit jobs: paper §6.1, rule of ``docs/models/rejection-model.md``
§3 (Roy Choudhury, Das, Garg, Kumar, SODA 2015).

Send each job to the machine of its eligible set with the shortest queue (the job in service
included, ties to the lowest index); if that queue already holds Qcap = ⌈c·T/ε⌉ jobs, reject
the job on arrival. Each machine runs its queue FIFO. Immediate dispatch, immediate reject.

* ``cap_factor`` c: 1 (default, the levels-of-T* reading [Q-derived]) or 2 (the spec's
  alternative 2T/ε [U]); any number > 0.
* ``oracle="opt"`` (default): T = T*, the offline optimum [Q: the paper assumes it].
  ``oracle="prefix"``: T(t) = OPT of the prefix, exactly (§3 "Removing T*" [R]);
  ``"prefix-pow2"``: its power-of-two round-up. Caps only grow; queued jobs are unaffected.

Guarantee: FIFO, so a job joining a queue of length Q < Qcap completes Q + 1 slots later and
max flow ≤ Qcap; with T* the rejections are ≤ ε·arrivals at every prefix [Q]. With a prefix
T the flow bound still holds against OPT (T(t) ≤ OPT), the budget is not proven.

Compiled path: :func:`mft_unit_rule` on the machine core (:mod:`~schedbench.scheduling.machines`)
with a queue cap per arrival; with a prefix oracle the run is repeated from the first rejection
not yet confirmed, with T refreshed there as the step path does (:meth:`MftUnit._compiled_prefix_run`).
"""

from __future__ import annotations


import numpy as np

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param
from schedbench.scheduling import machines as mc
from schedbench.scheduling.algorithms._flow_rules import PrefixFlowOpt, csr_rows, shortest_queue
from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm
from schedbench.scheduling.budget import ceil_over_eps
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.registry import register_algorithm


def queue_cap(T: float, eps: float, cap_factor: float) -> int:
    """Qcap = ⌈c·T/ε⌉ (at least 1)."""
    return max(1, ceil_over_eps(cap_factor * T, eps))


@register_algorithm
class MftUnit(OnlineAlgorithm):
    name = "mft-unit"
    problem = "maxflow"
    model = "rejection"
    rule_label = "Q"
    unit_sizes_only = True
    parameters = {
        "cap_factor": Param(1.0, None, "Qcap = ⌈cap_factor·T/ε⌉ (1: [Q-derived], 2: the 2T/ε reading [U])"),
        "oracle": Param(
            "opt",
            ("opt", "prefix", "prefix-pow2"),
            "opt: T = T* [Q]; prefix: T = OPT(prefix) [R]; prefix-pow2: its power-of-2 round-up [R]",
        ),
    }
    summary = "shortest queue of S_j; reject when it holds ⌈c·T/ε⌉ jobs; FIFO"
    bound = "O(1/ε): ⌈T*/ε⌉"
    cites = "cdgk"
    section = "§6.1"
    reference = "Roy Choudhury et al. SODA 2015 §6.1; docs/models/rejection-model.md §3"

    @classmethod
    def check_params(cls, params):
        cls._positive_number(params, "cap_factor")

    @classmethod
    def cap_by_construction(cls, params):
        """Every oracle: the queue cap ⌈c·T/ε⌉ bounds the max flow and T ≤ OPT (T ≤ 2·OPT with
        prefix-pow2, its bound doubled), so the bound holds whatever T the run has."""
        return True

    @classmethod
    def ratio_bound(cls, eps, params, opt=None):
        """⌈c·OPT/ε⌉/OPT (max flow ≤ Qcap and T ≤ OPT; T ≤ 2·OPT with prefix-pow2, so c doubles);
        c/ε + 1 when OPT is not known here."""
        c = float(params["cap_factor"]) * (2.0 if params["oracle"] == "prefix-pow2" else 1.0)
        if opt is None or not opt > 0:
            return c / eps + 1.0
        return queue_cap(float(opt), eps, c) / float(opt)

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.c = float(self.params["cap_factor"])
        oracle = self.params["oracle"]
        self.prefix = None if oracle == "opt" else PrefixFlowOpt(self.m, pow2=oracle == "prefix-pow2")
        self.T = float(self.opt) if oracle == "opt" else 1.0
        self.cap = queue_cap(self.T, self.eps, self.c)

    def on_arrival(self, job: JobView, view) -> int:
        i = shortest_queue(view, job.eligible)
        length = len(view.queue(i))
        if length >= self.cap and self.prefix is not None:
            self.T = self.prefix.refresh(view)
            self.cap = queue_cap(self.T, self.eps, self.c)
            self.counters["opt_solves"] = self.prefix.solves
        return REJECT if length >= self.cap else i

    def compiled_run(self, inst, order):
        if self.prefix is None:
            return mc.run(mft_unit_rule, inst, order, 1.0, np.full(order.size, float(self.cap)))
        return self._compiled_prefix_run(inst, order)

    def _compiled_prefix_run(self, inst, order):
        """The prefix oracle on the compiled path: the kernel runs with a cap per arrival
        position; at the first rejection not yet confirmed, T is refreshed exactly as
        :meth:`on_arrival` does (OPT of the jobs arrived so far, that job included) — a larger
        cap from there on and a re-run (the decisions before it cannot change: no queue reached
        the old cap), or the rejection stands. Once T equals OPT of the whole instance no
        refresh can raise it (OPT of a prefix is at most that), so the remaining rejections are
        counted as the solves the step path makes, without solving."""
        n = order.size
        release = inst.release[order].astype(np.int64)
        size = inst.size[order].astype(np.int64)
        ptr, elig = csr_rows(inst.indptr, inst.indices, order)
        cap_at = np.full(n, float(self.cap))
        confirmed = -1  # rejections at positions <= confirmed are final
        ceiling = None  # T once it equals OPT of the whole instance
        whole = None  # that OPT, solved at the first confirmed rejection
        while True:
            run = mc.run(mft_unit_rule, inst, order, 1.0, cap_at)
            rejected = np.flatnonzero(run.machine[confirmed + 1 :] < 0) + confirmed + 1
            if rejected.size == 0:
                break
            if ceiling is not None:  # T can no longer grow: every later rejection stands
                self.prefix.solves += int(rejected.size)
                break
            p = int(rejected[0])
            self.T = self.prefix.refresh_with(release[: p + 1], size[: p + 1], ptr[: p + 2], elig[: ptr[p + 1]])
            cap = queue_cap(self.T, self.eps, self.c)
            if cap > cap_at[p]:
                cap_at[p:] = cap
            else:
                confirmed = p
                if whole is None:
                    whole = self._whole_opt(release, size, ptr, elig)
                if whole <= self.T:
                    ceiling = self.T
        self.cap = int(cap_at[-1]) if n else self.cap
        if self.prefix.solves:
            self.counters["opt_solves"] = self.prefix.solves
        return run

    def _whole_opt(self, release, size, ptr, elig) -> float:
        """T the prefix oracle would give on the whole instance (not counted as a solve: a
        separate oracle, so the run's own T and solve count are untouched)."""
        whole = PrefixFlowOpt(self.m, pow2=self.prefix.pow2, time_limit=self.prefix.time_limit)
        return whole.refresh_with(release, size, ptr, elig)


@compiled
def mft_unit_rule(machines, cap_at):
    """Shortest queue, FIFO; reject when the machine already holds ``cap_at[pos]`` jobs."""
    for pos in range(machines.n):
        mc.arrive(machines, pos)
        i = mc.shortest_queue(machines, mc.eligible(machines, pos))
        if machines.qlen[i] < cap_at[pos]:
            mc.dispatch(machines, pos, i)
