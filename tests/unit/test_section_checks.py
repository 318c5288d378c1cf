"""The checks the scheduling wing's config sections share (``stage/section_checks.py``): one rule
for unknown keys, one for an ε and one for a list of ε values, each error naming the key path."""

from __future__ import annotations

import math

import pytest

from schedbench.scheduling.stage.section_checks import check_eps_values, check_known_keys, is_eps


class _Refused(ValueError):
    pass


def test_known_keys_pass_and_the_first_unknown_one_is_named_with_the_keys():
    check_known_keys({"a": 1}, ("a", "b"), "sec", _Refused)
    with pytest.raises(_Refused, match=r"^sec\.c: unknown key \(keys: a, b\)$"):
        check_known_keys({"d": 1, "c": 2, "a": 3}, ("a", "b"), "sec", _Refused)


@pytest.mark.parametrize("value", [0.5, 1e-9, 0.999])
def test_an_eps_is_a_finite_number_in_the_open_unit_interval(value):
    assert is_eps(value)


@pytest.mark.parametrize("value", [0, 1, 1.0, -0.5, True, False, math.nan, math.inf, "0.5", None])
def test_anything_else_is_not_an_eps(value):
    assert not is_eps(value)


def test_eps_values_refuse_a_non_eps_then_a_repeat():
    check_eps_values([0.5, 0.25], "sec.eps", _Refused)
    with pytest.raises(_Refused, match=r"^sec\.eps: every ε must be a number in \(0, 1\), got True$"):
        check_eps_values([0.5, True, 0.5], "sec.eps", _Refused)
    with pytest.raises(_Refused, match=r"^sec\.eps: a value is listed twice: \[0\.5, 0\.25, 0\.5\]$"):
        check_eps_values([0.5, 0.25, 0.5], "sec.eps", _Refused)
