"""Worst-case search: the exact CP-SAT models rediscover and prove the ANR bound, every
model's claims match the real plug-in and the real offline solver, and the black-box search only
returns instances whose replay agrees, deterministically per seed."""

import math

import numpy as np
import re

import pytest

from schedbench.scheduling.model import Instance
from schedbench.scheduling.search import ReplayMismatch, WorstCase, search_worst, worst_case
from schedbench.scheduling.search.replay import check_claims, run_real


def _replays(wc: WorstCase) -> None:
    """Independent replay of a result: the real run and OPT are what it records."""
    rep = run_real(wc.algorithm, wc.instance, wc.eps, wc.params, wc.oracle, problem=wc.problem)
    assert rep.opt.status == "optimal"
    assert rep.objective == pytest.approx(wc.objective)
    assert rep.opt.value == pytest.approx(wc.opt)
    assert rep.rejected_frac_max_prefix == pytest.approx(wc.rejected_frac_max_prefix)


@pytest.mark.parametrize("m", [2, 4, 8])
def test_exact_greedy_proves_the_anr_bound(m):
    wc = worst_case("greedy", m=m, opt=1, time_limit=120)
    assert wc.proved and wc.status == "optimal"
    assert wc.objective == math.ceil(math.log2(m)) + 1
    assert wc.opt == 1 and wc.ratio == wc.objective
    assert wc.bound == pytest.approx(wc.value) and wc.value == wc.objective
    assert wc.replayed
    _replays(wc)


# one small case per modelled algorithm (and per objective): worst_case replays the instance
# through the plug-in and the solver and raises ReplayMismatch on any disagreement
SMALL = [
    ("greedy", dict(m=3, opt=2)),
    ("greedy", dict(m=3, n=5, opt=2, sizes=(1, 2))),
    ("greedy-cap", dict(m=4, opt=1, eps=0.5)),
    ("greedy-cap", dict(m=3, n=5, opt=2, eps=0.25, sizes=(1, 2), params={"kappa": 1.5})),
    ("lb-unit-reject", dict(m=4, opt=1, eps=0.25, objective="rejection")),
    ("lb-unit-reject", dict(m=4, opt=1, eps=0.25, objective="rejection", params={"guard": "on"})),
    ("lb-unit-reject", dict(m=3, opt=2, eps=0.5, params={"alpha_rule": "safe"})),
    ("drop-every-k", dict(m=4, opt=1, eps=0.5)),
    ("drop-every-k", dict(m=3, opt=2, eps=0.34, objective="rejection")),
    ("mft-unit", dict(m=2, opt=1, eps=0.5, release_window=2)),
    ("mft-unit", dict(m=3, opt=1, eps=0.5, release_window=2, objective="rejection")),
    ("mft-unit", dict(m=2, opt=2, eps=0.5, release_window=2, n=7)),
]


@pytest.mark.parametrize("algorithm,kw", SMALL, ids=[f"{a}-{i}" for i, (a, _) in enumerate(SMALL)])
def test_each_model_matches_its_plugin(algorithm, kw):
    wc = worst_case(algorithm, time_limit=60, **kw)
    assert wc.replayed and wc.status in ("optimal", "feasible")
    _replays(wc)
    if wc.proved:
        assert wc.bound == pytest.approx(wc.value)
    if wc.oracle is not None:  # algorithms given T* get the instance's exact OPT
        assert wc.opt == wc.oracle == kw["opt"]
    else:
        assert wc.opt <= kw["opt"]
    if wc.objective_kind == "rejection":
        assert wc.value == pytest.approx(wc.rejected_frac_max_prefix)
        assert wc.budget_violated == (wc.rejected_frac_max_prefix > wc.eps + 1e-9)


def test_known_small_worst_cases():
    # greedy, m = 6, OPT ≤ 2: a worst load of 6; here m = 3, OPT ≤ 2: 4, sizes {1,2}: 5
    assert worst_case("greedy", m=3, opt=2).objective == 4
    assert worst_case("greedy", m=3, n=5, opt=2, sizes=(1, 2)).objective == 5
    # mft-unit's max flow never exceeds Qcap = ⌈T/ε⌉, and the bound is reached
    wc = worst_case("mft-unit", m=2, opt=1, eps=0.5, release_window=2)
    assert wc.proved and wc.objective == 2


def test_mismatch_is_an_error():
    inst = Instance.from_lists(2, [0, 0], [1, 1], [[0, 1], [0]])
    rep = run_real("greedy", inst, None, {}, None)
    check_claims(rep, objective=2.0, opt_equals=1.0, machine=np.array([0, 0]))
    with pytest.raises(ReplayMismatch, match="objective"):
        check_claims(rep, objective=1.0)
    with pytest.raises(ReplayMismatch, match="decisions"):
        check_claims(rep, machine=np.array([1, 0]))
    with pytest.raises(ReplayMismatch, match="OPT"):
        check_claims(rep, opt_at_most=0.5)


