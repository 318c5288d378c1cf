"""The ε-derived integers and the power-of-two rounding have one owner each
(``budget.ceil_log2``, ``ceil_log2_signed``, ``floor_log2`` and ``budget.ceil_over_eps``,
``_oracles.pow2_at_least``): checked against exact integer arithmetic."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import pytest

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.scheduling.algorithms._oracles import pow2_at_least, pow2_at_least_nb
from schedbench.scheduling.budget import ceil_log2, ceil_log2_signed, ceil_over_eps, floor_log2


def _exact_pow2_at_least(x: float) -> Fraction:
    """The smallest 2^k (k any integer) ≥ x, in exact rationals."""
    q, p = Fraction(x), Fraction(1)
    while p < q:
        p *= 2
    while p / 2 >= q:
        p /= 2
    return p


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False))
def test_pow2_at_least_is_exact_for_scalars_arrays_and_the_compiled_twin(x):
    want = float(_exact_pow2_at_least(x))
    assert pow2_at_least(x) == want
    assert pow2_at_least_nb(x) == want
    assert pow2_at_least(np.array([x, x]))[1] == want


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=2**40), st.integers(min_value=1, max_value=2**20))
def test_ceil_log2_of_a_ratio_is_the_exponent_of_the_power_of_two_above_it(a, b):
    q = Fraction(a, b)
    k = 0
    while Fraction(2) ** k < q:
        k += 1
    near = any(abs(float(q) / 2.0**j - 1.0) < 1e-11 for j in (k - 1, k))  # inside the slack
    if not near or q == Fraction(2) ** k:
        assert ceil_log2(float(q)) == k


def test_ceil_log2_of_inverse_powers_of_two_and_the_eps_of_the_config():
    for k in range(0, 40):
        assert ceil_log2(1.0 / 2.0**-k) == k
    assert [ceil_log2(1.0 / e) for e in (1 / 3, 1 / 5, 0.3, 0.1)] == [2, 3, 2, 4]


def test_ceil_over_eps_is_the_integer_a_rounded_ratio_lands_on():
    assert 21 / 0.7 > 30 and ceil_over_eps(21, 0.7) == 30  # 30.000000000000004 by rounding
    assert [ceil_over_eps(x, 0.5) for x in (7, 7.5, 7.6)] == [14, 15, 16]
    for k in range(1, 50):
        assert ceil_over_eps(k, 1 / 3) == 3 * k


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=1e-6, max_value=1e6, allow_nan=False))
def test_ceil_log2_signed_is_wmft_b_density_shift_negative_below_one(D):
    """The landed shift ⌈log₂ D − 1e-12⌉, unclamped: D < 1 gives a shift ≤ 0, D = 2^-k gives −k."""
    assert ceil_log2_signed(D) == math.ceil(math.log2(D) - 1e-12)
    assert ceil_log2(D) == max(0, ceil_log2_signed(D))


def test_ceil_log2_signed_of_powers_of_two_and_fractions_of_one():
    assert [ceil_log2_signed(2.0**k) for k in range(-5, 6)] == list(range(-5, 6))
    assert [ceil_log2_signed(x) for x in (0.3, 0.75, 1.0, 3.0)] == [-1, 0, 0, 2]


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=2**80))
def test_floor_log2_is_the_exponent_of_the_power_of_two_at_or_below(k):
    e = floor_log2(k)
    assert 2**e <= k < 2 ** (e + 1)


def test_floor_log2_refuses_what_has_no_logarithm():
    with pytest.raises(ValueError):
        floor_log2(0)


def test_the_integer_logarithm_is_written_once():
    """No ``bit_length() - 1`` (⌊log₂⌋ by hand) in the scheduling package outside its owner."""
    pkg = Path(__file__).resolve().parents[2] / "src" / "schedbench" / "scheduling"
    by_hand = re.compile(r"bit_length\(\)\s*-\s*1")
    hits = [
        str(p.relative_to(pkg)) for p in pkg.rglob("*.py") if p.name != "budget.py" and by_hand.search(p.read_text())
    ]
    assert not hits, hits
