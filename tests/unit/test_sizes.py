"""Stated sizes: every built-in family's ``Family.shape`` (jobs, machines, eligibility entries of
one instance) and every built-in adversary's ``Adversary.size`` (most jobs a game releases,
machines) agree with what is generated or played, and every built-in states one."""

from __future__ import annotations

import numpy as np
import pytest

import schedbench
from schedbench.hall.params import ParameterError
from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.adversaries.base import Adversary
from schedbench.scheduling.instances.base import Family, FamilyParameterError
from schedbench.scheduling.registry import (
    adversary_names,
    family_names,
    get_adversary,
    get_family,
    is_builtin,
)

# (family, params, instance indices): every built-in family states n, m and the entries exactly
FAMILY_CASES = [
    ("random-restricted", {"m": 8, "n": 20}, [0, 1]),
    ("random-restricted", {"m": 16, "n": 30, "d": "log", "sizes": "pow2"}, [0]),
    ("random-restricted", {"m": 10, "n": 25, "d": "half", "arrivals": "poisson", "rate": 3.0}, [0]),
    ("random-restricted", {"m": 12, "n": 15, "d": "all", "hot_fraction": 0.5}, [0]),
    ("random-restricted", {"m": 6, "n": 9, "d": 5, "sizes": "pareto", "max_size": 50}, [0]),
    ("anr-tree", {"K": 1}, [0]),
    ("anr-tree", {"K": 3, "final_job": False}, [0]),
    ("anr-tree", {"K": 4}, [0]),
    ("swf-trace", {"m": 8, "d": 2, "n": 50}, [0, 3]),
    ("swf-trace", {"m": 5, "d": 5, "n": 40, "start": 100}, [2]),
    ("swf-trace", {"m": 16, "d": 3, "n": 0, "start": 18_200}, [0, 1]),  # n = 0: the rest of the log
    ("swf-trace", {"trace": "lublin-256", "m": 4, "d": 1, "n": 30}, [1]),
]


@pytest.mark.parametrize(("name", "params", "indices"), FAMILY_CASES)
def test_family_shape_is_the_generated_size(name, params, indices):
    shape = get_family(name).shape(params)
    for index in indices:
        inst = get_family(name).make(index, base_seed=1, **params)
        assert shape == (inst.n, inst.m, len(inst.indices))


def test_swf_trace_shape_with_n_zero_counts_the_usable_records(tmp_path):
    rows = [f"{j} {10 * j} -1 {60 * j} 1 -1 -1 -1 -1 -1 -1 {j % 3} 1 -1 -1 -1 -1 -1" for j in range(1, 8)]
    rows.append("8 -1 -1 5 1 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1")  # skipped: no submit time
    path = tmp_path / "log.swf"
    path.write_text("\n".join(rows) + "\n")
    params = {"path": str(path), "m": 4, "d": 2, "n": 0, "start": 2}
    assert get_family("swf-trace").shape(params) == (5, 4, 10)
    inst = get_family("swf-trace").make(0, base_seed=1, **params)
    assert (inst.n, inst.m, len(inst.indices)) == (5, 4, 10)


def test_random_restricted_shape_resolves_d_rules():
    fam = get_family("random-restricted")
    assert fam.shape({"m": 9, "n": 7, "d": "log"}) == (7, 9, 7 * 4)
    assert fam.shape({"m": 9, "n": 7, "d": "half"}) == (7, 9, 7 * 4)
    assert fam.shape({"m": 9, "n": 7, "d": "all"}) == (7, 9, 7 * 9)
    assert fam.shape({"m": 9, "n": 7}) == (7, 9, 14)  # the default d = 2


def test_random_restricted_size_guard_counts_the_stated_entries():
    fam = get_family("random-restricted")
    assert fam.shape({"m": 1000, "n": 100_000, "d": 1000}) == (100_000, 1000, 10**8)  # at the bound: accepted
    with pytest.raises(FamilyParameterError, match=r"give 100001000 eligibility entries, more than 100000000"):
        fam.shape({"m": 1000, "n": 100_001, "d": "all"})


def test_shape_checks_the_parameters_first():
    with pytest.raises(FamilyParameterError, match="'K'"):
        get_family("anr-tree").shape({"K": 0})
    with pytest.raises(FamilyParameterError, match="'d' = 3 exceeds 'm' = 2"):
        get_family("random-restricted").shape({"m": 2, "n": 5, "d": 3})


def test_a_family_without_size_states_none():
    fam = Family(name="plain", parameters={}, generator=lambda rng: None, sized=lambda p: False)
    assert fam.shape({}) is None


class _LateRejectOnPair01(OnlineAlgorithm):
    """Lowest-index least loaded; late-rejects the earliest accepted job restricted to {0, 1}
    whenever the budget allows, so that pair goes bad and the game releases fewer jobs than its
    bound. Not registered."""

    name = "test-sizes-late-reject-01"
    problem = "load"
    model = "rejection"
    late_reject = True

    def __init__(self, m, **kw):
        super().__init__(m, **kw)
        self.load = np.zeros(self.m)
        self.mine: list[int] = []

    def on_arrival(self, job, view):
        i = int(job.eligible[np.argmin(self.load[job.eligible])])
        self.load[i] += job.size
        if job.eligible.tolist() == [0, 1]:
            self.mine.append(job.id)
        return i

    def after_arrival(self, view):
        if self.mine and view.budget_left >= 1:
            j = self.mine.pop(0)
            self.load[view.machine_of(j)] -= view.job(j).size
            return [j]
        return []


