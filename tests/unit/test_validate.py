"""The independent validator (``schedbench.scheduling.validate.validate``): hand-checked valid
outcomes, one planted fault per rule (each starting from a copy of a valid outcome and changing
one thing), and a property test that registered algorithms never produce an invalid outcome.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from schedbench.scheduling.algorithms.base import OnlineAlgorithm, SlotPlan
from schedbench.scheduling.model import Instance, Outcome
from schedbench.scheduling.play import execute
from schedbench.scheduling.registry import algorithm_names, get_algorithm
from schedbench.scheduling.validate import validate

from ..strategies import instances


# --------------------------------------------------------------------------- helpers
def planted(out: Outcome, **changes) -> Outcome:
    """A copy of ``out`` (every array copied) with ``field=value`` or ``field=(index, value)``."""
    fields = {f.name: getattr(out, f.name) for f in dataclasses.fields(out)}
    copy = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in fields.items()}
    for name, change in changes.items():
        if isinstance(change, tuple):
            index, value = change
            arr = copy[name]
            if isinstance(value, float) and arr.dtype.kind == "i":
                raise TypeError(f"{name} is an integer array")
            arr[index] = value
        else:
            copy[name] = change
    return dataclasses.replace(out, **copy)


def row_of(out: Outcome, job: int) -> int:
    """The (only) trace row of ``job``."""
    rows = np.flatnonzero(out.trace_job == job)
    assert rows.size == 1, f"job {job} has {rows.size} trace rows"
    return int(rows[0])


def assert_fault(v, needle: str, status: str = "invalid") -> None:
    assert not v.valid and v.status == status, (v.status, v.errors)
    assert any(needle in e for e in v.errors), (needle, v.errors)


_NO_TRACE = dict(
    trace_machine=np.zeros(0, np.int64),
    trace_job=np.zeros(0, np.int64),
    trace_start=np.zeros(0),
    trace_end=np.zeros(0),
    trace_work=np.zeros(0),
)


# --------------------------------------------------------------------------- test algorithms
# Defined here, never registered: execute() takes the class itself.
class FirstFitLateReject(OnlineAlgorithm):
    """maxflow, rejection model: first eligible machine; once, at slot >= 3, rejects the job
    at the head of machine 0's queue (a late rejection of a partly processed job)."""

    name = "test-first-fit-late-reject"
    problem = "maxflow"
    model = "rejection"
    late_reject = True

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.rejected_one = False

    def on_arrival(self, job, view) -> int:
        return int(job.eligible[0])

    def on_slot(self, view):
        if not self.rejected_one and view.time >= 3 and view.queue(0):
            self.rejected_one = True
            return SlotPlan(reject=[view.queue(0)[0]])
        return None


class FirstFitSpeed(OnlineAlgorithm):
    """maxflow, speed model: first eligible machine, machines at speed 1 + eps."""

    name = "test-first-fit-speed"
    problem = "maxflow"
    model = "speed"

    def on_arrival(self, job, view) -> int:
        return int(job.eligible[0])


def test_test_algorithms_are_not_registered():
    names = algorithm_names()
    assert FirstFitLateReject.name not in names and FirstFitSpeed.name not in names


# --------------------------------------------------------------------------- baselines
@pytest.fixture
def load_inst() -> Instance:
    # sizes 2, 3, 1, 1; released 0, 0, 1, 2; job 3 only on machine 1
    return Instance.from_lists(2, [0, 0, 1, 2], [2, 3, 1, 1], [[0, 1], [0, 1], [0, 1], [1]])


@pytest.fixture
def load_out() -> Outcome:
    """Hand-built LoadBalancing outcome (rejection model, eps = 0.5), one step per arrival:

    step 0 (slot 0): job 0 -> m0                       m0 = 2
    step 1 (slot 0): job 1 -> m0, job 0 rejected late   m0 = 2 + 3 - 2 = 3  (not 5)
    step 2 (slot 1): job 2 -> m0                       m0 = 4
    step 3 (slot 2): job 3 -> m1, job 1 rejected late   m0 = 1, m1 = 1
    max load = 4 (job 1 still counts at step 2). Budget: 0/1, 1/2, 1/3, 2/4 <= 0.5.
    """
    return Outcome(
        algorithm="hand",
        problem="load",
        speed=1.0,
        machine=np.array([0, 0, 0, 1]),
        arrival_step=np.array([0, 1, 2, 3]),
        dispatch_step=np.array([0, 1, 2, 3]),
        reject_step=np.array([1, 3, -1, -1]),
        completion=np.full(4, np.nan),
        step_time=np.array([0.0, 0.0, 1.0, 2.0]),
        claimed_objective=4.0,
        **_NO_TRACE,
    )


def check_load(inst, out, eps=0.5, model="rejection", late_reject=True):
    return validate(inst, out, eps, model, "load", late_reject=late_reject)


@pytest.fixture
def flow_inst() -> Instance:
    return Instance.from_lists(2, [0, 0, 1, 2, 3], [2, 3, 1, 2, 1], [[0], [0, 1], [1], [0, 1], [1]])


@pytest.fixture
def flow_out(flow_inst) -> Outcome:
    played = execute(FirstFitLateReject, flow_inst, eps=0.5)
    assert played.validation.status == "ok", played.validation.errors
    return played.outcome


