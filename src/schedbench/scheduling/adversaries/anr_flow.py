"""ANR-flow: the immediate-dispatch Ω(log m) lower bound for unit-job MaxFlowTime, even with
O(1) speed (``docs/models/rejection-model.md`` §6.6, "Immediate dispatch Ω(log m) for max
flow time"; the overview cites Azar et al., and Anand et al. also prove Ω(log m) for immediate
dispatch; their own constructions are not available, so this is the spec's ANR-tree recipe,
label [R✓]: reconstructed, OPT proven below and checked exactly in the tests). The ``streams``
variant is the spec's own "pairing with streams" family (§6.4) — ours, not the papers'.

m = 2^K machines (K ≥ 1), T unit jobs per pair per round. Survivors A₀ := all machines.

Round r = 1..K: pair A_{r−1} consecutively, (a, b) with a < b, and release T unit jobs
restricted to {a, b}, pair by pair. The adversary then looks at what the algorithm did (after
the whole round was released, so late rejections made during the round count): the survivor
of a pair is the member that received more of this round's jobs — ``view.machine_of`` of each
id, a rejected job (``view.is_rejected``) or a job not dispatched yet (held) counts for
neither — ties to the lower index a. A_r := the survivors.

Final batch: T unit jobs restricted to the last survivor f (A_K = {f}). Without it OPT can be
below T (m = 2: T jobs on two machines give OPT = ⌈T/2⌉; m = 4, T = 4: 12 jobs fit 3 per
machine), so it is always released.

Timing:

* ``streams = False`` (all at zero): every round and the final batch are released at time 0
  (batches at the same release time are arrivals of the same slot, so nothing is processed
  between rounds). Jobs: T·(m − 1) + T = T·m.
* ``streams = True`` (docs/models/rejection-model.md §6.4): round r is released at slot r − 1 (rounds one slot apart),
  the final batch at slot K − 1 right after round K. After round r < K has been judged, each
  survivor in A_r gets one stream job restricted to itself, also at slot r − 1; a machine's
  stream stops for good in the slot where it is eliminated (and f's in slot K − 1, where its
  final batch arrives). Jobs: T·m + (m − 2). (m = 2 has no stream jobs: it is the all-at-zero
  instance.) Why not rounds T slots apart without streams: a survivor gains ⌈T/2⌉ per round
  but drains ≥ T in T slots, so nothing would build up; the streams keep every survivor busy
  so that its backlog drains by only s − 1 per slot.

OPT = T exactly, in both versions, whatever the algorithm does (so ``opt`` is known before the
game). Upper bound — a schedule: each round's T jobs of a pair go to the member that does not
survive, the final batch to f, stream jobs to their machine. A machine eliminated in round r
receives no round job before (as a survivor, OPT gave its pairs' jobs to the partner), exactly
T at round r's release time, and nothing after (it is never paired again, its stream stops);
f receives exactly its T final jobs. Stream jobs (one per slot per machine, on machines that
get no other job at that time in this schedule) run in their own slot, flow 1; the T jobs of
a batch run in the T slots from its release, flow ≤ T. Lower bound: the T final jobs are
released together and restricted to f alone, so the last of them completes ≥ T later.

What it forces (any algorithm that dispatches on arrival and rejects nothing, speed s): every
pair's T jobs are all dispatched in the round, so its survivor receives ≥ ⌈T/2⌉ of them.

* all at zero: nothing is processed before every job has arrived, so f holds ≥ K·⌈T/2⌉ + T
  units at time 0 and its last job completes ≥ (K·⌈T/2⌉ + T)/s after its release:
  max flow ≥ (K·⌈T/2⌉ + T)/s ≥ K·T/(2s) + T/s. OPT = T, so the ratio is Ω(log m) for s = O(1).
* streams: let B_r bound the work of every machine of A_r at the start of slot r (before its
  arrivals). B₀ = 0 and B_r = max(0, B_{r−1} + ⌈T/2⌉ + 1 − s) for r = 1..K − 1 (it gains
  ⌈T/2⌉ round jobs and one stream job in slot r − 1 and processes ≤ s). In slot K − 1, f gains
  ≥ ⌈T/2⌉ + T and never anything after, so max flow ≥ (B_{K−1} + ⌈T/2⌉ + T)/s — for
  s ≤ ⌈T/2⌉ + 1 that is (K·⌈T/2⌉ + T − (K − 1)(s − 1))/s, again ≈ K·T/(2s) when T ≫ s.
  :meth:`AnrFlow.forced_max_flow` computes both bounds.

A rejection algorithm (MFT_UNIT, docs/models/rejection-model.md §3: least queue, reject when the queue holds ⌈T/ε⌉)
stays ≤ ⌈T/ε⌉ on either version: its queues never exceed the cap.

Combinations above 2·10⁶ jobs are refused. The seed is not used (the construction is
deterministic given the algorithm's decisions).
"""