# (adversary, algorithm, eps, params, exact?); ll-fifo is a speed algorithm: eps = 0 is speed 1
ADVERSARY_CASES = [
    ("anr-tree", "greedy", None, {"m": 8}, True),
    ("anr-tree", "greedy", None, {"m": 16, "final_job": False}, True),
    ("anr-tree", "greedy", None, {"m": 1}, True),
    ("anr-flow", "ll-fifo", 0.0, {"m": 8, "T": 3}, True),
    ("anr-flow", "ll-fifo", 0.0, {"m": 8, "T": 2, "streams": True}, True),
    ("anr-flow", "mft-unit", 0.5, {"m": 16, "T": 2, "streams": True}, True),
    ("lb-a", "greedy", None, {"T": 4, "K": 3}, True),  # nothing rejected: every pair good
    ("lb-a", "lb-unit-reject", 0.25, {"T": 4}, False),  # K from eps
    ("lb-b", "greedy", None, {"K": 3, "g": 4}, True),
    ("lb-b", "greedy", None, {"K": 2, "g": 2, "n1": 3}, True),
    ("lb-b", "lb-general-reject", 0.25, {"K": 3, "g": 4}, False),
    ("lb-a", _LateRejectOnPair01, 0.5, {"T": 4, "K": 2}, False),  # a bad pair: 12 of at most 16 jobs
    ("lb-b", _LateRejectOnPair01, 0.5, {"K": 2, "g": 4}, False),  # a bad pair: 3 of at most 7 jobs
    ("lb-c", "ll-fifo", 0.0, {"K": 3, "g": 4}, True),
    ("lb-c", "ll-fifo", 0.0, {"instantiation": "weights", "K": 3, "g": 4, "T": 2}, True),
    ("pairing-streams", "ll-fifo", 0.0, {"m": 8, "T": 2}, True),
    ("pairing-streams", "ll-fifo", 0.0, {"m": 4, "T": 3, "horizon": 2}, True),
    ("pairing-streams", "ll-fifo", 0.0, {"m": 4, "T": 1, "horizon": 9}, True),
    ("section4", "ll-fifo", 0.0, {"horizon": 7}, True),
    ("section4", "ll-fifo", 0.0, {"horizon": 0, "m": 10}, True),
]


@pytest.mark.parametrize(("name", "algorithm", "eps", "params", "exact"), ADVERSARY_CASES)
def test_adversary_size_bounds_the_played_game(name, algorithm, eps, params, exact):
    cls = get_adversary(name)
    jobs, machines = cls.size(cls.resolve_params(params, eps=eps))
    res = schedbench.run_adversary(name, algorithm, eps=eps, adversary_params=params, solve=False)
    assert res.instance.m == machines
    assert res.instance.n <= jobs
    if exact:  # exact counts, and bounds reached by an algorithm that rejects nothing
        assert res.instance.n == jobs
    if algorithm is _LateRejectOnPair01:  # the bound is not reached
        assert res.instance.n < jobs


def test_adversary_guards_count_with_size():
    lb_a = get_adversary("lb-a")
    assert lb_a.size(lb_a.resolve_params({"T": 1, "K": 20})) == (2**20, 2**20)
    with pytest.raises(ParameterError, match=r"T·2\^K = 4194304 jobs, more than 2000000"):
        lb_a.resolve_params({"T": 4, "K": 20})
    with pytest.raises(ParameterError, match=r"more than 2\^40"):
        lb_a.resolve_params({"T": 1, "K": 41})
    anr_tree = get_adversary("anr-tree")
    with pytest.raises(ParameterError, match=rf"release {2**21 - 1 + 1} jobs"):
        anr_tree.resolve_params({"m": 2**21})
    streams = get_adversary("pairing-streams")
    n, _ = streams.size(streams.resolve_params({"m": 2**16, "T": 4}))
    assert n == 2**16 * (16 + 4)  # m·horizon with the default horizon K + T
    with pytest.raises(ParameterError, match="give more than 2000000 jobs"):
        streams.resolve_params({"m": 2**17, "T": 4})


def test_lb_a_size_waits_for_eps():
    lb_a = get_adversary("lb-a")
    assert lb_a.size(lb_a.resolve_params({"T": 4})) is None  # K derived from eps, not given
    assert lb_a.size(lb_a.resolve_params({"T": 4}, eps=0.25)) == (4 * 2**4, 2**4)


def test_an_adversary_without_size_states_none():
    class Plain(Adversary):
        name = "plain"

    assert Plain.size({}) is None


# small parameters every built-in accepts (required ones, and eps for derived ones)
SMALL_FAMILY = {
    "random-restricted": {"m": 4, "n": 5},
    "anr-tree": {"K": 2},
    "swf-trace": {"n": 10},
    "worst-found": {"case": "greedy"},
}
SMALL_ADVERSARY = {"anr-tree": {"m": 4}, "anr-flow": {"m": 4}}


def test_every_builtin_family_and_adversary_states_a_size():
    families = [name for name in family_names() if is_builtin("family", name)]
    adversaries = [name for name in adversary_names() if is_builtin("adversary", name)]
    assert {"random-restricted", "anr-tree", "swf-trace"} <= set(families)
    assert {"anr-flow", "anr-tree", "lb-a", "lb-b", "lb-c", "pairing-streams", "section4"} <= set(adversaries)
    for name in families:
        shape = get_family(name).shape(SMALL_FAMILY.get(name, {}))
        assert shape is not None, name
        assert len(shape) == 3 and all(isinstance(v, int) and v >= 1 for v in shape), (name, shape)
    for name in adversaries:
        cls = get_adversary(name)
        size = cls.size(cls.resolve_params(SMALL_ADVERSARY.get(name, {}), eps=0.25))
        assert size is not None, name
        assert len(size) == 2 and all(isinstance(v, int) and v >= 1 for v in size), (name, size)