def check_flow(inst, out, eps=0.5, model="rejection", problem="maxflow", deferred=False, late_reject=True):
    return validate(inst, out, eps, model, problem, deferred_dispatch=deferred, late_reject=late_reject)


@pytest.fixture
def wtd_inst() -> Instance:
    # four unit jobs at slot 0 on one machine; job 3 has a tiny w_flow and a big w_reject
    return Instance.from_lists(1, [0, 0, 0, 0], [1, 1, 1, 1], [[0]] * 4, w_flow=[1, 1, 1, 0.1], w_reject=[1, 1, 1, 5])


@pytest.fixture
def wtd_out() -> Outcome:
    """Jobs 0..2 run back to back in [0, 3); job 3 is rejected on arrival. Every flow weight of
    a served job is 1, so the objective is 3 for maxflow, wtdmaxflow and genwtd alike."""
    return Outcome(
        algorithm="hand",
        problem="maxflow",
        speed=1.0,
        machine=np.array([0, 0, 0, -1]),
        arrival_step=np.array([0, 1, 2, 3]),
        dispatch_step=np.array([0, 1, 2, -1]),
        reject_step=np.array([-1, -1, -1, 3]),
        completion=np.array([1.0, 2.0, 3.0, np.nan]),
        step_time=np.zeros(4),
        trace_machine=np.array([0, 0, 0]),
        trace_job=np.array([0, 1, 2]),
        trace_start=np.array([0.0, 1.0, 2.0]),
        trace_end=np.array([1.0, 2.0, 3.0]),
        trace_work=np.array([1.0, 1.0, 1.0]),
        claimed_objective=3.0,
    )


# --------------------------------------------------------------------------- 1. valid baselines
def test_valid_load_outcome_with_late_rejections(load_inst, load_out):
    v = check_load(load_inst, load_out)
    assert v.valid and v.status == "ok" and v.errors == []
    assert v.objective == 4.0  # see load_out: loads count a job until its rejection step
    assert v.rejected_frac == 0.5 and v.rejected_frac_max_prefix == 0.5
    assert v.budget_violations == 0 and v.wasted_work == 0.0


def test_valid_flow_outcome_from_execute(flow_inst, flow_out):
    out = flow_out
    # first-fit: jobs 0, 1, 3 on machine 0 (FIFO), jobs 2, 4 on machine 1
    assert out.machine.tolist() == [0, 0, 1, 0, 1]
    # m0: job 0 [0, 2); job 1 [2, 3) then rejected at slot 3 (1 unit wasted); job 3 [3, 5)
    # m1: job 2 [1, 2); job 4 [3, 4)
    assert out.rejected.tolist() == [False, True, False, False, False]
    assert out.reject_time[1] == 3.0
    np.testing.assert_array_equal(out.completion, [2.0, np.nan, 2.0, 5.0, 4.0])
    release = flow_inst.release
    kept = [j for j in range(flow_inst.n) if not out.rejected[j]]
    by_hand = max(out.completion[j] - release[j] for j in kept)  # max(2, 1, 3, 1)
    assert by_hand == 3.0
    v = check_flow(flow_inst, out)
    assert v.valid and v.status == "ok"
    assert v.objective == by_hand == out.claimed_objective
    assert v.wasted_work == 1.0
    assert v.rejected_frac == pytest.approx(0.2)


def test_valid_fractional_speed_outcome(flow_inst):
    played = execute(FirstFitSpeed, flow_inst, eps=0.5)
    out, v = played.outcome, played.validation
    assert out.speed == 1.5
    assert v.valid and v.status == "ok", v.errors
    # m0 at speed 1.5: job 0 ends 4/3, job 1 (size 3) ends 4/3 + 2 = 10/3, job 3 ends 14/3
    assert v.objective == pytest.approx(10 / 3)


def test_valid_weighted_outcome(wtd_inst, wtd_out):
    # with a generous eps the budget holds by count (1/4), w_flow (0.1/3.1) and w_reject (5/8)
    for problem in ("maxflow", "wtdmaxflow", "genwtd"):
        v = check_flow(wtd_inst, wtd_out, eps=0.7, problem=problem)
        assert v.valid and v.status == "ok", (problem, v.errors)
        assert v.objective == 3.0


# --------------------------------------------------------------------------- 2. planted faults
# shape
def test_fault_per_job_array_shape(load_inst, load_out):
    bad = planted(load_out, machine=load_out.machine[:3].copy())
    assert_fault(check_load(load_inst, bad), "outcome field 'machine' has shape (3,), expected (4,)")


def test_fault_trace_array_shape(flow_inst, flow_out):
    bad = planted(flow_out, trace_work=flow_out.trace_work[:-1].copy())
    assert_fault(check_flow(flow_inst, bad), "outcome field 'trace_work' has shape")


def test_fault_step_time_decreasing(load_inst, load_out):
    bad = planted(load_out, step_time=(2, 3.0))  # slots 0, 0, 3, 2
    assert_fault(check_load(load_inst, bad), "step_time must be non-decreasing")


def test_fault_step_index_out_of_range(load_inst, load_out):
    bad = planted(load_out, arrival_step=(3, 4))  # there are steps 0..3
    assert_fault(check_load(load_inst, bad), "job 3: arrival_step 4 is not a step")


