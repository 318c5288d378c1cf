"""Every registered algorithm beyond the library suite (test_library_suite.py runs
:mod:`schedbench.scheduling.conformance` on each): the registry's names, one file per algorithm,
and on random instances drawn by hypothesis ALG >= OPT (or a bound below it, see
:func:`alg_floor`) whenever it rejects nothing. A migratory algorithm (outside the model) goes
through the same ``execute`` path, which routes it to its whole-instance schedule."""

import inspect

import pytest
from hypothesis import given, strategies as st

import schedbench
from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.offline import flow_lower_bound, opt_makespan, solve_opt
from schedbench.scheduling.problems import PROBLEMS
from schedbench.scheduling.registry import adversary_names, algorithm_names, get_adversary, get_algorithm

from ..strategies import instances

ALGORITHMS = algorithm_names()
EPS = [0.5, 0.2, 0.05]


def eps_values(cls):
    return cls.eps_values(EPS)


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
def test_one_file_per_algorithm(name):
    """A built-in's module defines exactly one registered algorithm (the contract, the runs, the
    validator, determinism, ALG ≥ OPT and fast = step are the library suite's:
    test_library_suite.py)."""
    cls = get_algorithm(name)
    module = inspect.getmodule(cls)
    registered = [
        c
        for c in vars(module).values()
        if inspect.isclass(c) and issubclass(c, OnlineAlgorithm) and c.__module__ == module.__name__
    ]
    assert registered == [cls]


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
