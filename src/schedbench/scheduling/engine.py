"""The one stepping engine of the rejection model (``docs/models/rejection-model.md`` §1.3).

Time runs in unit slots [t, t+1). In each slot: arrivals in order (the algorithm answers a
machine, REJECT or HOLD; right after each arrival it may reject dispatched jobs), then the
algorithm's slot hook (dispatch held jobs, reject unfinished jobs, reorder machines, ask for a
wake-up), then processing: each machine does ``speed`` units of work per slot along its order
(non-migratory, preemptive; fractional work and completion instants when the speed is not an
integer). Speed is 1 + ε for speed-model algorithms and 1 otherwise (decided in ``speed.py``),
applied here. The engine keeps the run's budget sums (``budget.py``, weights per the problem
table) for :attr:`EngineView.budget_left`; algorithms decide with their own :class:`Budget`.

Processing — the queues, advancing at the speed, completions, removing a late-rejected job, the
drain and the trace rows — is the machine core's (``machines.StepMachines`` over the compiled
rules' own ``machines.advance``); the engine owns the decisions, their checks, the steps and the
event clock. Processing is computed lazily per machine and exactly (a machine's order only
changes at a decision), so slots where nothing can change — no release, no completion, no
wake-up — cost nothing. The slot hook is called only where something changed; algorithms without
a hook never stop the clock at all. LoadBalancing (``Problem.processes`` false) only collects loads.

Drivers feed the engine: :meth:`Engine.release` (jobs at a time ≥ the current one),
:meth:`Engine.run_until`, :meth:`Engine.finish` → :class:`~schedbench.scheduling.model.Outcome`.
An illegal decision raises :class:`AlgorithmError` naming the job: a broken plug-in fails loudly.
"""

from __future__ import annotations

import heapq
import math
import weakref
from typing import Iterable

import numpy as np

from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm, SlotPlan
from schedbench.scheduling.budget import Budget
from schedbench.scheduling.model import HOLD, REJECT, AlgorithmError, Instance, JobSpec, Outcome
from schedbench.scheduling.problems import get_problem
from schedbench.scheduling.speed import machine_speed

__all__ = ["Engine", "EngineView", "JobSpec", "AlgorithmError"]