# arrival
def test_fault_arrival_out_of_instance_order(load_inst, load_out):
    # jobs 0 and 1 are both released at 0: job 0 must arrive first (ties by index)
    bad = planted(load_out, arrival_step=np.array([1, 0, 2, 3]))
    v = check_load(load_inst, bad)
    assert_fault(v, "job 1: arrives at step 0, not after the job before it in arrival order")
    assert "arrival order" in v.errors[0]


def test_fault_two_jobs_arrive_in_one_step(load_inst, load_out):
    bad = planted(load_out, arrival_step=(1, 0))
    assert_fault(check_load(load_inst, bad), "job 1: arrives at step 0, not after the job before it")


def test_fault_arrival_slot_differs_from_release(load_inst, load_out):
    bad = planted(load_out, step_time=(3, 3.0))  # job 3 (release 2) arrives at step 3, now slot 3
    assert_fault(check_load(load_inst, bad), "job 3: arrives at slot 3, but its release is 2")


# decisions
def test_fault_dispatch_to_ineligible_machine(load_inst, load_out):
    bad = planted(load_out, machine=(3, 0))
    assert_fault(check_load(load_inst, bad), "job 3: dispatched to machine 0, not in its eligible set [1]")


def test_fault_machine_out_of_range(load_inst, load_out):
    bad = planted(load_out, machine=(3, 7))
    assert_fault(check_load(load_inst, bad), "job 3: machine 7 out of range -1..1")


def test_fault_machine_without_dispatch_step(load_inst, load_out):
    bad = planted(load_out, dispatch_step=(2, -1))
    assert_fault(check_load(load_inst, bad), "job 2: machine 0 but dispatch_step -1 (both or neither)")


def test_fault_dispatch_before_arrival(load_inst, load_out):
    bad = planted(load_out, dispatch_step=(2, 1))
    assert_fault(check_load(load_inst, bad), "job 2: dispatched at step 1, before it arrived (step 2)")


def test_fault_rejection_before_arrival(load_inst, load_out):
    bad = planted(load_out, reject_step=(3, 2))
    assert_fault(check_load(load_inst, bad), "job 3: rejected at step 2, before it arrived")


def test_fault_job_neither_dispatched_nor_rejected(load_inst, load_out):
    bad = planted(load_out, machine=(2, -1), dispatch_step=(2, -1))  # job 2's dispatch erased
    assert_fault(check_load(load_inst, bad), "job 2: neither dispatched nor rejected")


def test_fault_rejection_by_plain_model(load_inst, load_out):
    assert_fault(
        check_load(load_inst, load_out, eps=None, model="plain"),
        "job 0: rejected, but a 'plain' algorithm may not reject",
    )


def test_fault_rejection_by_speed_model(flow_inst, flow_out):
    assert_fault(
        check_flow(flow_inst, flow_out, model="speed", eps=0.0),
        "job 1: rejected, but a 'speed' algorithm may not reject",
    )


def test_fault_rejection_model_without_eps(load_inst, load_out):
    assert_fault(check_load(load_inst, load_out, eps=None), "rejection-model outcome without eps")


def test_fault_unknown_problem(load_inst, load_out):
    assert_fault(validate(load_inst, load_out, 0.5, "rejection", "makespan"), "unknown problem 'makespan'")


# trace
def test_fault_trace_migration(flow_inst, flow_out):
    r = row_of(flow_out, 1)  # job 1 on m0 in [2, 3); m1 is idle then, and job 1 is eligible there
    bad = planted(flow_out, trace_machine=(r, 1))
    v = check_flow(flow_inst, bad)
    assert_fault(v, "job 1: processed on machine 1 at 2, but it was dispatched to 0 (migration")
    assert len(v.errors) == 1


def test_fault_trace_row_names_no_job(flow_inst, flow_out):
    bad = planted(flow_out, trace_job=(0, 9))
    assert_fault(check_flow(flow_inst, bad), "a row names no job")


def test_fault_trace_work_before_release(flow_inst, flow_out):
    r = row_of(flow_out, 2)  # job 2 (release 1) on m1 in [1, 2); m1 idle before
    bad = planted(flow_out, trace_start=(r, 0.5))
    v = check_flow(flow_inst, bad)
    assert_fault(v, "job 2: processed from 0.5, before its release or dispatch (1)")
    assert len(v.errors) == 1


def test_fault_trace_work_after_rejection(flow_inst, flow_out):
    # job 1 worked in [2, 3); claim it was rejected at step 6 (slot 2) instead of slot 3
    assert flow_out.step_time[6] == 2.0 and flow_out.arrival_step[3] == 5
    bad = planted(flow_out, reject_step=(1, 6))
    v = check_flow(flow_inst, bad)
    assert_fault(v, "job 1: processed until 3, after its rejection at slot 2")
    assert len(v.errors) == 1


def test_fault_trace_rate_above_speed(flow_inst, flow_out):
    r = row_of(flow_out, 0)  # job 0: 2 units in [0, 2); squeeze them into [1, 2)
    bad = planted(flow_out, trace_start=(r, 1.0))
    v = check_flow(flow_inst, bad)
    assert_fault(v, "job 0: 2 units in [1, 2) on machine 0, more than speed 1 allows")
    assert len(v.errors) == 1


