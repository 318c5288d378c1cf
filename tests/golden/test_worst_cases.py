"""Golden worst cases: instances found by the worst-case search, each stored with its
certificate (``proved`` by CP-SAT, or best found with the solver's ``bound``; black-box results
have no bound) under ``tests/golden/worst_cases/``. The test replays every stored instance through
the real plug-in and the real offline solver: the algorithm's objective, its worst prefix
rejection fraction and OPT must be what the file records.

Regenerate (slow: minutes) with ``python tests/golden/test_worst_cases.py --update [name ...]``
and say so in the commit."""

import math
import sys
from pathlib import Path

import pytest

from schedbench.scheduling.search import WorstCase, replay_worst_case, search_worst, worst_case

DIR = Path(__file__).with_name("worst_cases")

#: name → (function, kwargs) producing the stored result
CASES = {
    "greedy-anr-m2": (worst_case, dict(algorithm="greedy", m=2, opt=1)),
    "greedy-anr-m4": (worst_case, dict(algorithm="greedy", m=4, opt=1)),
    "greedy-anr-m8": (worst_case, dict(algorithm="greedy", m=8, opt=1)),
    "greedy-m3-opt2": (worst_case, dict(algorithm="greedy", m=3, opt=2)),
    "greedy-m3-opt2-sizes12": (worst_case, dict(algorithm="greedy", m=3, n=5, opt=2, sizes=(1, 2))),
    "greedy-m6-opt2": (worst_case, dict(algorithm="greedy", m=6, opt=2, time_limit=240)),
    "greedy-cap-m8-eps0.25": (worst_case, dict(algorithm="greedy-cap", m=8, opt=1, eps=0.25)),
    "lb-unit-reject-rejection-m8-eps0.25": (
        worst_case,
        dict(algorithm="lb-unit-reject", m=8, opt=1, eps=0.25, objective="rejection"),
    ),
    "lb-unit-reject-rejection-m8-eps0.125": (
        worst_case,
        dict(algorithm="lb-unit-reject", m=8, opt=1, eps=0.125, objective="rejection"),
    ),
    "drop-every-k-m8-eps0.25": (worst_case, dict(algorithm="drop-every-k", m=8, opt=1, eps=0.25, time_limit=300)),
    "mft-unit-rejection-m3-eps0.5": (
        worst_case,
        dict(algorithm="mft-unit", m=3, opt=1, eps=0.5, release_window=3, objective="rejection"),
    ),
    "mft-unit-m3-opt2-eps0.5": (worst_case, dict(algorithm="mft-unit", m=3, opt=2, eps=0.5, release_window=2, n=8)),
    "bb-greedy-m16": (search_worst, dict(algorithm="greedy", m=16, max_evals=3000, budget_seconds=600, seed=0)),
    "bb-lb-general-reject-m8-eps0.25": (
        search_worst,
        dict(algorithm="lb-general-reject", m=8, eps=0.25, max_evals=3000, budget_seconds=600, seed=0),
    ),
    "bb-wmft-B-m4-eps0.25": (
        search_worst,
        dict(algorithm="wmft-B", m=4, eps=0.25, max_evals=3000, budget_seconds=600, seed=0, problem="maxflow"),
    ),
}


def _stored() -> dict[str, Path]:
    return {p.stem: p for p in sorted(DIR.glob("*.json"))}


def test_every_case_is_stored():
    assert set(_stored()) == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_worst_case_replays(name):
    wc = WorstCase.load(DIR / f"{name}.json")
    replay_worst_case(wc)  # raises ReplayMismatch if plug-in or solver disagree
    if wc.method == "cp-sat":
        assert wc.bound is not None and wc.bound >= wc.value - 1e-9
        assert wc.proved == (wc.status == "optimal")
        if wc.proved:
            assert math.isclose(wc.bound, wc.value, abs_tol=1e-9)
        if wc.oracle is not None:
            assert wc.opt == wc.oracle == wc.space["opt"]
    else:
        assert wc.bound is None and not wc.proved
    if wc.algorithm == "greedy" and wc.space.get("opt") == 1 and wc.method == "cp-sat":
        assert wc.proved and wc.objective == math.ceil(math.log2(wc.m)) + 1  # the ANR bound


def update(names) -> None:
    DIR.mkdir(exist_ok=True)
    for name in names or sorted(CASES):
        fn, kw = CASES[name]
        wc = fn(**kw)
        wc.save(DIR / f"{name}.json")
        print(f"{name}: {wc.summary()}", flush=True)


if __name__ == "__main__" and "--update" in sys.argv:
    update([a for a in sys.argv[1:] if a != "--update"])