def test_result_round_trip(tmp_path):
    wc = worst_case("greedy", m=4, opt=1)
    wc.save(tmp_path / "wc.json")
    back = WorstCase.load(tmp_path / "wc.json")
    assert back.to_dict() == wc.to_dict()


BLACKBOX = [
    ("greedy", dict(m=4)),
    ("lb-general-reject", dict(m=4, eps=0.25)),
    ("lb-unit-reject", dict(m=4, eps=0.25, objective="rejection")),
    ("mft-unit", dict(m=4, eps=0.5)),
    ("ll-fifo-drop", dict(m=4, eps=0.5)),
    ("edf", dict(m=2, eps=0.5)),
    ("wmft-B", dict(m=4, eps=0.25)),
    ("wmft-A", dict(m=3, eps=0.25)),
    ("gwmft", dict(m=3, eps=0.25)),
    ("gwmft", dict(m=3, eps=0.25, problem="stretch")),
    ("class-ll-srpt", dict(m=3, eps=0.25, problem="genwtd")),
]


@pytest.mark.parametrize("algorithm,kw", BLACKBOX, ids=[f"{a}-{kw.get('problem', '')}" for a, kw in BLACKBOX])
def test_blackbox_replays_and_is_deterministic(algorithm, kw):
    runs = [search_worst(algorithm, max_evals=60, budget_seconds=60, seed=7, **kw) for _ in range(2)]
    a, b = runs
    assert not a.proved and a.bound is None and a.replayed
    assert a.extra["evals"] == 60
    assert a.to_dict() | {"seconds": 0} == b.to_dict() | {"seconds": 0}
    _replays(a)
    # never worse than the hand-made seeds it started from
    key = "ratio" if a.objective_kind == "ratio" else "rejected_frac_max_prefix"
    assert all(a.value >= s[key] - 1e-9 for s in a.extra["seed_scores"].values())


def test_blackbox_seeded_from_exact_case():
    exact = worst_case("greedy", m=4, opt=1)
    wc = search_worst("greedy", m=4, seeds_from=[exact], max_evals=30, budget_seconds=60, seed=1)
    assert wc.ratio >= exact.ratio and not wc.extra["beats_seeds"]


def test_an_inconsistent_optimal_opt_is_caught():
    # an "optimal" OPT below the solver's own lower bound (seen from opt_makespan's warm-started
    # MILP on a 12-job instance found by the black-box search) must never score a candidate
    from schedbench.scheduling.offline.result import OptResult
    from schedbench.scheduling.search.replay import opt_inconsistency

    inst = Instance.from_lists(2, [0, 0, 0], [1, 1, 2], [[0, 1], [0, 1], [0, 1]])
    assert opt_inconsistency(inst, "load", OptResult(2.0, "optimal", 2.0, "x", 0.0)) is None
    assert "lower bound" in opt_inconsistency(inst, "load", OptResult(1.0, "optimal", 2.0, "x", 0.0))
    assert "trivial" in opt_inconsistency(inst, "load", OptResult(1.0, "optimal", 1.0, "x", 0.0))


@pytest.mark.parametrize(
    "func, kwargs, message",
    [
        ("worst_case", {"m": 2.5}, "worst_case: m must be an integer"),  # used to answer for m = 2
        ("worst_case", {"m": 400, "time_limit": 5}, "beyond the exact search's limit of 4096"),  # ran for minutes
        ("worst_case", {"m": 2, "time_limit": "10"}, "worst_case: time_limit"),
        ("worst_case", {"m": 2, "time_limit": float("nan")}, "worst_case: time_limit"),
        ("worst_case", {"m": 2, "seed": -1}, "worst_case: seed"),
        ("worst_case", {"m": 2, "sizes": []}, "worst_case: sizes"),
        ("worst_case", {"m": 2, "max_eligible": 3}, "worst_case: max_eligible"),
        ("search_worst", {"m": 4, "n": 0}, "search_worst: n must be an integer >= 1"),
        ("search_worst", {"m": 4, "max_evals": -1}, "search_worst: max_evals must be an integer >= 1"),
        ("search_worst", {"m": 4, "budget_seconds": float("nan")}, "search_worst: budget_seconds"),  # never stopped
        (
            "search_worst",
            {"m": 2**20, "max_evals": 2, "budget_seconds": 30},
            "search_worst: m must be an integer <= 4096",
        ),
        ("search_worst", {"m": 4, "seed": "abc"}, "search_worst: seed"),
        ("search_worst", {"m": 4, "params": ["ties"]}, "search_worst: params must be a dict"),
    ],
)
def test_search_arguments_are_checked_before_any_work(func, kwargs, message):
    import time

    import schedbench
    from schedbench.hall.params import ParameterError

    t0 = time.perf_counter()
    with pytest.raises(ParameterError, match=re.escape(message)):
        getattr(schedbench, func)("greedy", **kwargs)
    assert time.perf_counter() - t0 < 5  # refused up front, not after a model build or a search