def test_fault_trace_overlap_on_one_machine(flow_inst, flow_out):
    r = row_of(flow_out, 3)  # job 3 on m0 in [3, 5); start it at 2.5, while job 1 runs [2, 3)
    bad = planted(flow_out, trace_start=(r, 2.5))
    v = check_flow(flow_inst, bad)
    assert_fault(v, "machine 0: two jobs at once around 2.5")
    assert len(v.errors) == 1


def test_fault_completed_with_wrong_work(flow_inst, flow_out):
    bad = planted(flow_out, trace_work=(row_of(flow_out, 0), 1.5))
    v = check_flow(flow_inst, bad)
    assert_fault(v, "job 0: completed with 1.5 units of work, its size is 2")
    assert len(v.errors) == 1


def test_fault_completion_not_end_of_last_work(flow_inst, flow_out):
    bad = planted(flow_out, completion=(0, 2.5))
    v = check_flow(flow_inst, bad)
    assert_fault(v, "job 0: completion 2.5, but its last work ends at 2")
    assert len(v.errors) == 1


def test_fault_job_never_completed_nor_rejected(flow_inst, flow_out):
    bad = planted(flow_out, completion=(3, np.nan))
    assert_fault(check_flow(flow_inst, bad), "job 3: never completed and never rejected")


def test_fault_job_completed_and_rejected(flow_inst, flow_out):
    bad = planted(flow_out, completion=(1, 3.0))  # job 1's last (and only) work ends at 3
    assert_fault(check_flow(flow_inst, bad), "job 1: both completed and rejected")


def test_fault_trace_for_load_problem(load_inst, load_out):
    bad = planted(
        load_out,
        trace_machine=np.array([0]),
        trace_job=np.array([2]),
        trace_start=np.array([1.0]),
        trace_end=np.array([2.0]),
        trace_work=np.array([1.0]),
    )
    assert_fault(check_load(load_inst, bad), "problem 'load' processes nothing, but the outcome has a trace")


def test_fault_completion_for_load_problem(load_inst, load_out):
    bad = planted(load_out, completion=(2, 2.0))
    assert_fault(check_load(load_inst, bad), "job 2: has a completion time, but problem 'load' processes nothing")


# objective
def test_fault_wrong_claimed_load(load_inst, load_out):
    # 5 is what counting job 0 through its rejection step would give
    bad = planted(load_out, claimed_objective=5.0)
    v = check_load(load_inst, bad)
    assert_fault(v, "the engine claims 5.0, the outcome gives 4.0")
    assert v.objective == 4.0


def test_fault_wrong_claimed_flow(flow_inst, flow_out):
    bad = planted(flow_out, claimed_objective=5.0)  # job 1's flow, were it not rejected
    v = check_flow(flow_inst, bad)
    assert_fault(v, "the engine claims 5.0, the outcome gives 3.0")
    assert v.objective == 3.0


# budget
def test_fault_budget_exceeded_at_an_intermediate_step_only():
    # 10 unit jobs at slot 0 on one machine, eps = 0.2. Valid: job 0 rejected late at the last
    # step (1/10). Planted: rejected at its own step 0 (1/1 > 0.2, ..., 1/5 = 0.2 allowed).
    inst = Instance.from_lists(1, [0] * 10, [1] * 10, [[0]] * 10)
    steps = np.arange(10)
    good = Outcome(
        algorithm="hand",
        problem="load",
        speed=1.0,
        machine=np.zeros(10, np.int64),
        arrival_step=steps,
        dispatch_step=steps.copy(),
        reject_step=np.array([9] + [-1] * 9),
        completion=np.full(10, np.nan),
        step_time=np.zeros(10),
        claimed_objective=9.0,
        **_NO_TRACE,
    )
    v = check_load(inst, good, eps=0.2)
    assert v.status == "ok" and v.rejected_frac_max_prefix == pytest.approx(0.1)
    bad = planted(good, reject_step=(0, 0))
    v = check_load(inst, bad, eps=0.2)
    assert_fault(v, "rejection budget exceeded at 4 decision steps", status="budget_violated")
    assert "by count" in v.errors[0]
    assert v.objective == 9.0  # the objective itself is fine
    assert v.rejected_frac == pytest.approx(0.1)  # fine at the end
    assert v.rejected_frac_max_prefix == 1.0 and v.budget_violations == 4


@pytest.mark.parametrize("rejected, status", [(250, "ok"), (251, "budget_violated")])
def test_budget_at_its_edge(rejected, status):
    # 1000 unit jobs on one machine, eps = 1/4, the last `rejected` jobs rejected at the last
    # step: 250/1000 = eps is allowed, 251/1000 = 1.004·eps is not. (A validator that let
    # rejections reach 1.01·eps passed every other test: no fixture sat near the edge.)
    n = 1000
    inst = Instance.from_lists(1, [0] * n, [1] * n, [[0]] * n)
    steps = np.arange(n)
    reject = np.full(n, -1)
    reject[n - rejected :] = n - 1
    out = Outcome(
        algorithm="hand",
        problem="load",
        speed=1.0,
        machine=np.zeros(n, np.int64),
        arrival_step=steps,
        dispatch_step=steps.copy(),
        reject_step=reject,
        completion=np.full(n, np.nan),
        step_time=np.zeros(n),
        claimed_objective=float(n - 1),  # the max load is reached before the late rejections
        **_NO_TRACE,
    )
    v = check_load(inst, out, eps=0.25)
    assert v.status == status, v.errors
    assert v.rejected_frac == pytest.approx(rejected / n)


