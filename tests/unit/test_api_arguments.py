"""The Python API checks its arguments before any work: wrong types and ranges are one
ParameterError naming the function and the argument (docs/hostile-input.md), numpy scalars
count as the numbers they are."""

from __future__ import annotations

import numpy as np
import pytest

import schedbench
from schedbench.hall.params import ParameterError

INST = schedbench.Instance.from_lists(2, [0, 0, 0], [1, 1, 1], [[0], [0, 1], [1]])


@pytest.mark.parametrize(
    "func, args, kwargs, message",
    [
        ("run", (123, INST), {}, "run: algorithm must be a registered name or an OnlineAlgorithm subclass"),
        ("run", ("greedy", "inst.npz"), {}, "run: instance must be a schedbench Instance, got str"),
        ("run", ("greedy", INST), {"seed": "abc"}, "run: seed must be an integer >= 0"),
        ("run", ("greedy", INST), {"seed": -1}, "run: seed must be an integer >= 0"),
        ("run", ("lb-unit-reject", INST), {"eps": 0.25, "time_limit": "10"}, "run: time_limit"),
        ("run", ("lb-unit-reject", INST), {"eps": 0.25, "time_limit": float("inf")}, "run: time_limit"),
        ("run_adversary", (5, "greedy"), {}, "run_adversary: adversary must be a registered name"),
        ("run_adversary", ("anr-tree", "greedy"), {"adversary_params": ["m", 8]}, "adversary_params must be a dict"),
        ("run_adversary", ("anr-tree", "greedy"), {"algorithm_params": [1]}, "algorithm_params must be a dict"),
        ("solve_opt", (None, "load"), {}, "solve_opt: inst must be a schedbench Instance, got NoneType"),
        ("solve_opt", (INST, "load"), {"time_limit": "10"}, "solve_opt: time_limit"),
        ("solve_opt", (INST, "load"), {"seed": 1.5}, "solve_opt: seed"),
    ],
)
def test_wrong_arguments_are_named(func, args, kwargs, message):
    with pytest.raises(ParameterError, match=message):
        getattr(schedbench, func)(*args, **kwargs)


def test_numpy_scalars_are_the_numbers_they_are():
    # np.float32(0.25) used to be refused by a message that contradicted itself
    # ("eps must be a number in (0, 1), got np.float32(0.25)")
    a = schedbench.run("lb-unit-reject", INST, eps=np.float32(0.25), seed=np.int64(3))
    b = schedbench.run("lb-unit-reject", INST, eps=0.25, seed=3)
    assert a.eps == b.eps == 0.25 and a.objective == b.objective and a.valid
    assert schedbench.solve_opt(INST, "load", time_limit=np.float64(5.0), seed=np.int32(1)).value == 2.0
