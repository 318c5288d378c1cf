"""Every registered algorithm, on small instances: it runs, is deterministic for a fixed seed,
its fast path (if any) agrees with the step-by-step contract, its outcome passes the validator,
and ALG >= OPT (or a bound below it, see :func:`alg_floor`) whenever it rejects nothing. A
migratory algorithm (outside the model) goes through the same ``execute`` path, which routes it
to its whole-instance schedule. New plug-ins get these tests without writing any."""

import inspect
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

import schedbench
from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.offline import flow_lower_bound, opt_makespan, solve_opt
from schedbench.scheduling.problems import PROBLEMS
from schedbench.scheduling.registry import adversary_names, algorithm_names, get_adversary, get_algorithm, get_family

from ..strategies import instances

ALGORITHMS = algorithm_names()
EPS = [0.5, 0.2, 0.05]


def eps_values(cls):
    return cls.eps_values(EPS)


def small_instances(cls):
    rr = get_family("random-restricted")
    out = [get_family("anr-tree").make(0, 0, K=4)]
    out += [rr.make(i, 1, m=6, n=40, d=2, arrivals="poisson", rate=4.0) for i in range(3)]
    if not cls.unit_sizes_only:
        out += [rr.make(i, 2, m=5, n=30, d=3, sizes="pow2", max_size_exp=3) for i in range(3)]
    return out


def alg_floor(cls, inst, eps, opt) -> float:
    """What a run of ``cls`` that rejects nothing cannot beat: the makespan OPT ``opt`` for
    LoadBalancing; for the flow problems the problem's OPT (or bound) of ``solve_opt`` when the
    run is in the model at speed 1, else — speed s > 1 or migratory, both can beat the speed-1
    non-migratory OPT — max_j w_j·p_j / s (every job needs p_j / s)."""
    if not PROBLEMS[cls.problem].processes:
        return opt.value
    speed = cls.speed_for(eps)
    if speed == 1.0 and not cls.migratory:
        return solve_opt(inst, cls.problem).denominator
    return flow_lower_bound(inst, cls.problem).lower_bound / speed - 1e-9


def test_registry_is_not_empty_and_names_are_unique():
    assert {"greedy", "lb-unit-reject"} <= set(ALGORITHMS)
    classes = [get_algorithm(n) for n in ALGORITHMS]
    assert [c.name for c in classes] == ALGORITHMS  # each name maps to the class declaring it
    assert len({id(c) for c in classes}) == len(classes)  # no class registered under two names
    adversaries = [get_adversary(n) for n in adversary_names()]
    assert "anr-tree" in adversary_names() and [a.name for a in adversaries] == adversary_names()


def test_registering_a_second_class_under_a_taken_name_fails():
    from schedbench.scheduling.registry import register_adversary, register_algorithm

    clone = type("GreedyClone", (get_algorithm("greedy"),), {})
    with pytest.raises(ValueError, match="registered twice"):
        register_algorithm(clone)
    adv = type("AnrClone", (get_adversary("anr-tree"),), {})
    with pytest.raises(ValueError, match="registered twice"):
        register_adversary(adv)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_declares_the_contract(name):
    cls = get_algorithm(name)
    assert issubclass(cls, OnlineAlgorithm)
    assert cls.problem in PROBLEMS and cls.model in {"rejection", "speed", "plain"}
    assert cls.rule_label in {"Q", "R", "R✓"}
    assert cls.reference and (cls.__doc__ or inspect.getmodule(cls).__doc__)
    # one file per algorithm: the module defines exactly one registered algorithm
    module = inspect.getmodule(cls)
    registered = [
        c
        for c in vars(module).values()
        if inspect.isclass(c) and issubclass(c, OnlineAlgorithm) and c.__module__ == module.__name__
    ]
    assert registered == [cls]


def param_grid(cls):
    """Every combination of the parameters that have a finite set of choices (others: default)."""
    keys = sorted(k for k, p in cls.parameters.items() if p.choices)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(cls.parameters[k].choices for k in keys))]


@pytest.mark.parametrize("name", ALGORITHMS)
def test_runs_valid_deterministic_and_fast_path_agrees(name):
    cls = get_algorithm(name)
    for inst in small_instances(cls):
        opt = opt_makespan(inst)
        for eps, params in itertools.product(eps_values(cls), param_grid(cls)):
            a = schedbench.run(name, inst, eps=eps, opt=opt, seed=3, **params)
            b = schedbench.run(name, inst, eps=eps, opt=opt, seed=3, **params)
            slow = schedbench.run(name, inst, eps=eps, opt=opt, seed=3, fast=False, **params)
            assert a.status != "invalid", a.errors
            for r in (b, slow):
                np.testing.assert_array_equal(a.outcome.machine, r.outcome.machine)
                np.testing.assert_array_equal(a.outcome.rejected, r.outcome.rejected)
                np.testing.assert_array_equal(a.outcome.reject_time, r.outcome.reject_time)
            assert a.objective == b.objective  # deterministic
            # the compiled path rounds like the step path up to where the engine splits its
            # processing (at fractional speeds only; tests/conformance/test_compiled_paths.py)
            assert math.isclose(a.objective, slow.objective, rel_tol=1e-12, abs_tol=1e-12)
            if a.rejected_frac == 0:
                assert a.objective >= alg_floor(cls, inst, eps, opt)


@pytest.mark.parametrize("name", ALGORITHMS)
@given(data=st.data())
def test_property_alg_at_least_opt_at_least_lower_bound(name, data):
    cls = get_algorithm(name)
    inst = data.draw(instances(max_m=4, max_n=8, unit=True if cls.unit_sizes_only else None))
    eps = data.draw(st.sampled_from(eps_values(cls)))
    opt = opt_makespan(inst)
    res = schedbench.run(name, inst, eps=eps, opt=opt)
    assert res.status != "invalid", res.errors
    assert opt.value >= opt.lower_bound
    if res.rejected_frac == 0:
        assert res.objective >= alg_floor(cls, inst, eps, opt)