def test_fault_budget_by_w_reject_for_genwtd(wtd_inst, wtd_out):
    # by count 1/4 <= 0.3; by w_reject 5/8 > 0.3
    assert check_flow(wtd_inst, wtd_out, eps=0.3, problem="maxflow").status == "ok"
    v = check_flow(wtd_inst, wtd_out, eps=0.3, problem="genwtd")
    assert_fault(v, "rejection budget exceeded at 1 decision step ", status="budget_violated")
    assert "by w_reject" in v.errors[0]
    assert v.rejected_frac == pytest.approx(5 / 8) and v.objective == 3.0


def test_fault_budget_by_count_but_not_by_w_flow_for_wtdmaxflow(wtd_inst, wtd_out):
    # by w_flow 0.1/3.1 <= 0.2; by count 1/4 > 0.2
    v = check_flow(wtd_inst, wtd_out, eps=0.2, problem="wtdmaxflow")
    assert v.status == "ok" and v.rejected_frac == pytest.approx(0.1 / 3.1)
    v = check_flow(wtd_inst, wtd_out, eps=0.2, problem="maxflow")
    assert_fault(v, "rejection budget exceeded at 1 decision step ", status="budget_violated")
    assert "by count" in v.errors[0]


# fractional speed
def test_fault_work_above_fractional_speed(flow_inst):
    out = execute(FirstFitSpeed, flow_inst, eps=0.5).outcome
    r = row_of(out, 0)  # job 0: 2 units in [0, 4/3) at speed 1.5
    bad = planted(out, trace_work=(r, out.trace_work[r] * 1.1))
    v = check_flow(flow_inst, bad, eps=0.5, model="speed")
    assert_fault(v, "job 0: 2.2 units in [0, 1.33333) on machine 0, more than speed 1.5 allows")


# --------------------------------------------------------------------------- speed and completion claims
def test_fault_speed_is_derived_from_model_not_trusted(flow_inst, flow_out):
    # a speed-1 (rejection-model) outcome claiming speed 2: job 0 and job 3 run twice as fast
    bad = planted(flow_out, speed=2.0, trace_end=flow_out.trace_end.copy(), completion=(0, 1.0), claimed_objective=2.0)
    bad.trace_end[row_of(flow_out, 0)] = 1.0  # job 0: 2 units in [0, 1)
    bad.trace_end[row_of(flow_out, 3)] = 4.0  # job 3: 2 units in [3, 4)
    bad.completion[3] = 4.0  # objective drops from 3 to 2
    assert check_flow(flow_inst, bad).status == "invalid"


def test_fault_rejection_after_full_processing(flow_inst, flow_out):
    # job 1 gets all 3 units in [2, 5), job 3 runs [5, 7); job 1 is then "rejected" at slot 5
    # (step 10), so its flow no longer counts. The engine forbids this ("after it completed").
    bad = planted(flow_out, reject_step=(1, 10), completion=(3, 7.0), claimed_objective=5.0)
    r1, r3 = row_of(flow_out, 1), row_of(flow_out, 3)
    bad.trace_end[r1], bad.trace_work[r1] = 5.0, 3.0
    bad.trace_start[r3], bad.trace_end[r3] = 5.0, 7.0
    assert flow_out.step_time[10] == 5.0
    assert check_flow(flow_inst, bad).status == "invalid"


# --------------------------------------------------------------------------- 3. property test
@given(inst=instances(max_m=4, max_n=7), data=st.data())
def test_registered_load_algorithms_never_invalid_and_paths_agree(inst, data):
    runs = [(get_algorithm("greedy"), inst, None, {}, None)]
    unit = Instance.from_lists(
        inst.m, inst.release.tolist(), [1] * inst.n, [inst.eligible(j).tolist() for j in range(inst.n)]
    )
    eps = data.draw(st.sampled_from([0.1, 0.25, 0.5, 0.9]), label="eps")
    rule = data.draw(st.sampled_from(["paper", "safe"]), label="alpha_rule")
    trivial = math.ceil(unit.size.sum() / unit.m)  # a positive lower bound on T*, used as the oracle
    runs.append((get_algorithm("lb-unit-reject"), unit, eps, {"alpha_rule": rule}, trivial))
    for cls, source, e, params, oracle in runs:
        slow = execute(cls, source, eps=e, params=params, oracle=oracle, fast=False)
        fast = execute(cls, source, eps=e, params=params, oracle=oracle, fast=True)
        for played in (slow, fast):
            v = played.validation
            assert v.status in ("ok", "budget_violated"), (cls.name, v.errors)
            assert v.objective == played.outcome.claimed_objective
        assert slow.validation.objective == fast.validation.objective, cls.name
        assert slow.validation.status == fast.validation.status, cls.name
        np.testing.assert_array_equal(slow.outcome.machine, fast.outcome.machine)


