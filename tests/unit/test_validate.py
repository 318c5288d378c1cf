"""The validator against hand-checked outcomes and planted faults (each fault caught alone)."""

import numpy as np
import pytest

import schedbench
from schedbench.scheduling.model import Instance, Outcome
from schedbench.scheduling.validate import validate_dispatch


def outcome(machine, reject_event=None, reject_time=None, claimed=None, inst=None):
    n = len(machine)
    reject_event = np.full(n, -1) if reject_event is None else np.asarray(reject_event)
    if reject_time is None:
        reject_time = np.full(n, np.nan)
        if inst is not None:
            order = np.lexsort((np.arange(n), inst.release))
            hit = reject_event >= 0
            reject_time[hit] = inst.release[order[reject_event[hit]]]
    return Outcome("hand", "load", None, {}, np.asarray(machine), reject_event,
                   np.asarray(reject_time, dtype=float), claimed if claimed is not None else 0.0)


@pytest.fixture
def inst():
    # jobs: sizes 2, 3, 1, 1 ; all on machines {0, 1} except job 3 only on machine 1
    return Instance.from_lists(2, [0, 0, 1, 2], [2, 3, 1, 1], [[0, 1], [0, 1], [0, 1], [1]])


def test_clean_outcome_objective(inst):
    v = validate_dispatch(inst, outcome([0, 1, 0, 1], claimed=4.0), None, "plain")
    assert v.valid and v.status == "ok" and v.objective == 4.0 and v.rejected_frac == 0


def test_late_rejection_counts_until_rejected(inst):
    # Jobs 0 and 1 both on machine 0: load 2 after arrival 0, 5 after arrival 1. Rejecting job 0
    # at arrival 1 (same event) leaves 3; rejecting it at arrival 2 leaves 5 standing first.
    same_event = outcome([0, 0, 1, 1], reject_event=[1, -1, -1, -1], claimed=3.0, inst=inst)
    v = validate_dispatch(inst, same_event, 0.5, "rejection")
    assert v.valid and v.objective == 3.0
    later = outcome([0, 0, 1, 1], reject_event=[2, -1, -1, -1], claimed=5.0, inst=inst)
    v = validate_dispatch(inst, later, 0.5, "rejection")
    assert v.valid and v.objective == 5.0


def test_planted_ineligible_machine(inst):
    v = validate_dispatch(inst, outcome([0, 1, 0, 0], claimed=3.0), None, "plain")
    assert not v.valid and v.status == "invalid"
    assert any("job 3: dispatched to machine 0, not in its eligible set" in e for e in v.errors)


def test_planted_job_neither_dispatched_nor_rejected(inst):
    v = validate_dispatch(inst, outcome([0, -1, 0, 1], claimed=3.0), 0.5, "rejection")
    assert v.status == "invalid" and any("job 1: neither dispatched nor rejected" in e for e in v.errors)


def test_planted_undispatched_job_rejected_late(inst):
    v = validate_dispatch(inst, outcome([-1, 1, 0, 1], reject_event=[2, -1, -1, -1], claimed=4.0, inst=inst),
                          0.5, "rejection")
    assert v.status == "invalid" and any("must be rejected on its own arrival" in e for e in v.errors)


def test_planted_rejection_before_arrival(inst):
    v = validate_dispatch(inst, outcome([0, 1, 0, 1], reject_event=[-1, -1, -1, 1], claimed=3.0, inst=inst),
                          0.5, "rejection")
    assert v.status == "invalid" and any("job 3: rejected at arrival 1, before it arrived" in e for e in v.errors)


def test_planted_wrong_rejection_time(inst):
    v = validate_dispatch(inst, outcome([0, 1, 0, 1], reject_event=[3, -1, -1, -1],
                                        reject_time=[0, np.nan, np.nan, np.nan], claimed=3.0), 0.5, "rejection")
    assert v.status == "invalid" and any("job 0: reject_time 0.0" in e for e in v.errors)


def test_planted_wrong_objective_claim(inst):
    v = validate_dispatch(inst, outcome([0, 1, 0, 1], claimed=3.0), None, "plain")
    assert v.status == "invalid" and any("engine claims 3.0, the decisions give 4.0" in e for e in v.errors)


def test_planted_rejection_by_plain_algorithm(inst):
    v = validate_dispatch(inst, outcome([-1, 1, 0, 1], reject_event=[0, -1, -1, -1], claimed=3.0, inst=inst),
                          None, "plain")
    assert v.status == "invalid" and any("'plain' algorithm may not reject" in e for e in v.errors)


def test_planted_machine_out_of_range(inst):
    v = validate_dispatch(inst, outcome([0, 7, 0, 1], claimed=3.0), None, "plain")
    assert v.status == "invalid" and "job 1: machine 7 out of range" in v.errors[0]


def test_budget_checked_at_every_prefix_not_only_at_the_end():
    # 10 unit jobs on one machine; job 0 rejected immediately: final fraction 0.1 <= eps = 0.2,
    # but after the first arrival the fraction is 1/1 > 0.2.
    inst = Instance.from_lists(1, [0] * 10, [1] * 10, [[0]] * 10)
    machine = [-1] + [0] * 9
    v = validate_dispatch(inst, outcome(machine, reject_event=[0] + [-1] * 9, claimed=9.0, inst=inst),
                          0.2, "rejection")
    assert v.status == "budget_violated" and not v.valid
    assert v.rejected_frac == pytest.approx(0.1)
    assert v.rejected_frac_max_prefix == 1.0
    assert v.budget_violations == 4  # prefixes 1..4: 1/k > 0.2 for k < 5 (1/5 = 0.2 is allowed)
    # The same rejection placed last respects the budget at every prefix.
    machine = [0] * 9 + [-1]
    v = validate_dispatch(inst, outcome(machine, reject_event=[-1] * 9 + [9], claimed=9.0, inst=inst),
                          0.2, "rejection")
    assert v.valid and v.rejected_frac_max_prefix == pytest.approx(0.1)


def test_api_run_validates(tiny_instance):
    res = schedbench.run("greedy", tiny_instance, opt=schedbench.opt_makespan(tiny_instance))
    assert res.valid and res.objective == 2.0 and res.rejected_frac == 0
    assert res.ratio == 1.0 and res.opt.status == "optimal"
