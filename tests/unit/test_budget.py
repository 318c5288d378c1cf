"""The ε rejection budget has one owner (scheduling/budget.py) and the speed one decider
(scheduling/speed.py): the compiled twin and the CP-SAT integer form decide exactly as the
Python rule, budgets count jobs or weights per the problem table, k = ε·n is within the budget,
and no algorithm, kernel or exact model computes the budget itself."""

import math
import pathlib
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import schedbench
from schedbench.scheduling import budget
from schedbench.scheduling.budget import BUDGET_TOL, Budget, allowance, allows, allows_nb, drop_period
from schedbench.scheduling.model import Instance
from schedbench.scheduling.problems import PROBLEMS, get_problem
from schedbench.scheduling.registry import algorithm_names, get_algorithm
from schedbench.scheduling.speed import machine_speed

SRC = pathlib.Path(schedbench.__file__).parent / "scheduling"
EPS = st.floats(min_value=1e-6, max_value=1.0 - 1e-9, allow_nan=False)
COUNT = st.integers(min_value=0, max_value=10**7)


@given(rejected=COUNT, arrived=COUNT, eps=EPS)
def test_compiled_twin_equals_the_rule_on_counts(rejected, arrived, eps):
    expected = allows(rejected, 1, arrived, eps)
    assert allows_nb(rejected, 1, arrived, eps) == expected
    b = Budget(eps, arrived=arrived, rejected=rejected)
    assert b.allows() == expected
    # the integer form of the exact models: r + 1 <= allowance(eps, a)
    assert (rejected + 1 <= allowance(eps, arrived)) == expected


WEIGHT = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False)


@given(ws=st.lists(st.tuples(WEIGHT, st.booleans()), min_size=1, max_size=40), w=WEIGHT, eps=EPS)
def test_compiled_twin_equals_the_rule_on_float_weights(ws, w, eps):
    b = Budget(eps, get_problem("wtdmaxflow"), 0.0, 0.0)
    for weight, reject in ws:
        b.arrive(weight)
        if reject:
            b.reject(weight)
        expected = allows(b.rejected, w, b.arrived, eps)
        assert allows_nb(b.rejected, w, b.arrived, eps) == expected
        assert b.allows(w) == expected
        assert b.left == eps * b.arrived - b.rejected


def test_the_rule_reads_rejected_plus_w_against_eps_times_arrived():
    assert allows(0, 1, 4, 0.25) and not allows(1, 1, 4, 0.25)
    assert allows(1.5, 0.5, 8.0, 0.25) and not allows(1.5, 0.6, 8.0, 0.25)
    assert BUDGET_TOL == 1e-9
    assert allows(0, 1, 1, 1.0 - 1e-10)  # within the tolerance
    assert not allows(0, 1, 1, 1.0 - 1e-8)


@pytest.mark.parametrize("eps, n", [(0.29, 100), (0.58, 50), (0.25, 8), (0.1, 30), (0.7, 10), (0.125, 64)])
def test_boundary_k_equal_eps_n_is_within_the_budget(eps, n):
    k = round(eps * n)
    assert math.isclose(k, eps * n)  # ε·n is an integer in exact arithmetic (float may be below)
    assert allows(k - 1, 1, n, eps) and allows_nb(k - 1, 1, n, eps)
    assert not allows(k, 1, n, eps) and not allows_nb(k, 1, n, eps)
    assert allowance(eps, n) == k


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("eps, n", [(0.29, 100), (0.25, 8), (0.58, 50)])
def test_greedy_cap_rejects_up_to_exactly_eps_n(eps, n, fast):
    # one machine, every job over the cap κ·T = 0.5: each is rejected iff the budget allows it
    inst = Instance.from_lists(1, [0] * n, [1] * n, [[0]] * n)
    res = schedbench.run("greedy-cap", inst, eps=eps, opt=1.0, kappa=0.5, fast=fast)
    rejected = res.outcome.rejected.tolist()
    expected, count = [], 0
    for a in range(1, n + 1):
        ok = count + 1 <= math.floor(eps * a + 1e-9)
        expected.append(ok)
        count += ok
    assert rejected == expected
    assert sum(rejected) == round(eps * n)
    assert res.valid


def test_count_and_weight_budgets_follow_the_problem_table():
    class Job:
        w_flow, w_reject = 3.0, 5.0

    assert Budget(0.5).weight(Job) == 1
    for name, problem in PROBLEMS.items():
        w = Budget(0.5, problem).weight(Job)
        assert w == {"count": 1.0, "w_flow": 3.0, "w_reject": 5.0}[problem.budget_weight], name
    # by weight: a heavy job may be refused where a count budget would allow it
    b = Budget(0.5, get_problem("genwtd"), 0.0, 0.0)
    for _ in range(3):
        b.arrive(1.0)
    assert b.allows(1.0) and not b.allows(2.0)
    c = Budget(0.5)
    for _ in range(3):
        c.arrive()
    assert c.allows() and c.arrived == 3 and isinstance(c.arrived, int)


def test_drop_period_keeps_the_landed_rounding():
    assert [drop_period(e) for e in (0.5, 0.25, 0.125, 0.2, 0.1, 0.3, 0.9, 1 / 3)] == [2, 4, 8, 5, 10, 4, 2, 3]
    eps = 1.0 / (10 + 5e-10)
    assert drop_period(eps) == 11  # ⌈1/ε − 1e-12⌉; a 1e-9 slack would give 10 (see budget.py)


def test_engine_speed_is_decided_in_speed_py():
    for name in algorithm_names():
        cls = get_algorithm(name)
        for eps in cls.eps_values([0.5, 0.25]):
            expected = 1.0 + eps if cls.model == "speed" else 1.0
            assert machine_speed(cls.model, eps) == cls.speed_for(eps) == expected
    engine = (SRC / "engine.py").read_text()
    assert "speed_for" not in engine and "machine_speed(" in engine