# --------------------------------------------------------------------------- declarations, dispatch times
def test_fault_late_rejection_without_the_declaration(load_inst, load_out):
    assert_fault(
        check_load(load_inst, load_out, late_reject=False),
        "rejected after it was dispatched, but the algorithm does not declare late rejection",
    )


def test_fault_deferred_dispatch_without_the_declaration(flow_inst, flow_out):
    # job 2 dispatched one step after its arrival step, by an algorithm that may not hold
    j = 2
    later = int(flow_out.arrival_step[j]) + 1
    bad = planted(flow_out, dispatch_step=(j, later))
    v = check_flow(flow_inst, bad)
    assert_fault(v, "does not declare deferred dispatch")
    assert "deferred" not in " ".join(check_flow(flow_inst, bad, deferred=True).errors)


def test_fault_rejection_before_dispatch(load_inst, load_out):
    # a dispatched job whose rejection step precedes its dispatch step (deferred allowed)
    j = int(np.flatnonzero((load_out.machine >= 0) & (load_out.reject_step >= 0))[0])
    bad = planted(load_out, dispatch_step=(j, int(load_out.reject_step[j]) + 1))
    v = validate(load_inst, bad, 0.5, "rejection", "load", deferred_dispatch=True, late_reject=True)
    assert_fault(v, f"job {j}: rejected at step")


def test_fault_work_before_dispatch(flow_inst, flow_out):
    # a deferred job dispatched at slot >= 1 but processed from its release slot 0
    j = 0
    late_step = int(np.flatnonzero(flow_out.step_time >= 1)[0])
    bad = planted(flow_out, dispatch_step=(j, late_step))
    assert flow_out.step_time[late_step] > flow_out.trace_start[row_of(flow_out, j)]
    v = check_flow(flow_inst, bad, deferred=True)
    assert_fault(v, f"job {j}: processed from")


def test_fault_work_on_a_job_never_dispatched(flow_inst, flow_out):
    # job 1 is rejected late in the baseline; make it never dispatched (held, then rejected),
    # but keep its trace rows: work on no machine
    j = int(np.flatnonzero(flow_out.reject_step >= 0)[0])
    assert (flow_out.trace_job == j).any()
    bad = planted(flow_out, machine=(j, -1), dispatch_step=(j, -1))
    v = check_flow(flow_inst, bad, deferred=True)
    assert_fault(v, f"job {j}: processed on machine")


# --------------------------------------------------------------------------- budget: brute-force recount
@settings(max_examples=60, deadline=None)
@given(inst=instances(max_m=3, max_n=12, unit=True), data=st.data())
def test_prefix_budget_check_agrees_with_a_brute_force_recount(inst, data):
    """Over-budget runs on purpose (T* given far too small), then recount every step by hand."""
    eps = data.draw(st.sampled_from([0.1, 0.25, 0.5]), label="eps")
    cap_t = data.draw(st.sampled_from([0.5, 1.0]), label="oracle")
    played = execute(get_algorithm("lb-unit-reject"), inst, eps=eps, oracle=cap_t, fast=False)
    out, v = played.outcome, played.validation
    violations, worst = 0, 0.0
    for step in range(out.step_time.shape[0]):
        arrived = sum(1 for j in range(inst.n) if out.arrival_step[j] <= step)
        rejected = sum(1 for j in range(inst.n) if 0 <= out.reject_step[j] <= step)
        if arrived:
            worst = max(worst, rejected / arrived)
        violations += rejected > eps * arrived + 1e-9
    assert v.budget_violations == violations
    assert v.rejected_frac_max_prefix == pytest.approx(worst)
    assert v.status == ("budget_violated" if violations else "ok")


# --------------------------------------------------------------------------- speed model, fractional work
def test_fault_speed_model_outcome_claims_the_wrong_speed(flow_inst):
    out = execute(FirstFitSpeed, flow_inst, eps=0.5).outcome  # a valid run at speed 1.5
    assert check_flow(flow_inst, out, eps=0.5, model="speed").status == "ok"
    # the same outcome, validated as a run at eps = 0.25: the speed follows from the model
    assert_fault(
        check_flow(flow_inst, out, eps=0.25, model="speed"),
        "outcome claims speed 1.5, but a 'speed' algorithm at eps = 0.25 runs at 1.25",
    )
    # a planted claim of speed 2 at eps = 0.5
    assert_fault(
        check_flow(flow_inst, planted(out, speed=2.0), eps=0.5, model="speed"),
        "outcome claims speed 2.0, but a 'speed' algorithm at eps = 0.5 runs at 1.5",
    )


def test_fault_overlap_on_one_machine_at_fractional_speed(flow_inst):
    # m0 at speed 1.5: job 0 [0, 4/3), job 1 [4/3, 10/3). Start job 1 at 1 (its own rate stays
    # 3 / (7/3) < 1.5), so m0 works on two jobs in [1, 4/3).
    out = execute(FirstFitSpeed, flow_inst, eps=0.5).outcome
    r = row_of(out, 1)
    assert out.trace_start[r] == pytest.approx(4 / 3)
    bad = planted(out, trace_start=(r, 1.0))
    v = check_flow(flow_inst, bad, eps=0.5, model="speed")
    assert_fault(v, "machine 0: two jobs at once around 1 (more than speed 1.5 units")
    assert len(v.errors) == 1


