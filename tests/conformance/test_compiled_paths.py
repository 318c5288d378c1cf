"""The compiled paths of the flow-time algorithms against their step paths.

For every algorithm that offers ``compiled_run`` and every parameter combination (every
choice of every parameter with choices, and two values of each free number), on every
problem it solves and at every ε it runs at (speed 1 and 1 + ε with ε ∈ {1/2, 1/4, 1/3}):
both paths give the same dispatch, rejections and their times, completion times, processing
trace, objective, validation status and counters — on fixed instances (every combination)
and on hypothesis-generated ones (unit and sized jobs, weights, ties of releases), and on the
instances every adversary realises against the step path. A planted difference in a
compiled run is caught by the same comparison.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedbench
from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.compiled import CompiledRun
from schedbench.scheduling.model import Instance
from schedbench.scheduling.play import execute
from schedbench.scheduling.registry import adversary_names, algorithm_names, get_adversary, get_algorithm

COMPILED_FLOW = [
    name for name in algorithm_names() if get_algorithm(name).compiled_run is not OnlineAlgorithm.compiled_run
]
EPS = [0.5, 0.25, 1 / 3]
FREE_VALUES = {  # two values for each free-valued (number) parameter; None is its derived default
    "cap_factor": [1.0, 2.0],
    "alpha": [None, 2.0],
    "D": [None, 3.0],
    "c": {"ssf-edf": [2.0, 3.0], "wmft-B": ["1/eps", "1/eps2", "1/eps4", 2.5], "gwmft": ["1/eps", "1/eps6", 3.0]},
}


def test_the_compiled_algorithms_are_the_flow_algorithms_of_the_issue():
    assert set(COMPILED_FLOW) == {
        "mft-unit",
        "ll-fifo",
        "ll-fifo-drop",
        "drop-every-k-flow",
        "random-two-flow",
        "imd",
        "edf",
        "ssf-edf",
        "lwf",
        "wmft-A",
        "wmft-B",
        "gwmft",
        "class-ll-srpt",
        "anand-batch",
    }


def combinations(name):
    """Every parameter combination of ``name``: choices × the free values above."""
    cls = get_algorithm(name)
    axes = {}
    for key, p in cls.parameters.items():
        if p.choices:
            axes[key] = list(p.choices)
        elif key in FREE_VALUES:
            values = FREE_VALUES[key]
            axes[key] = values[name] if isinstance(values, dict) else values
    keys = sorted(axes)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(axes[k] for k in keys))]


def eps_values(cls):
    """The ε of the grid, as an experiment would run them (speed 1 too, where it applies)."""
    return cls.eps_values(EPS)


def runs(name):
    """(problem, eps, params) of every run of the conformance grid of ``name``."""
    cls = get_algorithm(name)
    return [
        (problem, eps, params)
        for problem in cls.solved_problems()
        for eps in eps_values(cls)
        for params in combinations(name)
    ]


def _instance(seed, n, m, sizes, weights):
    rng = np.random.default_rng(seed)
    release = np.sort(rng.integers(0, max(1, n // 3), n))  # many simultaneous releases
    size = np.ones(n, np.int64) if sizes == 1 else rng.integers(1, sizes + 1, n)
    eligible = [sorted(rng.choice(m, rng.integers(1, min(m, 3) + 1), replace=False).tolist()) for _ in range(n)]
    w = rng.choice([0.5, 1.0, 2.0, 3.0, 4.5], n).tolist() if weights else None
    wr = rng.choice([0.25, 1.0, 1.5, 4.0], n).tolist() if weights else None
    return Instance.from_lists(m, release.tolist(), size.tolist(), eligible, w_flow=w, w_reject=wr)


FIXED = [_instance(1, 40, 4, 1, False), _instance(2, 40, 4, 6, True), _instance(3, 60, 6, 4, True)]


def _normal_trace(out):
    """Trace rows (machine, job, start, end, work) without zero-length rows, sorted."""
    keep = (out.trace_end - out.trace_start > 1e-12) | (out.trace_work > 1e-9)
    rows = np.stack(
        [
            out.trace_machine[keep],
            out.trace_job[keep],
            out.trace_start[keep],
            out.trace_end[keep],
            out.trace_work[keep],
        ],
        axis=1,
    ).astype(np.float64)
    return rows[np.lexsort((rows[:, 2], rows[:, 0]))]


def assert_same_run(fast, step):
    """The two records describe the same run (times to 1e-9, decisions exactly)."""
    a, b = fast.outcome, step.outcome
    assert a.path == "compiled" and b.path == "step"
    np.testing.assert_array_equal(a.machine, b.machine, err_msg="dispatch")
    np.testing.assert_array_equal(a.rejected, b.rejected, err_msg="rejections")
    np.testing.assert_array_equal(a.reject_time, b.reject_time, err_msg="rejection times")
    np.testing.assert_array_equal(
        a.step_time[a.dispatch_step] * (a.dispatch_step >= 0),
        b.step_time[b.dispatch_step] * (b.dispatch_step >= 0),
        err_msg="dispatch times",
    )
    np.testing.assert_allclose(a.completion, b.completion, rtol=1e-9, atol=1e-9, err_msg="completion times")
    ta, tb = _normal_trace(a), _normal_trace(b)
    assert ta.shape == tb.shape, f"trace rows {ta.shape[0]} vs {tb.shape[0]}"
    np.testing.assert_allclose(ta, tb, rtol=1e-9, atol=1e-9, err_msg="trace")
    assert math.isclose(fast.objective, step.objective, rel_tol=1e-9, abs_tol=1e-9), "objective"
    assert fast.status == step.status and fast.budget_violations == step.budget_violations
    assert fast.counters == step.counters, "counters"


def both(name, inst, eps, params, problem, opt):
    cls = get_algorithm(name)
    oracle = opt if cls.uses_oracle(cls.resolve_params(params)) else None
    kw = dict(eps=eps, params=params, oracle=oracle, problem=problem, seed=5)
    return execute(cls, inst, fast=True, **kw), execute(cls, inst, fast=False, **kw)


def _applies(cls, inst):
    return not (cls.unit_sizes_only and not inst.unit_sizes)


@pytest.mark.parametrize("name", COMPILED_FLOW)
def test_every_parameter_combination_agrees_on_fixed_instances(name):
    cls = get_algorithm(name)
    declined = 0
    for inst in FIXED:
        if not _applies(cls, inst):
            continue
        for problem, eps, params in runs(name):
            fast, step = both(name, inst, eps, params, problem, opt=4.0)
            if fast.outcome.path == "step":  # this combination declines the compiled path
                declined += 1
                continue
            assert_same_run(fast, step)
    # every combination takes the compiled path (mft-unit's prefix oracles too, since they
    # refresh T between kernel runs)
    assert declined == 0


@st.composite
def flow_instances(draw):
    m = draw(st.integers(1, 4))
    n = draw(st.integers(1, 14))
    release = sorted(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)))
    unit = draw(st.booleans())
    size = [1] * n if unit else draw(st.lists(st.integers(1, 6), min_size=n, max_size=n))
    eligible = [sorted(draw(st.sets(st.integers(0, m - 1), min_size=1, max_size=m))) for _ in range(n)]
    weight = st.sampled_from([0.5, 1.0, 2.0, 3.0, 0.75])
    w = draw(st.lists(weight, min_size=n, max_size=n))
    wr = draw(st.lists(weight, min_size=n, max_size=n))
    return Instance.from_lists(m, release, size, eligible, w_flow=w, w_reject=wr)


@pytest.mark.parametrize("name", COMPILED_FLOW)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_compiled_and_step_paths_agree_on_generated_instances(name, data):
    cls = get_algorithm(name)
    inst = data.draw(flow_instances())
    if not _applies(cls, inst):
        inst = Instance(
            inst.m, inst.release, np.ones(inst.n, np.int64), inst.indptr, inst.indices, inst.w_flow, inst.w_reject
        )
    problem, eps, params = data.draw(st.sampled_from(runs(name)))
    opt = data.draw(st.sampled_from([1.0, 2.0, 3.0, 5.0]))
    fast, step = both(name, inst, eps, params, problem, opt)
    if fast.outcome.path == "compiled":
        assert_same_run(fast, step)


def _adversary_cases():
    cases = []
    for adv_name in adversary_names():
        adv = get_adversary(adv_name)
        for name in COMPILED_FLOW:
            cls = get_algorithm(name)
            if adv.problem in cls.solved_problems() and not (cls.unit_sizes_only and not adv.unit_sizes):
                cases.append((adv_name, name))
    return cases


ADVERSARY_PARAMS = {
    "anr-flow": {"m": 4},
    "anr-tree": {"m": 4},
    "pairing-streams": {"m": 4},
    "section4": {"horizon": 60},
}


@pytest.mark.parametrize("adversary, name", _adversary_cases())
def test_every_adversary_s_realised_instance_replays_identically_on_the_compiled_path(adversary, name):
    cls = get_algorithm(name)
    eps = None if cls.model == "plain" else 0.25
    played = schedbench.run_adversary(
        adversary, name, eps=eps, seed=2, adversary_params=ADVERSARY_PARAMS.get(adversary), solve=False
    )
    assert played.outcome.path == "step"  # an adaptive adversary plays the step path
    oracle = played.claimed_opt if cls.uses_oracle(cls.resolve_params({})) else None
    replay = execute(cls, played.instance, eps=eps, oracle=oracle, problem=played.problem, seed=2)
    assert replay.outcome.path == "compiled", f"{name} declined its compiled path on {adversary}'s instance"
    assert_same_run(replay, played)


# ---------------------------------------------------------------------- planted differences
def _planted(kind):
    def plant(run: CompiledRun) -> CompiledRun:
        if kind == "completion":
            k = int(np.flatnonzero(~np.isnan(run.completion))[0])
            run.completion[k] += 1.0
        elif kind == "trace":
            run.trace_float[0, 1] += 0.5
        elif kind == "machine":
            k = int(np.flatnonzero(run.machine >= 0)[-1])
            run.machine[k] = -1  # a job rejected that the step path dispatched
        elif kind == "late":
            k = int(np.flatnonzero(run.late_reject_slot >= 0)[0])
            run.late_reject_slot[k] += 1
        return run

    return plant


@pytest.mark.parametrize(
    "name, kind",
    [("ll-fifo", "completion"), ("edf", "trace"), ("imd", "machine"), ("wmft-A", "trace"), ("wmft-B", "late")],
)
def test_a_planted_difference_in_a_compiled_run_is_caught(monkeypatch, name, kind):
    cls = get_algorithm(name)
    inst = FIXED[1]
    params = {"c": 1.0} if name == "wmft-B" else {}
    eps = 0.25
    fast, step = both(name, inst, eps, params, cls.problem, opt=2.0)
    assert_same_run(fast, step)  # unplanted: the same run
    if kind == "late":
        assert (step.outcome.reject_step >= 0).any() and (step.outcome.machine[step.outcome.rejected] >= 0).any()
    original = cls.compiled_run
    monkeypatch.setattr(cls, "compiled_run", lambda self, i, o: _planted(kind)(original(self, i, o)))
    planted, _ = both(name, inst, eps, params, cls.problem, opt=2.0)
    with pytest.raises(AssertionError):
        assert_same_run(planted, step)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_lb_unit_reject_without_t_star_is_compiled_and_agrees(data):
    """The phases (incremental b-matching) and doubling oracles of ``lb-unit-reject``."""
    inst = data.draw(flow_instances())
    inst = Instance(inst.m, inst.release, np.ones(inst.n, np.int64), inst.indptr, inst.indices, None, None)
    params = {
        "oracle": data.draw(st.sampled_from(["phases", "doubling"])),
        "guard": data.draw(st.sampled_from(["off", "on"])),
        "alpha_rule": data.draw(st.sampled_from(["paper", "safe"])),
    }
    eps = data.draw(st.sampled_from(EPS + [0.1]))
    cls = get_algorithm("lb-unit-reject")
    fast = execute(cls, inst, eps=eps, params=params, fast=True)
    step = execute(cls, inst, eps=eps, params=params, fast=False)
    assert fast.outcome.path == "compiled" and step.outcome.path == "step"
    np.testing.assert_array_equal(fast.outcome.machine, step.outcome.machine)
    assert fast.objective == step.objective and fast.status == step.status
    assert fast.counters == step.counters


@pytest.mark.parametrize("name", ["gwmft", "wmft-B"])
def test_a_timeout_beyond_int64_is_never_on_both_paths(name):
    """c·T/w ≥ 2^63 (gwmft's default c = ε⁻⁶ at ε = 0.001): the timeout is never reached on either
    path (the compiled one used to wrap the float to a negative slot and time every job out)."""
    inst = Instance.from_lists(2, [0, 0, 1, 2], [10, 10, 10, 10], [[0, 1], [0], [1], [0, 1]])
    params = {"c": "1/eps6"} if name == "gwmft" else {"c": 1e30}
    fast, step = both(name, inst, 0.001, params, get_algorithm(name).problem, opt=10.0)
    assert_same_run(fast, step)
    assert fast.counters["timeouts"] == 0 and not fast.outcome.rejected.any()