def _code(path: pathlib.Path) -> str:
    """The file without comments and string literals (docstrings), to grep its code only."""
    import io
    import tokenize

    toks = tokenize.generate_tokens(io.StringIO(path.read_text()).readline)
    return " ".join(t.string for t in toks if t.type not in (tokenize.COMMENT, tokenize.STRING))


OWN_BUDGET = [
    re.compile(r"\beps\s*\*"),  # ε·arrived computed here
    re.compile(r"\*\s*(self\s*\.\s*)?eps\b"),
    re.compile(r"\brejected\s*\+\s*1\s*[<>]"),  # a budget test of its own
    re.compile(r"1\.0\s*/\s*(self\s*\.\s*)?eps\s*-"),  # the drop period ⌈1/ε⌉ of its own
]


def _modules():
    yield from sorted((SRC / "algorithms").glob("*.py"))
    yield from sorted((SRC / "search" / "models").glob("*.py"))


@pytest.mark.parametrize("path", list(_modules()), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_algorithm_kernel_or_exact_model_computes_the_budget_itself(path):
    code = _code(path)
    for pattern in OWN_BUDGET:
        assert not pattern.search(code), f"{path.name} computes the budget itself ({pattern.pattern}): use budget.py"


#: budget.py's names that are the rule itself (its other names are integers derived from ε)
RULE = {"Budget", "allows", "allows_nb", "allowance", "left", "drop_period"}

#: Rejection-model algorithms whose rule rejects by a cap and never asks the budget (the
#: validator reports any overrun); every other one must take its budget from budget.py.
CAP_ONLY = {"ll-fifo-drop", "mft-unit", "wmft-A", "wmft-B", "gwmft", "class-ll-srpt"}


@pytest.mark.parametrize("name", [n for n in algorithm_names() if get_algorithm(n).model == "rejection"])
def test_every_rejecting_algorithm_uses_the_owner(name):
    import inspect

    # the class's own module, or the module of a built-in rule it extends (edf-evict: edf-reject's)
    modules = {inspect.getmodule(c) for c in get_algorithm(name).__mro__ if c.__module__.startswith("schedbench.")}
    codes = [_code(pathlib.Path(module.__file__)) for module in modules]
    imported = {
        name
        for code in codes
        for names in re.findall(r"schedbench ?\. ?scheduling ?\. ?budget import ([\w ,(\n]*)", code)
        for name in re.findall(r"\w+", names)
    }
    uses = bool(imported & RULE)  # the rule, not only the ε-derived integers (ceil_log2, ceil_over_eps)
    assert uses != (name in CAP_ONLY), (
        f"{name}: {'takes' if uses else 'does not take'} its budget from budget.py; "
        f"{'remove it from' if uses else 'use budget.py, or list it in'} CAP_ONLY"
    )


def test_kernels_use_the_compiled_twin():
    # the budget guard of greedy_cap_kernel, lb_general_kernel (2) and lb_unit_online_kernel:
    # guarded_reject (algorithms/_guard.py), on the twin; lb_unit_online_kernel's doubling test:
    # the twin itself, in its rule's file
    files = ("_guard.py", "greedy_cap.py", "lb_general_reject.py", "lb_unit_reject.py")
    codes = {f: _code(SRC / "algorithms" / f) for f in files}
    assert {f: code.count("allows_nb (") for f, code in codes.items()} == {
        "_guard.py": 1,
        "greedy_cap.py": 0,
        "lb_general_reject.py": 0,
        "lb_unit_reject.py": 1,
    }
    assert {f: code.count("guarded_reject (") for f, code in codes.items()} == {
        "_guard.py": 1,  # its definition
        "greedy_cap.py": 1,
        "lb_general_reject.py": 2,
        "lb_unit_reject.py": 1,
    }


def test_guarded_reject_counts_the_outcome():
    from schedbench.scheduling.algorithms._guard import guarded_reject

    # (guard, rejected, fires, pos, eps): pos + 1 arrivals, one more rejection of weight 1
    assert guarded_reject(False, 5, 2, 9, 0.1) == (True, 6, 2)  # no guard: past the budget all the same
    assert guarded_reject(True, 0, 2, 9, 0.1) == (True, 1, 2)  # 1 <= 0.1·10
    assert guarded_reject(True, 1, 2, 9, 0.1) == (False, 1, 3)  # 2 > 0.1·10: kept, a guard fire


def test_validator_keeps_its_own_check():
    # an independent check: the validator must not ask the rule it checks
    assert "schedbench.scheduling.budget" not in _code(SRC / "validate.py").replace(" . ", ".")


def test_importing_the_engine_does_not_import_numba():
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, schedbench.scheduling.engine, schedbench.scheduling.budget;print('numba' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "False"
    assert budget.allows_nb is allows_nb


@given(
    st.lists(st.sampled_from([0.5, 1.0, 2.0, 4.0]), min_size=1, max_size=30),
    st.sampled_from([0.1, 0.25, 0.5]),
)
def test_take_rejects_exactly_when_the_rule_allows(weights, eps):
    """``Budget.take`` against the rule itself: a rejection is taken iff ``allows`` holds before
    it, the sums move only then, and the prefix budget is never exceeded."""
    budget, rejected, arrived = Budget(eps), 0.0, 0.0
    for w in weights:
        budget.arrive(w)
        arrived += w
        expect = allows(rejected, w, arrived, eps)
        assert budget.take(w) == expect
        rejected += w if expect else 0.0
        assert budget.rejected == rejected and rejected <= eps * arrived + BUDGET_TOL