def test_fault_fractional_completion_not_end_of_last_work(flow_inst):
    out = execute(FirstFitSpeed, flow_inst, eps=0.5).outcome
    assert out.completion[0] == pytest.approx(4 / 3)  # job 0: flow 4/3, not the maximum (10/3)
    bad = planted(out, completion=(0, 1.3))
    v = check_flow(flow_inst, bad, eps=0.5, model="speed")
    assert_fault(v, "job 0: completion 1.3, but its last work ends at 1.33333")
    assert len(v.errors) == 1


# --------------------------------------------------------------------------- migratory outcomes
@pytest.fixture
def mig_inst() -> Instance:
    # 3 machines; job 0 only on m0, job 1 anywhere, job 2 (released at 1) only on m1
    return Instance.from_lists(3, [0, 0, 1], [1, 2, 1], [[0], [0, 1, 2], [1]])


@pytest.fixture
def mig_out(mig_inst) -> Outcome:
    """Global EDF at speed 1: job 0 on m0 [0, 1), job 1 on m1 [0, 1) then on m0 [1, 2) (the
    lowest free machine when job 2 arrives and needs m1), job 2 on m1 [1, 2); m2 stays idle."""
    played = execute(get_algorithm("global-edf"), mig_inst, eps=0.0)
    assert played.validation.status == "ok", played.validation.errors
    out = played.outcome
    rows = sorted(
        zip(
            out.trace_job.tolist(),
            out.trace_start.tolist(),
            out.trace_machine.tolist(),
            out.trace_end.tolist(),
            out.trace_work.tolist(),
        )
    )
    assert rows == [(0, 0.0, 0, 1.0, 1.0), (1, 0.0, 1, 1.0, 1.0), (1, 1.0, 0, 2.0, 1.0), (2, 1.0, 1, 2.0, 1.0)]
    return out


def check_mig(inst, out, migratory=True):
    return validate(inst, out, 0.0, "speed", "maxflow", migratory=migratory)


def mig_row(out: Outcome, job: int, machine: int) -> int:
    rows = np.flatnonzero((out.trace_job == job) & (out.trace_machine == machine))
    assert rows.size == 1
    return int(rows[0])


def test_valid_migratory_outcome(mig_inst, mig_out):
    v = check_mig(mig_inst, mig_out)
    assert v.valid and v.status == "ok" and v.objective == 2.0 == mig_out.claimed_objective


def test_fault_migratory_trace_refused_without_the_declaration(mig_inst, mig_out):
    v = check_mig(mig_inst, mig_out, migratory=False)
    assert_fault(v, "job 1: processed on machine 0 at 1, but it was dispatched to 1 (migration")
    assert len(v.errors) == 1


def test_fault_migratory_work_on_an_ineligible_machine(mig_inst, mig_out):
    # job 2 (eligible only on m1) moved to the idle machine 2
    bad = planted(mig_out, trace_machine=(mig_row(mig_out, 2, 1), 2))
    v = check_mig(mig_inst, bad)
    assert_fault(v, "job 2: processed on machine 2 at 1, not in its eligible set [1]")
    assert len(v.errors) == 1


def test_fault_migratory_job_on_two_machines_at_once(mig_inst, mig_out):
    # job 1's second unit moved to the idle (eligible) m2 and stretched over [0.5, 2): its
    # rate stays below 1 and m2 is free, but job 1 then runs on m1 and m2 during [0.5, 1)
    r = mig_row(mig_out, 1, 0)
    bad = planted(mig_out, trace_machine=(r, 2), trace_start=(r, 0.5))
    v = check_mig(mig_inst, bad)
    assert_fault(v, "job 1: on two machines at once around 0.5 (its intervals overlap)")
    assert len(v.errors) == 1


def test_fault_migratory_work_on_an_undispatched_job(mig_inst, mig_out):
    bad = planted(mig_out, machine=(2, -1), dispatch_step=(2, -1), reject_step=(2, 2))
    v = validate(mig_inst, bad, 0.5, "rejection", "maxflow", deferred_dispatch=True, migratory=True)
    assert_fault(v, "job 2: processed on machine 1 at 1, but it was never dispatched")


def test_migratory_rule_keeps_the_other_trace_rules(mig_inst, mig_out):
    r = mig_row(mig_out, 1, 0)
    # more work than the speed allows on one machine (job 1: 2 units in [1, 2))
    assert_fault(check_mig(mig_inst, planted(mig_out, trace_work=(r, 2.0))), "more than speed 1 allows")
    # two jobs on one machine: job 1's first unit moved onto m0 (eligible) over job 0
    assert_fault(
        check_mig(mig_inst, planted(mig_out, trace_machine=(mig_row(mig_out, 1, 1), 0))),
        "machine 0: two jobs at once around 0",
    )
    # work before release: job 2 from 0.5
    assert_fault(
        check_mig(mig_inst, planted(mig_out, trace_start=(mig_row(mig_out, 2, 1), 0.5))),
        "job 2: processed from 0.5, before its release",
    )
    # completion not at the end of the last interval
    assert_fault(
        check_mig(mig_inst, planted(mig_out, completion=(1, 1.0), claimed_objective=1.0)),
        "job 1: completion 1, but its last work ends at 2",
    )