from __future__ import annotations

import math

from schedbench.hall.params import Param, ParameterError
from schedbench.scheduling.adversaries.base import MAX_JOBS, Adversary, power_of_two
from schedbench.scheduling.budget import floor_log2
from schedbench.scheduling.model import JobSpec
from schedbench.scheduling.registry import register_adversary


@register_adversary
class AnrFlow(Adversary):
    name = "anr-flow"
    problem = "maxflow"
    rule_label = "R✓"
    unit_sizes = True
    parameters = {
        "m": Param(
            doc="machines, a power of two >= 2 (K = log2 m rounds)", type=int, required=True, rule=power_of_two(2)
        ),
        "T": Param(1, doc="unit jobs per pair per round (= OPT)", type=int, min=1),
        "streams": Param(
            False,
            (False, True),
            "rounds one slot apart with a stream job per survivor per "
            "slot (rejection-model.md §6.4) instead of everything at time 0",
            type=bool,
        ),
    }
    reference = (
        "rejection-model.md §6.6 (immediate dispatch Ω(log m) for max flow time, ANR tree with T jobs per pair) "
        "and §6.4 (pairing with streams); Azar et al. (cited by the overview) and Anand et al. "
        "(Ω(log m) for immediate dispatch)"
    )

    @classmethod
    def check_params(cls, params):
        m, T = params["m"], params["T"]
        n, _ = cls.size(params)
        if n > MAX_JOBS:
            raise ParameterError(
                f"adversary {cls.name!r}: parameters 'm'={m} and 'T'={T} give {n} jobs, more than {MAX_JOBS}"
            )

    @classmethod
    def size(cls, params):
        """Exact: :meth:`job_count` jobs (the rounds never end early), m machines."""
        return cls.job_count(params["m"], params["T"], params["streams"]), params["m"]

    @staticmethod
    def job_count(m: int, T: int, streams: bool) -> int:
        """Jobs released: T(m − 1) in the rounds + T final (+ m − 2 stream jobs)."""
        return T * m + (m - 2 if streams else 0)

    @staticmethod
    def forced_max_flow(m: int, T: int, streams: bool, speed: float) -> float:
        """The max flow time every algorithm that dispatches on arrival and rejects nothing
        reaches at this speed (module docstring)."""
        K = floor_log2(m)
        half = math.ceil(T / 2)
        if not streams:
            return (K * half + T) / speed
        backlog = 0.0
        for _ in range(K - 1):
            backlog = max(0.0, backlog + half + 1 - speed)
        return (backlog + half + T) / speed

    def __init__(self, eps=None, seed=0, **params):
        super().__init__(eps, seed, **params)
        self.K = floor_log2(self.m)
        self.survivors = list(range(self.m))
        self.round = 0
        self.pairs: list[tuple[int, int]] = []
        self.pending: list[str] = []  # what follows the judged round in the same slot
        self.final_done = False
        #: survivors after each round, for inspection
        self.history: list[list[int]] = []

    def _slot(self) -> int:
        """Release time of the current round (and what follows it)."""
        return self.round - 1 if self.params["streams"] else 0

    def next_jobs(self, view):
        T = self.params["T"]
        self.pairs = []
        if self.pending:
            what = self.pending.pop(0)
            if what == "final":
                self.final_done = True
                return [JobSpec(self._slot(), 1, [self.survivors[0]]) for _ in range(T)]
            return [JobSpec(self._slot(), 1, [i]) for i in self.survivors]  # "streams"
        if self.round < self.K:
            self.round += 1
            s = self.survivors
            self.pairs = [(s[k], s[k + 1]) for k in range(0, len(s), 2)]
            return [JobSpec(self._slot(), 1, pair) for pair in self.pairs for _ in range(T)]
        return None

    def observe(self, view, ids):
        """Judge the round on the view after all its jobs were released."""
        if not self.pairs:
            return
        T = self.params["T"]
        survivors = []
        for k, (a, b) in enumerate(self.pairs):
            got = {a: 0, b: 0}
            for j in ids[k * T : (k + 1) * T]:
                i = view.machine_of(j)
                if i in got and not view.is_rejected(j):
                    got[i] += 1
            survivors.append(a if got[a] >= got[b] else b)
        self.survivors = survivors
        self.history.append(list(survivors))
        if self.round == self.K:
            self.pending = ["final"]
        elif self.params["streams"]:
            self.pending = ["streams"]
