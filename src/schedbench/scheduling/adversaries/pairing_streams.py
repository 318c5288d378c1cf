"""Pairing with streams: OURS, a stand-in stress family for WtdMaxFlowTime — **not** the paper's
Theorem 8.3 construction, which is unknown (``docs/models/rejection-model.md`` §6.4: the
statement "Ω(1/ε) for WtdMaxFlowTime" is [Q], its construction [U]; this family is the spec's
own [R] recipe, labelled there as ours). It forces Ω(log m) on immediate-dispatch algorithms
that reject nothing, and (heuristic, docs/models/rejection-model.md §6.4) about T·log₂(1/ε)/2 with ε-rejection — not
Ω(1/ε). Every weight is 1 (the spec's family is unweighted), so the objective is the max flow
time and the budget counts jobs.

m = 2^K machines (K ≥ 1), T unit jobs per pair per round, streams over slots 0..horizon − 1
(horizon ≥ K; ``auto``, the default, is K + T, so that every stopped stream resumes). Survivors A₀ := all machines.
Slot t, in this order:

1. round r = t + 1 (t < K): pair A_{r−1} consecutively, (a, b) with a < b, and release T unit
   jobs restricted to {a, b}, pair by pair. Then the adversary judges each pair (on the view
   after the whole round, so late rejections made during it count): the survivor is the member
   with the larger queue — more remaining work (``view.remaining_work``: rejected and held jobs
   count for neither), ties to a. The non-survivor's stream stops for T slots, t..t + T − 1 (OPT
   runs the pair's batch there). A_r := the survivors.
2. final batch (t = K − 1, after round K; not in the spec — it pins OPT): T unit jobs restricted
   to the last survivor f, whose stream also stops for T slots.
3. streams (t < horizon): every machine whose stream is not stopped gets one unit job restricted
   to itself, in machine order.

Jobs: T·m in the batches plus the stream jobs; every machine's stream is stopped for exactly
T slots (m − 1 eliminated machines and f), so when horizon ≥ K − 1 + T the count is
T·m + m·(horizon − T) = m·horizon (m·(K + T) by default). :func:`job_count` counts any horizon;
it does not depend on the algorithm. Instances above 2·10⁶ jobs are refused.

OPT = T exactly, whatever the algorithm does (so ``opt`` is known before the game). Upper bound
— a schedule: a machine eliminated in round r (at slot t = r − 1) runs its pair's T jobs in
slots t..t + T − 1, exactly while its stream is stopped (flow ≤ T); f runs the final batch in
slots K − 1..K + T − 2 likewise; every stream job runs in its own slot on its own machine (flow
1). This is consistent: each machine is eliminated at most once and f never is, so a machine
runs at most one batch, and it gets no stream job while it does; survivors never run their
pairs' jobs. Lower bound: the T final jobs are released together and restricted to f, so the
last of them completes ≥ T later.

What it forces (immediate dispatch, no rejection, speed s): let B_r bound the remaining work of
every machine of A_r at the start of slot r. In round r both members of a pair hold ≥ B_{r−1}
and receive T jobs between them, x and T − x, so the survivor holds
≥ B_{r−1} + max(x, T − x) ≥ B_{r−1} + ⌈T/2⌉; with its stream job and ≤ s units processed,
B_r = max(0, B_{r−1} + ⌈T/2⌉ + 1 − s) for r ≤ K − 1. In slot K − 1, f gains ≥ ⌈T/2⌉ + T, all
released by then, so max flow ≥ (B_{K−1} + ⌈T/2⌉ + T)/s — the same recursion as ANR-flow's
streams variant (:meth:`AnrFlow.forced_max_flow`, whose survivor rule is "received more of the
round" instead): at s = 1 that is K·⌈T/2⌉ + T, the ratio 1 + K·⌈T/2⌉/T ≈ 1 + (log₂ m)/2.
With ε-rejection the spec estimates the forcing at about T·log₂(1/ε)/2 (heuristic: the budget
≈ ε·m·T can wipe the survivors' backlog once 2^r ≳ r/(2ε)).

Differences from ``anr-flow`` with ``streams``: every machine has a stream (not only
survivors), a stopped stream resumes after T slots and the streams run to ``horizon``, the
survivor is the member with the larger queue, the problem is WtdMaxFlowTime. The seed is not
used (the construction is deterministic given the algorithm's decisions).
"""

from __future__ import annotations

from schedbench.hall.params import Derived, Param, ParameterError
from schedbench.scheduling.adversaries.anr_flow import AnrFlow
from schedbench.scheduling.adversaries.base import MAX_JOBS, Adversary, power_of_two
from schedbench.scheduling.budget import floor_log2
from schedbench.scheduling.model import JobSpec
from schedbench.scheduling.registry import register_adversary