class Engine:
    """Runs one algorithm on jobs released by a driver (an instance replay or an adversary)."""

    def __init__(self, alg: OnlineAlgorithm, m: int) -> None:
        self.alg = alg
        self.name = type(alg).name
        self.problem = get_problem(alg.problem)
        self.m = int(m)
        self.speed = machine_speed(type(alg).model, alg.eps)
        self.now = 0
        self._hook = type(alg).has_slot_hook()
        self._check = True
        # per job, indexed by arrival position
        self.release_: list[int] = []
        self.size_: list[int] = []
        self.elig: list[np.ndarray] = []
        self.w_flow: list[float] = []
        self.w_reject: list[float] = []
        self.bweight: list[float] = []
        self.machine: list[int] = []
        self.arrival_step: list[int] = []
        self.dispatch_step: list[int] = []
        self.reject_step: list[int] = []
        self.step_time: list[int] = []
        # processing (queues, remaining work, completions, the trace): the machine core, compiled
        # (imported here: importing the engine does not import numba, creating one does)
        from schedbench.scheduling.machines import StepMachines

        self.core = StepMachines(self.m, self.speed)
        # per machine
        self.load = [0.0] * self.m
        self.version = [0] * self.m
        self.best_load = 0.0
        self._touched: set[int] = set()
        self.held: dict[int, None] = {}
        self.budget = Budget(alg.eps, self.problem, 0.0, 0.0)  # weights per the problem: float sums
        self._events: list[tuple[int, int, int]] = []  # (slot, machine or -1 for wake, version)
        self.view = EngineView(self)

    # ------------------------------------------------------------------ driver interface
    def release(self, jobs: Iterable[JobSpec], checked: bool = False) -> list[int]:
        """Release jobs (non-decreasing times ≥ now, in arrival order); returns their ids. Each
        job is checked (eligible set, size, weights) unless ``checked`` says it comes from a
        validated :class:`Instance`."""
        ids = []
        self._check = not checked
        for spec in jobs:
            if self._check and (isinstance(spec.release, bool) or not isinstance(spec.release, (int, np.integer))):
                raise ValueError(f"job released at {spec.release!r}: expected an integer slot")
            r = int(spec.release)
            if r < self.now:
                raise ValueError(f"job released at {r}, but the engine is already at slot {self.now}")
            self.run_until(r)  # no event is ever due before now: at r = now, nothing to do
            ids.append(self._arrive(spec))
        return ids

    def run_until(self, t: int) -> None:
        """Advance the clock to slot ``t`` (hooks and processing of every slot before it)."""
        t = int(t)
        while self._events and self._events[0][0] < t:
            slot = self._events[0][0]
            self.now = max(self.now, slot)
            fire = False
            while self._events and self._events[0][0] == slot:
                _, i, ver = heapq.heappop(self._events)
                if i < 0:
                    fire = True
                elif ver == self.version[i]:
                    self.core.advance_to(i, slot)
                    self._schedule_completion(i)
                    fire = True
            if fire:
                self._call_hook()
        self.now = max(self.now, t)

    def finish(self) -> Outcome:
        """Run to the end (every job done or rejected) and return the outcome.

        Once nothing is held and every machine is idle, wake-ups still pending are dropped: no
        slot decision could change the outcome any more. While jobs are held and every machine
        is idle, the clock may run at most the algorithm's ``max_hold_slots`` slots without a
        dispatch; past that the run stops with :class:`AlgorithmError` (it would never end).
        """
        idle_since = None
        limit = int(type(self.alg).max_hold_slots)
        while self._events:
            idle = not self.core.busy()
            if idle and not self.held:
                self._events.clear()
                break
            if idle:
                idle_since = self.now if idle_since is None else idle_since
                if self._events[0][0] - idle_since > limit:
                    j = next(iter(self.held))
                    raise AlgorithmError(
                        f"{self.name!r}: job {j} still held at slot {self._events[0][0]}, "
                        f"more than max_hold_slots = {limit} slots with every machine idle"
                    )
            else:
                idle_since = None
            self.run_until(self._events[0][0] + 1)
        if self.held:
            j = next(iter(self.held))
            raise AlgorithmError(f"{self.name!r}: job {j} is still held at the end (never dispatched)")
        if self.problem.processes:
            self.core.drain()
        return self._outcome()

    # ------------------------------------------------------------------ arrivals and decisions
    def _arrive(self, spec: JobSpec) -> int:
        j = len(self.release_)
        elig = np.asarray(spec.eligible)
        if self._check and (
            elig.ndim != 1
            or elig.size == 0
            or not np.issubdtype(elig.dtype, np.integer)
            or elig.min() < 0
            or elig.max() >= self.m
            or np.unique(elig).size != elig.size
        ):
            raise ValueError(
                f"job {j} released with eligible set {spec.eligible!r}: expected distinct machine "
                f"indices in 0..{self.m - 1}"
            )
        if self._check:
            if isinstance(spec.size, bool) or not isinstance(spec.size, (int, np.integer)) or spec.size < 1:
                raise ValueError(f"job {j} released with size {spec.size!r}: expected an integer >= 1")
            for name in ("w_flow", "w_reject"):
                w = getattr(spec, name)
                if not (isinstance(w, (int, float, np.number)) and math.isfinite(w) and w > 0):
                    raise ValueError(f"job {j} released with {name} {w!r}: expected a finite number > 0")
        elig = elig.astype(np.int64)
        elig.setflags(write=False)
        size = int(spec.size)
        self.release_.append(int(spec.release))
        self.size_.append(size)
        self.elig.append(elig)
        self.w_flow.append(float(spec.w_flow))
        self.w_reject.append(float(spec.w_reject))
        bw = self.problem.budget_weight_of(float(spec.w_flow), float(spec.w_reject))
        self.bweight.append(bw)
        self.machine.append(REJECT)
        self.dispatch_step.append(-1)
        self.reject_step.append(-1)
        self.core.add(size)
        step = self._new_step()
        self.arrival_step.append(step)
        self.budget.arrive(bw)
        view = JobView(j, int(spec.release), size, elig, float(spec.w_flow), float(spec.w_reject))
        try:
            answer = self.alg.on_arrival(view, self.view)
        except Exception as exc:  # named at the plug-in boundary (play.user_code)
            exc.add_note(f"on the arrival of job {j}")
            raise
        if answer == REJECT:
            self._reject(j, step, on_arrival=True)
        elif answer == HOLD:
            if not type(self.alg).deferred_dispatch:
                raise AlgorithmError(
                    f"{self.name!r}: job {j} held, but the algorithm does not declare deferred_dispatch"
                )
            self.held[j] = None
        else:
            self._dispatch(j, answer, step)
        for k in self.alg.after_arrival(self.view):
            self._reject(k, step)
        self._end_step()
        if self._hook:
            heapq.heappush(self._events, (self.now, -1, 0))
        return j

    def _call_hook(self) -> None:
        step = self._new_step()
        plan = self.alg.on_slot(self.view)
        if plan is not None:
            if not isinstance(plan, SlotPlan):
                raise AlgorithmError(f"{self.name!r}: on_slot returned {type(plan).__name__}, not a SlotPlan")
            for j, i in plan.dispatch.items():
                if j not in self.held:
                    raise AlgorithmError(f"{self.name!r}: slot {self.now}: dispatch of job {j}, which is not held")
                del self.held[j]
                self._dispatch(j, i, step)
            for j in plan.reject:
                self._reject(j, step)
            for i, jobs in plan.priority.items():
                self._reorder(i, list(jobs))
            if plan.wake_at is not None:
                if int(plan.wake_at) <= self.now:
                    raise AlgorithmError(f"{self.name!r}: wake_at {plan.wake_at} is not after slot {self.now}")
                heapq.heappush(self._events, (int(plan.wake_at), -1, 0))
        self._end_step()

    def _dispatch(self, j: int, i, step: int) -> None:
        elig = self.elig[j]
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or int(i) not in elig:
            raise AlgorithmError(
                f"{self.name!r}: job {j} sent to machine {i!r}, not in its eligible set {elig.tolist()}"
            )
        i = int(i)
        self.machine[j] = i
        self.dispatch_step[j] = step
        self.load[i] += self.size_[j]
        self._touched.add(i)
        if self.problem.processes:
            self.core.dispatch(j, i, self.now)
            self._changed(i)

    def _reject(self, j, step: int, on_arrival: bool = False) -> None:
        cls = type(self.alg)
        if cls.model != "rejection":
            raise AlgorithmError(f"{self.name!r}: rejected job {j}, but a {cls.model!r} algorithm may not reject")
        if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 0 <= j < len(self.release_):
            raise AlgorithmError(f"{self.name!r}: rejection of {j!r}, which is not a job that has arrived")
        j = int(j)
        if self.reject_step[j] >= 0:
            raise AlgorithmError(f"{self.name!r}: job {j} rejected twice")
        if j in self.held:
            del self.held[j]
        elif self.machine[j] >= 0:
            if not cls.late_reject:
                raise AlgorithmError(
                    f"{self.name!r}: late rejection of job {j}, but the algorithm does not declare late_reject"
                )
            i = self.machine[j]
            if self.problem.processes:
                self.core.advance_to(i, self.now)
                if self.core.done(j):
                    raise AlgorithmError(
                        f"{self.name!r}: job {j} rejected at slot {self.now}, after it "
                        f"completed at {self.core.completion.item(j)}"
                    )
                self.core.remove(j, self.now)
                self._changed(i)
            self.load[i] -= self.size_[j]
            self._touched.add(i)
        elif not on_arrival:
            raise AlgorithmError(f"{self.name!r}: job {j} rejected after arrival without being dispatched or held")
        self.reject_step[j] = step
        self.budget.reject(self.bweight[j])

    def _reorder(self, i, jobs: list[int]) -> None:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.m:
            raise AlgorithmError(f"{self.name!r}: priority for machine {i!r}, out of range 0..{self.m - 1}")
        if not self.problem.processes:
            raise AlgorithmError(f"{self.name!r}: a processing order means nothing for problem {self.problem.name!r}")
        core = self.core
        core.advance_to(i, self.now)
        if len(jobs) == 1:  # the common case (a job to the front): a move, not a rebuild
            j = jobs[0]
            if not isinstance(j, bool) and isinstance(j, (int, np.integer)) and 0 <= j < core.n:
                j = int(j)
                if core.holds(i, j):
                    if core.qhead[i] != j:
                        core.to_front(j)
                        self._changed(i)
                    return
        q = core.queue(i)
        if any(isinstance(j, bool) or not isinstance(j, (int, np.integer)) for j in jobs):
            raise AlgorithmError(f"{self.name!r}: slot {self.now}: priority for machine {i} holds a non-integer job id")
        jobs = [int(j) for j in jobs]
        if len(set(jobs)) != len(jobs) or not set(jobs) <= set(q):
            bad = next((j for j in jobs if j not in q), jobs[0] if jobs else None)
            raise AlgorithmError(
                f"{self.name!r}: slot {self.now}: priority for machine {i} names job {bad}, "
                f"not an unfinished job of that machine (or twice)"
            )
        first = set(jobs)
        order = list(jobs) + [j for j in q if j not in first]
        if order != q:
            core.set_order(i, order)
            self._changed(i)

    # ------------------------------------------------------------------ processing events
    def _changed(self, i: int) -> None:
        self.version[i] += 1
        if self._hook:
            self._schedule_completion(i)

    def _schedule_completion(self, i: int) -> None:
        """Queue a hook call for the slot of machine i's next completion (the core's answer)."""
        slot = self.core.next_completion_slot(i)
        if slot is not None:
            heapq.heappush(self._events, (slot, i, self.version[i]))

    # ------------------------------------------------------------------ steps and outcome
    def _new_step(self) -> int:
        self.step_time.append(self.now)
        return len(self.step_time) - 1

    def _end_step(self) -> None:
        if self._touched:
            self.best_load = max(self.best_load, max(self.load[i] for i in self._touched))
            self._touched.clear()

    def claimed_objective(self) -> float:
        if not self.problem.processes:
            return self.best_load
        best = 0.0
        for j, c in enumerate(self.core.completion[: self.core.n].tolist()):
            if not math.isnan(c):
                best = max(best, self.problem.flow_weight_of(self.size_[j], self.w_flow[j]) * (c - self.release_[j]))
        return best

    def instance(self, meta: dict | None = None) -> Instance:
        """The jobs released so far, in arrival order, as an instance."""
        elig = [e.tolist() for e in self.elig]
        return Instance.from_lists(self.m, self.release_, self.size_, elig, self.w_flow, self.w_reject, meta)

    def _outcome(self) -> Outcome:
        i64 = lambda x: np.asarray(x, dtype=np.int64)  # noqa: E731
        tm, tj, ts, te, tw = self.core.trace()  # int64 and float64 arrays
        return Outcome(
            algorithm=self.name,
            problem=self.problem.name,
            speed=self.speed,
            machine=i64(self.machine),
            arrival_step=i64(self.arrival_step),
            dispatch_step=i64(self.dispatch_step),
            reject_step=i64(self.reject_step),
            completion=self.core.completion[: self.core.n].copy(),
            step_time=np.asarray(self.step_time, dtype=np.float64),
            trace_machine=tm,
            trace_job=tj,
            trace_start=ts,
            trace_end=te,
            trace_work=tw,
            claimed_objective=self.claimed_objective(),
        )