def test_migratory_declaration_does_not_relax_non_migratory_outcomes(flow_inst, flow_out):
    assert check_flow(flow_inst, flow_out).status == "ok"
    v = validate(flow_inst, flow_out, 0.5, "rejection", "maxflow", late_reject=True, migratory=True)
    assert v.status == "ok" and v.objective == 3.0
    # the non-migratory rule is unchanged: a moved row is migration without the declaration
    bad = planted(flow_out, trace_machine=(row_of(flow_out, 1), 1))
    assert_fault(check_flow(flow_inst, bad), "(migration or undispatched work)")
    # ... and legal with it (job 1 is eligible on m1, which is idle in [2, 3))
    assert validate(flow_inst, bad, 0.5, "rejection", "maxflow", late_reject=True, migratory=True).status == "ok"


def test_fault_stretch_objective_is_rederived():
    """Max stretch: objective max_j F_j / p_j. Jobs of sizes 1 then 4 on one machine, FIFO from
    slot 0: F = 1 and 5, stretch max(1/1, 5/4) = 1.25 where the max flow is 5; a claim of 5 (the
    max flow) is refused, and the same outcome read as MaxFlowTime disagrees with its claim."""
    from schedbench.scheduling.model import Instance
    from schedbench.scheduling.play import execute
    from schedbench.scheduling.registry import get_algorithm
    from schedbench.scheduling.validate import validate

    inst = Instance.from_lists(1, [0, 0], [1, 4], [[0], [0]])
    p = execute(get_algorithm("ll-fifo"), inst, eps=0.0, problem="stretch")
    assert p.validation.status == "ok" and p.validation.objective == 1.25
    as_flow = validate(inst, p.outcome, 0.0, "speed", "maxflow")
    assert as_flow.status == "invalid" and "objective" in as_flow.errors[0]  # the claim is the stretch
    p.outcome.claimed_objective = 5.0  # a max-flow claim
    v = validate(inst, p.outcome, 0.0, "speed", "stretch")
    assert v.status == "invalid" and "objective: the engine claims 5.0" in v.errors[0]


def test_fault_overlap_in_a_compiled_trace_with_machines_interleaved():
    """A compiled run's trace comes in the order written: each machine's rows in time order, the
    machines interleaved (the validator checks each machine's consecutive rows in its one pass,
    no sort). An overlap planted there is found; one that also breaks a machine's start order
    is found by the sorting fallback; a row on no machine is reported, not indexed."""
    inst = Instance.from_lists(2, [0, 0, 1, 3], [2, 2, 1, 1], [[0], [0], [1], [1]])
    played = execute(get_algorithm("ll-fifo"), inst, eps=0.0)
    out = played.outcome
    assert out.path == "compiled" and played.status == "ok"
    assert list(out.trace_machine) != sorted(out.trace_machine)  # m1's rows between m0's
    r = row_of(out, 1)  # job 1 on m0 in [2, 4); start it at 1, while job 0 runs [0, 2)
    v = check_flow(inst, planted(out, trace_start=(r, 1.0)), eps=0.0, model="speed", late_reject=False)
    assert_fault(v, "machine 0: two jobs at once around 1")
    assert len(v.errors) == 1
    # job 1's row moved before job 0's (start order broken): the sorted check finds the overlap
    swap = np.arange(out.trace_job.size)
    swap[[row_of(out, 0), r]] = swap[[r, row_of(out, 0)]]
    moved = planted(out, trace_start=(r, 1.0))
    for name in ("trace_machine", "trace_job", "trace_start", "trace_end", "trace_work"):
        setattr(moved, name, getattr(moved, name)[swap])
    v = check_flow(inst, moved, eps=0.0, model="speed", late_reject=False)
    assert_fault(v, "machine 0: two jobs at once around 1")
    v = check_flow(inst, planted(out, trace_machine=(r, 7)), eps=0.0, model="speed", late_reject=False)
    assert_fault(v, "job 1: processed on machine 7")


@settings(max_examples=200, deadline=None)
@given(
    group=st.lists(st.sampled_from([0, 1, 2, 2**15 - 1, 2**15, 2**16 + 3, 40_000]), min_size=0, max_size=30),
    data=st.data(),
)
def test_grouping_by_start_is_lexsort_for_any_machine_index(group, data):
    """The validator's two-stable-sorts permutation is ``np.lexsort((start, group))``, ties kept
    in row order, also for machine indices past the 16-bit radix shortcut (planted faults in the
    shortcut's bound and in the sorts' stability survived every other test)."""
    from schedbench.scheduling.validate import _grouped_by_start

    start = data.draw(st.lists(st.integers(0, 3), min_size=len(group), max_size=len(group)))
    g, s = np.array(group, dtype=np.int64), np.array(start, dtype=np.int64)
    assert _grouped_by_start(g, s).tolist() == np.lexsort((s, g)).tolist()


def test_an_invalid_outcome_says_valid_is_false_not_merely_falsy():
    from schedbench.scheduling.validate import _invalid

    v = _invalid(["x"])
    assert v.valid is False and v.status == "invalid" and v.errors == ["x"]