def test_search_accepts_numpy_scalars():
    import numpy as np

    import schedbench

    res = schedbench.worst_case("greedy", m=np.int64(2), time_limit=np.float32(10.0))
    assert res.objective == 2.0 and res.opt == 1


@pytest.mark.parametrize(
    "algorithm, problem, moved",
    [
        ("wmft-B", None, {"w_flow"}),  # WtdMaxFlowTime: w on the flow and on the budget
        ("gwmft", None, {"w_flow", "w_reject"}),  # GenWtd: w on the flow, w^r on the budget
        ("class-ll-srpt", "genwtd", {"w_flow", "w_reject"}),
        ("gwmft", "stretch", set()),  # max stretch: no weights
        ("ll-fifo", None, set()),
    ],
)
def test_blackbox_scores_each_algorithm_on_its_problem_and_moves_its_weights(algorithm, problem, moved):
    """The search scores an algorithm on the problem it is run for (default: its first) against
    that problem's exact OPT, and moves exactly the weights that problem uses."""
    from schedbench.scheduling.registry import get_algorithm

    wc = search_worst(algorithm, m=3, eps=0.25, problem=problem, max_evals=120, budget_seconds=120, seed=3)
    assert wc.problem == (problem or get_algorithm(algorithm).solved_problems()[0])
    inst = wc.instance
    for field in ("w_flow", "w_reject"):
        values = getattr(inst, field)
        weights = set() if values is None else set(np.asarray(values).tolist())
        if field in moved:
            assert len(weights) > 1 and weights <= {1.0, 2.0, 4.0, 8.0, 16.0}, (field, weights)
        else:
            assert weights <= {1.0}, (field, weights)
    assert wc.value >= 1.0
    _replays(wc)


def test_weighted_result_round_trip(tmp_path):
    wc = search_worst("gwmft", m=3, eps=0.25, max_evals=40, budget_seconds=60, seed=2)
    wc.save(tmp_path / "wc.json")
    back = WorstCase.load(tmp_path / "wc.json")
    assert back.to_dict() == wc.to_dict()
    assert np.array_equal(back.instance.w_reject, wc.instance.w_reject)
    _replays(back)


@pytest.mark.parametrize("algorithm,kw", SMALL, ids=[f"{a}-{i}" for i, (a, _) in enumerate(SMALL)])
def test_symmetry_breaking_and_hints_never_change_a_proved_value(algorithm, kw):
    """The speed-ups keep the optimum: the same proved value with them off and on (one worker,
    the same seed), and what is found with symmetry breaking has its used machines first."""
    plain = worst_case(algorithm, time_limit=60, workers=1, symmetry=False, hint=False, **kw)
    fast = worst_case(algorithm, time_limit=60, workers=1, **kw)
    assert plain.proved and fast.proved
    assert fast.value == pytest.approx(plain.value)
    assert fast.extra["symmetry"] and not plain.extra["symmetry"] and plain.extra["hint"] is None
    used = sorted({i for j in range(fast.instance.n) for i in fast.instance.eligible(j).tolist()})
    assert used == list(range(len(used)))


def test_the_symmetry_breaking_would_be_caught_if_it_cut_the_optimum(monkeypatch):
    """A planted invalid 'symmetry' (machine 0 never used) lowers the proved worst case of
    greedy below the ANR bound: the comparison above is able to fail."""
    from schedbench.scheduling.search.models._core import Builder

    def invalid(self):
        for j in self.N:
            self.md.add(self.x[j][0] == 0)

    monkeypatch.setattr(Builder, "break_symmetry", invalid)
    cut = worst_case("greedy", m=4, opt=1, time_limit=60, workers=1, hint=False)
    assert cut.proved and cut.objective < worst_case("greedy", m=4, opt=1, symmetry=False, hint=False).objective


def test_the_hint_is_the_adversary_instance_inside_the_space():
    wc = worst_case("greedy", m=8, opt=1, time_limit=120, workers=1)
    assert wc.extra["hint"] == {"label": "anr-tree {'m': 8}", "objective": 4.0}
    # outside the space (n too small for the tree), no hint
    assert worst_case("greedy", m=8, n=3, opt=1, time_limit=60, workers=1).extra["hint"] is None
    # m = 6: the adversaries of m = 4 (the largest power of two below) fit
    assert worst_case("greedy", m=6, opt=1, time_limit=120, workers=1).extra["hint"]["label"] == "anr-tree {'m': 4}"


def test_an_exact_model_refuses_a_setting_it_does_not_follow():
    from schedbench.hall.params import ParameterError
    from schedbench.scheduling.search.models import MODELS

    for model in MODELS.values():
        model.check(0.5, {})  # the defaults are what the models follow
        for key, (value, meaning) in model.follows.items():
            model.check(0.5, {key: value})
            with pytest.raises(ParameterError, match=f"exact model of '{model.algorithm}' follows"):
                model.check(0.5, {key: f"not-{value}"})
    assert set(MODELS["greedy"].follows) == {"ties"} and set(MODELS["mft-unit"].follows) == {"oracle"}
    assert not MODELS["drop-every-k"].follows