class EngineView:
    """What an algorithm (or an adversary) may read: the present, never the future.

    Every answer is a copy or an immutable value; nothing here changes the engine's state
    except bringing a machine's lazy processing up to the current slot.
    """

    __slots__ = ("_e", "__weakref__")

    def __init__(self, engine: Engine) -> None:
        # a weak proxy: the engine owns its view, and a strong reference back would make every
        # step-path run a reference cycle that keeps the run's arrays alive until the cyclic
        # collector's rare full pass (measured: about 6 MB per 10^4-job run piling up)
        self._e = weakref.proxy(engine)

    @property
    def time(self) -> int:
        return self._e.now

    @property
    def speed(self) -> float:
        return self._e.speed

    @property
    def m(self) -> int:
        return self._e.m

    @property
    def eps(self) -> float | None:
        return self._e.alg.eps

    @property
    def problem(self) -> str:
        return self._e.problem.name

    @property
    def n_arrived(self) -> int:
        return len(self._e.release_)

    def _j(self, j) -> int:
        n = len(self._e.release_)
        if isinstance(j, bool) or not isinstance(j, (int, np.integer)) or not 0 <= j < n:
            raise AlgorithmError(f"job {j!r} has not arrived (jobs 0..{n - 1} have)")
        return int(j)

    def _i(self, i) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self._e.m:
            raise AlgorithmError(f"machine {i!r} out of range 0..{self._e.m - 1}")
        return int(i)

    def job(self, j: int) -> JobView:
        e, j = self._e, self._j(j)
        return JobView(j, e.release_[j], e.size_[j], e.elig[j], e.w_flow[j], e.w_reject[j])

    def queue(self, i: int) -> tuple[int, ...]:
        """Machine i's unfinished jobs in processing order, at the start of this slot's processing."""
        i, core = self._i(i), self._e.core
        core.advance_to(i, self._e.now)
        return tuple(core.queue(i))

    def remaining(self, j: int) -> float:
        e, j = self._e, self._j(j)
        if e.machine[j] >= 0:
            e.core.advance_to(e.machine[j], e.now)
        return float(e.core.rem[j])

    def remaining_work(self, i: int) -> float:
        i, core = self._i(i), self._e.core
        core.advance_to(i, self._e.now)
        return max(0.0, float(core.work_left[i]))

    def load(self, i: int) -> float:
        """LoadBalancing load: sizes dispatched to i and not rejected (docs/models/rejection-model.md §1.1)."""
        return self._e.load[self._i(i)]

    def machine_of(self, j: int) -> int:
        """The machine j was dispatched to (−1 if never); it stays set after a late rejection,
        so ask :meth:`is_rejected` too."""
        return self._e.machine[self._j(j)]

    def is_rejected(self, j: int) -> bool:
        return self._e.reject_step[self._j(j)] >= 0

    def held(self) -> tuple[int, ...]:
        return tuple(self._e.held)

    @property
    def arrived_weight(self) -> float:
        """Budget weight of the jobs arrived so far (count, w or w^r, by problem)."""
        return self._e.budget.arrived

    @property
    def rejected_weight(self) -> float:
        return self._e.budget.rejected

    @property
    def budget_left(self) -> float:
        """ε·(arrived weight) − (rejected weight); 0 for algorithms that may not reject."""
        e = self._e
        if type(e.alg).model != "rejection":
            return 0.0
        return e.budget.left
