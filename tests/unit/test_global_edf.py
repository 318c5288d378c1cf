"""global-edf (spec §7 B11): the migratory baseline outside the model. Hand-checked event logs,
the run path (execute routes it to schedule_all, refuses adversaries), cross-checks with the
non-migratory engine where no migration is possible, and the validator on random instances."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import schedbench
from schedbench.scheduling.algorithms.base import ParameterError
from schedbench.scheduling.model import Instance
from schedbench.scheduling.play import execute
from schedbench.scheduling.registry import get_adversary, get_algorithm, get_family
from schedbench.scheduling.validate import validate

from ..strategies import instances

GEDF = get_algorithm("global-edf")


def rows(out):
    """Trace rows as sorted (job, start, machine, end, work) tuples."""
    return sorted(
        zip(
            out.trace_job.tolist(),
            out.trace_start.tolist(),
            out.trace_machine.tolist(),
            out.trace_end.tolist(),
            out.trace_work.tolist(),
        )
    )


def approx_rows(expected):
    return [tuple(pytest.approx(x) for x in row) for row in expected]


@pytest.fixture
def three_jobs() -> Instance:
    # job 0: size 1 on m0; job 1: size 2 on m0 or m1; job 2: size 1 on m1, released at 1
    return Instance.from_lists(2, [0, 0, 1], [1, 2, 1], [[0], [0, 1], [1]])


def test_declaration():
    assert GEDF.migratory and GEDF.problem == "maxflow" and GEDF.model == "speed"
    assert GEDF.rule_label == "R" and "B11" in GEDF.reference
    assert not get_algorithm("ll-fifo").migratory  # the base class default
    assert GEDF.uses_oracle({"oracle": "opt"}) and not GEDF.uses_oracle({"oracle": "none"})


def test_event_log_speed_1_one_job_migrates(three_jobs):
    """t=0: EDF order 0, 1: job 0 takes m0, job 1 the lowest free of {0, 1}: m1.
    t=1: job 0 done; order 1, 2: job 1 takes m0 (lowest free) — it migrates — job 2 takes m1.
    t=2: jobs 1 and 2 done. Flows 1, 2, 1."""
    p = execute(GEDF, three_jobs, eps=0.0)
    out = p.outcome
    assert p.validation.status == "ok", p.validation.errors
    assert out.speed == 1.0
    assert rows(out) == [(0, 0.0, 0, 1.0, 1.0), (1, 0.0, 1, 1.0, 1.0), (1, 1.0, 0, 2.0, 1.0), (2, 1.0, 1, 2.0, 1.0)]
    assert out.completion.tolist() == [1.0, 2.0, 2.0]
    assert out.machine.tolist() == [0, 1, 1]  # the first machine each job ran on
    assert out.arrival_step.tolist() == [0, 1, 2] and out.dispatch_step.tolist() == [0, 1, 2]
    assert out.step_time.tolist() == [0.0, 0.0, 1.0] and out.reject_step.tolist() == [-1, -1, -1]
    assert out.claimed_objective == p.validation.objective == 2.0
    assert p.counters == {"migrations": 1}


def test_event_log_speed_1_5_fractional_completions(three_jobs):
    """s = 1.5. t=0: job 0 on m0, job 1 on m1. t=2/3: job 0 done (1 unit); job 1 (1 unit left)
    takes the lowest free machine m0 — migrates. t=1: job 2 released; job 1 (0.5 left) stays on
    m0, job 2 takes m1. t=4/3: job 1 done. t=5/3: job 2 done. Rows are merged across the
    events at which a job stays put (job 1 on m0 across t=1, job 2 on m1 across t=4/3)."""
    p = execute(GEDF, three_jobs, eps=0.5)
    out = p.outcome
    assert p.validation.status == "ok", p.validation.errors
    assert out.speed == 1.5
    assert rows(out) == approx_rows(
        [(0, 0, 0, 2 / 3, 1), (1, 0, 1, 2 / 3, 1), (1, 2 / 3, 0, 4 / 3, 1), (2, 1, 1, 5 / 3, 1)]
    )
    np.testing.assert_allclose(out.completion, [2 / 3, 4 / 3, 5 / 3])
    assert p.validation.objective == pytest.approx(4 / 3)  # job 1
    # the non-migratory validator refuses this outcome
    v = validate(three_jobs, out, 0.5, "speed", "maxflow")
    assert v.status == "invalid" and any("(migration" in e for e in v.errors)


def test_one_machine_is_fifo_at_fractional_speed():
    # three unit jobs at 0, one at 1, one machine at speed 1.5: FIFO back to back
    inst = Instance.from_lists(1, [0, 0, 0, 1], [1, 1, 1, 2], [[0]] * 4)
    out = execute(GEDF, inst, eps=0.5).outcome
    np.testing.assert_allclose(out.completion, [2 / 3, 4 / 3, 2.0, 2.0 + 4 / 3])
    assert out.trace_job.size == 4  # one row per job: nothing is preempted


def test_edf_order_is_release_then_index_not_size():
    # maxflow: d_j = r_j + T, so a long early job is not preempted by short later ones
    inst = Instance.from_lists(1, [0, 1, 1], [3, 1, 1], [[0]] * 3)
    out = execute(GEDF, inst, eps=0.0).outcome
    assert out.completion.tolist() == [3.0, 4.0, 5.0]


def test_greedy_list_assignment_takes_the_lowest_free_machine():
    # job 0 (either machine) takes m0, the lowest free one; job 1 (m0 only) waits, although m1
    # is idle: the rule is greedy list assignment, not a matching
    inst = Instance.from_lists(2, [0, 0], [2, 2], [[0, 1], [0]])
    out = execute(GEDF, inst, eps=0.0).outcome
    assert rows(out) == [(0, 0.0, 0, 2.0, 2.0), (1, 2.0, 0, 4.0, 2.0)]
    assert out.completion.tolist() == [2.0, 4.0]


def test_idle_gap_and_unsorted_instance_order():
    # jobs given out of release order; machine idle in [1, 5)
    inst = Instance.from_lists(1, [5, 0], [1, 1], [[0], [0]])
    p = execute(GEDF, inst, eps=0.0)
    assert p.validation.status == "ok", p.validation.errors
    assert p.outcome.completion.tolist() == [6.0, 1.0]
    assert p.outcome.arrival_step.tolist() == [1, 0]


def test_oracle_changes_nothing_for_maxflow(three_jobs):
    a = execute(GEDF, three_jobs, eps=0.5)
    b = execute(GEDF, three_jobs, eps=0.5, params={"oracle": "opt"}, oracle=7.0)
    assert rows(a.outcome) == rows(b.outcome)
    with pytest.raises(ParameterError, match="oracle T"):
        execute(GEDF, three_jobs, eps=0.5, params={"oracle": "opt"})
    with pytest.raises(ParameterError, match="eps"):
        execute(GEDF, three_jobs, eps=-0.1)


def test_adaptive_adversary_is_refused():
    # refused before anything else is looked at (here even the adversary's problem differs)
    adv = get_adversary("anr-tree")(eps=0.5, seed=0, m=4)
    with pytest.raises(ParameterError, match="'global-edf' is migratory .* cannot play the adaptive adversary"):
        execute(GEDF, adv, eps=0.5)
    with pytest.raises(ParameterError, match="'global-edf' is migratory"):
        schedbench.run_adversary("anr-tree", "global-edf", eps=0.5, adversary_params={"m": 4})


def test_api_run_and_fast_flag(three_jobs):
    a = schedbench.run("global-edf", three_jobs, eps=0.0)
    b = schedbench.run("global-edf", three_jobs, eps=0.0, fast=False)
    assert a.valid and b.valid and a.objective == b.objective == 2.0


def test_forced_dispatch_agrees_with_the_non_migratory_engine():
    # one eligible machine per job: nothing can migrate, so global EDF is per-machine FIFO,
    # which is what ll-fifo does through the engine
    inst = get_family("random-restricted").make(
        4, 1, m=5, n=200, d=1, sizes="pow2", max_size_exp=2, arrivals="poisson", rate=1.5
    )
    for eps in (0.0, 0.5, 0.3):
        g = execute(GEDF, inst, eps=eps)
        f = execute(get_algorithm("ll-fifo"), inst, eps=eps)
        assert g.validation.status == "ok" and f.validation.status == "ok"
        np.testing.assert_allclose(g.outcome.completion, f.outcome.completion, rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(g.outcome.machine, f.outcome.machine)
        assert g.counters["migrations"] == 0


@settings(max_examples=150, deadline=None)
@given(inst=instances(max_m=4, max_n=8), eps=st.sampled_from([0.0, 0.5, 0.25, 1 / 3, 0.1]))
def test_property_valid_at_least_lower_bound_and_refused_when_migrating(inst, eps):
    p = execute(GEDF, inst, eps=eps)
    out, v = p.outcome, p.validation
    assert v.status == "ok", v.errors
    assert v.objective == pytest.approx(out.claimed_objective)
    s = 1.0 + eps
    # every job is served: F_j >= p_j / s; and the work released at r_min all needs doing
    assert v.objective >= inst.size.max() / s - 1e-9
    assert np.all(out.completion >= inst.release + inst.size / s - 1e-9)
    # machines never exceed speed s: total work / (m s) after the first release
    assert out.completion.max() >= inst.release.min() + inst.size.sum() / (inst.m * s) - 1e-9
    plain = validate(inst, out, eps, "speed", "maxflow")  # the non-migratory rule
    if p.counters["migrations"]:
        assert plain.status == "invalid" and any("(migration" in e for e in plain.errors)
    else:
        assert plain.status == "ok", plain.errors


def test_large_instance_validates():
    # size, not speed, is what this checks (timings live in benchmarks/): 10^5 jobs, both speeds
    inst = get_family("random-restricted").make(0, 1, m=100, n=100000, d=2, sizes="unit", arrivals="poisson", load=0.9)
    for eps in (0.0, 0.5):
        p = execute(GEDF, inst, eps=eps)
        assert p.validation.status == "ok", p.validation.errors
    # sized jobs at fractional speed over ~1300 slots: snapping completions onto releases with a
    # 1e-9·t window once gave 1.25000015 units in a 0.99999912-long interval (rate above 1+ε)
    sized = get_family("random-restricted").make(
        0, 7, m=100, n=100000, d=2, sizes="pareto", pareto_shape=1.5, max_size=1024, arrivals="poisson", load=0.9
    )
    for problem in ("stretch", "maxflow"):
        p = execute(GEDF, sized, eps=0.25, problem=problem)
        assert p.validation.status == "ok", p.validation.errors


def test_kernel_with_a_later_job_of_higher_priority_preempts():
    # the kernel takes any EDF ranks (weighted deadlines): job 1, released at 1, ranks first,
    # preempts job 0 on the only machine, which resumes at 2 (a new trace row, not merged)
    from schedbench.scheduling.algorithms.global_edf import global_edf_kernel

    i64 = lambda *x: np.array(x, dtype=np.int64)  # noqa: E731
    first, completion, tm, tj, ts, te, tw = global_edf_kernel(
        i64(0, 1, 1), i64(2, 1, 1), i64(0, 1, 2, 3), i64(0, 0, 0), i64(0, 1, 2), i64(2, 0, 1), 1, 1.0
    )
    assert completion.tolist() == [4.0, 2.0, 3.0]
    assert list(zip(tj.tolist(), tm.tolist(), ts.tolist(), te.tolist(), tw.tolist())) == [
        (0, 0, 0.0, 1.0, 1.0),
        (1, 0, 1.0, 2.0, 1.0),
        (2, 0, 2.0, 3.0, 1.0),
        (0, 0, 3.0, 4.0, 1.0),
    ]
    assert first.tolist() == [0, 0, 0]