def job_count(m: int, T: int, horizon: int) -> int:
    """Jobs released: T(m − 1) round jobs, T final jobs, and the stream jobs — m per slot of
    0..horizon − 1, less one per slot a stream is stopped (each machine's stream is stopped for
    T slots from the slot it is eliminated, f's from slot K − 1)."""
    K = floor_log2(m)
    stopped = 0
    for r in range(1, K + 1):  # m / 2^r machines are eliminated at slot r − 1
        stopped += (m >> r) * max(0, min(horizon, r - 1 + T) - (r - 1))
    stopped += max(0, min(horizon, K - 1 + T) - (K - 1))  # f
    return T * m + m * horizon - stopped


@register_adversary
class PairingStreams(Adversary):
    name = "pairing-streams"
    problem = "wtdmaxflow"
    rule_label = "R"
    unit_sizes = True
    parameters = {
        "m": Param(
            8, doc="machines, a power of two >= 2 (K = log2 m rounds, one slot apart)", type=int, rule=power_of_two(2)
        ),
        "T": Param(
            4, doc="unit jobs per pair per round; a non-survivor's stream stops for T slots (= OPT)", type=int, min=1
        ),
        "horizon": Param(
            doc="stream slots 0..horizon-1, an integer >= K = log2 m ('auto': derived)",
            type=int,
            derive=Derived(lambda v: floor_log2(v["m"]) + v["T"], "log₂ m + T"),
        ),
    }
    reference = (
        "ours (rejection-model.md §6.4 'pairing with streams', a stand-in stress family; NOT the construction of "
        "Thm 8.3 of Roy Choudhury, Das, Garg, Kumar SODA 2015, which is unknown)"
    )

    @classmethod
    def check_params(cls, params):
        m, T, h = params["m"], params["T"], params["horizon"]
        K = floor_log2(m)
        if h < K:
            raise ParameterError(
                f"adversary {cls.name!r}: parameter 'horizon' must be an integer >= K = "
                f"log2 m = {K}, or 'auto', got {h!r}"
            )
        if cls.size(params)[0] > MAX_JOBS:
            raise ParameterError(
                f"adversary {cls.name!r}: parameters 'm'={m}, 'T'={T}, 'horizon'={h} give more than {MAX_JOBS} jobs"
            )

    @classmethod
    def size(cls, params):
        """Exact: :func:`job_count` jobs (it does not depend on the algorithm), m machines."""
        return job_count(params["m"], params["T"], params["horizon"]), params["m"]

    @staticmethod
    def forced_max_flow(m: int, T: int, speed: float) -> float:
        """The max flow time every algorithm that dispatches on arrival and rejects nothing
        reaches at this speed (module docstring; ANR-flow's streams recursion)."""
        return AnrFlow.forced_max_flow(m, T, True, speed)

    def __init__(self, eps=None, seed=0, **params):
        super().__init__(eps, seed, **params)
        self.K = floor_log2(self.m)
        self.horizon = self.params["horizon"]
        self.survivors = list(range(self.m))
        self.stopped_until = [0] * self.m  # machine i's stream is stopped in slots < stopped_until[i]
        self.slot = -1
        self.todo: list[str] = []
        self.pairs: list[tuple[int, int]] = []
        #: survivors after each round, for inspection
        self.history: list[list[int]] = []

    def next_jobs(self, view):
        self.pairs = []
        while True:
            if not self.todo:
                self.slot += 1
                if self.slot >= self.horizon:
                    return None
                t = self.slot
                self.todo = (["round"] if t < self.K else []) + (["final"] if t == self.K - 1 else []) + ["streams"]
            batch = self._batch(self.todo.pop(0))
            if batch:
                return batch

    def _batch(self, what: str) -> list[JobSpec]:
        t, T = self.slot, self.params["T"]
        if what == "round":
            s = self.survivors
            self.pairs = [(s[k], s[k + 1]) for k in range(0, len(s), 2)]
            return [JobSpec(t, 1, pair) for pair in self.pairs for _ in range(T)]
        if what == "final":
            f = self.survivors[0]
            self.stopped_until[f] = t + T
            return [JobSpec(t, 1, [f]) for _ in range(T)]
        return [JobSpec(t, 1, [i]) for i in range(self.m) if self.stopped_until[i] <= t]

    def observe(self, view, ids):
        """Judge the round on the view after all its jobs were released."""
        if not self.pairs:
            return
        survivors = []
        for a, b in self.pairs:
            keep, drop = (a, b) if view.remaining_work(a) >= view.remaining_work(b) else (b, a)
            survivors.append(keep)
            self.stopped_until[drop] = self.slot + self.params["T"]
        self.survivors = survivors
        self.history.append(list(survivors))
        self.pairs = []
