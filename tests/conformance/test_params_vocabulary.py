"""The one parameter vocabulary (:mod:`schedbench.hall.params`): each refusal rule gives one error
naming the owner and the parameter, derived defaults are computed from the other values and the
context, and every plug-in of every kind declares its parameters with it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from schedbench.hall.params import Applies, Derived, Param, ParameterError, check_applies, check_value, resolve
from schedbench.hall import arguments
from schedbench.scheduling.registry import (
    adversary_names,
    algorithm_names,
    family_names,
    get_adversary,
    get_algorithm,
    get_family,
)

TABLE = {
    "m": Param(doc="machines", type=int, min=1, required=True),
    "rate": Param(1.0, doc="rate", type=float, min=0, min_open=True, max=2),
    "mode": Param("a", ("a", "b"), "mode", type=str),
    "flag": Param(True, doc="a flag", type=bool),
    "d": Param(
        doc="sample size", type=int, min=1, derive=Derived(lambda v: max(1, math.ceil(math.log2(v["m"]))), "⌈log₂ m⌉")
    ),
    "K": Param(
        doc="rounds",
        type=int,
        min=1,
        derive=Derived(lambda v: math.ceil(math.log2(1 / v["eps"])) + 2, "⌈log₂(1/ε)⌉ + 2", needs=("eps",)),
    ),
}


def run(given, **context):
    return resolve(TABLE, given, "thing 'x'", context=context)


@pytest.mark.parametrize(
    "given, message",
    [
        (
            {"m": 4, "mm": 1},
            "thing 'x' has no parameter 'mm'; did you mean 'm'? its parameters: K, d, flag, m, mode, rate",
        ),
        ({}, "thing 'x': parameter 'm' is required"),
        ({"m": None}, "thing 'x': parameter 'm' is required"),
        ({"m": True}, "thing 'x': parameter 'm' must be an integer, got True"),  # a bool is not an int
        ({"m": 2.5}, "thing 'x': parameter 'm' must be an integer >= 1, got 2.5"),
        ({"m": 0}, "thing 'x': parameter 'm' must be an integer >= 1, got 0"),
        ({"m": 4, "rate": math.nan}, "parameter 'rate' must be a finite number, got nan"),
        ({"m": 4, "rate": math.inf}, "parameter 'rate' must be a finite number, got inf"),
        ({"m": 4, "rate": False}, "parameter 'rate' must be a finite number, got False"),
        ({"m": 4, "rate": 0.0}, "parameter 'rate' must be > 0, got 0.0"),
        ({"m": 4, "rate": 3}, "parameter 'rate' must be <= 2, got 3"),
        ({"m": 4, "mode": "c"}, "parameter 'mode' must be one of ['a', 'b'], got 'c'"),
        ({"m": 4, "flag": 1}, "parameter 'flag' must be True or False, got 1"),
        ({"m": 4, "d": 0}, "parameter 'd' must be an integer >= 1, got 0"),
    ],
)
def test_each_refusal_is_one_error_naming_the_parameter(given, message):
    with pytest.raises(ParameterError) as info:
        run(given, eps=0.25)
    assert str(info.value).startswith("thing 'x'") and message in str(info.value)


def test_values_are_normalised_and_defaults_derived():
    out = run({"m": np.int64(8), "rate": 2}, eps=0.25)
    assert out == {"m": 8, "rate": 2.0, "mode": "a", "flag": True, "d": 3, "K": 4}
    assert type(out["m"]) is int and type(out["rate"]) is float
    assert run({"m": 8, "d": 5, "K": "auto"}, eps=0.1)["d"] == 5 and run({"m": 8, "K": "auto"}, eps=0.1)["K"] == 6
    assert run({"m": 8})["K"] is None  # needs ε, not known yet: derived later
    assert TABLE["d"].default_text() == "default: ⌈log₂ m⌉" and TABLE["m"].default_text() == "required"
    assert TABLE["rate"].range_text() == "float in (0, 2]" and TABLE["mode"].default_text() == "default: 'a'"


def test_spellings_keep_each_wing_s_wording():
    p = Param(type=int, min=1, required=True)
    with pytest.raises(ParameterError, match=r"^family 'f': parameter 'n' must be >= 1, got 0$"):
        resolve({"n": p}, {"n": 0}, "family 'f'", spelling="python")
    with pytest.raises(ParameterError, match=r"^family 'f': parameter 'n' must be int, got 1.5$"):
        resolve({"n": p}, {"n": 1.5}, "family 'f'", spelling="python")
    with pytest.raises(ValueError, match=r"^simulate_loss: d must be an integer >= 1, got 0$"):
        check_value("simulate_loss", "d", Param(type=int, min=1, nullable=False), 0)
    with pytest.raises(ValueError, match=r"^f: λ must be > 0, got -1.0$"):
        arguments.real("f", "λ", -1.0, low=0.0, low_open=True)
    assert arguments.integer("f", "n", np.float64(3.0), low=1, integral_float=True) == 3


def test_untyped_algorithm_parameters_keep_their_checks():
    """Algorithms declare ``Param(default, choices, doc)``: None passes unless the choices leave
    it out; choices are checked as before."""
    p = Param("index", ("index", "random"), "ties")
    with pytest.raises(
        ParameterError, match=r"^algorithm 'g': parameter 'ties' must be one of \['index', 'random'\], got None$"
    ):
        resolve({"ties": p}, {"ties": None}, "algorithm 'g'")
    assert resolve({"alpha": Param(None, None, "α")}, {}, "algorithm 'g'") == {"alpha": None}


def test_every_plugin_declares_its_parameters_with_the_one_vocabulary():
    tables = (
        [get_algorithm(n).parameters for n in algorithm_names()]
        + [get_adversary(n).parameters for n in adversary_names()]
        + [get_family(n).parameters for n in family_names()]
    )
    for table in tables:
        assert all(isinstance(p, Param) and p.doc for p in table.values())


def test_a_parameter_that_does_not_apply_is_an_error_only_when_given():
    table = {
        "policy": Param("a", ("a", "b"), "policy", type=str),
        "k": Param(None, doc="k", type=int, applies=Applies("policy", frozenset({"b"}), "only 'b' reads k")),
        "tie": Param("x", ("x", "y"), "tie", applies=Applies("policy", frozenset({"a"}), "only 'a' has ties")),
    }
    check_applies("f", table, {"policy": "a", "k": None, "tie": "y"})  # defaults anywhere, values where read
    check_applies("f", table, {"policy": "b", "k": 3, "tie": "x"})
    with pytest.raises(
        ParameterError, match=r"^f: parameter 'k' does not apply to policy 'a' \(only 'b' reads k\); got k=3$"
    ):
        check_applies("f", table, {"policy": "a", "k": 3, "tie": "x"})
    with pytest.raises(ValueError, match=r"parameter 'tie' does not apply to policy 'b'"):
        check_applies("f", table, {"policy": "b", "k": None, "tie": "y"}, error=ValueError)


def test_bipartite_policy_parameters_are_declared_with_the_vocabulary():
    import inspect

    from schedbench.bipartite.simulate import POLICIES, POLICY_PARAMETERS, simulate_bipartite

    signature = inspect.signature(simulate_bipartite).parameters
    for name, param in POLICY_PARAMETERS.items():
        assert isinstance(param, Param) and param.applies is not None and param.applies.by == "policy"
        assert param.applies.values <= set(POLICIES)
        assert signature[name].default == param.default  # the table's default is the API's
