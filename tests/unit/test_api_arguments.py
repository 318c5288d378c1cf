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
        ("run", ("greedy", INST), {"work_limit": -1}, "run: work_limit"),
        ("run", ("greedy", INST), {"solve": "yes"}, "run: solve must be True or False"),
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


def test_numpy_eps_is_its_number_for_run_adversary_too():
    a = schedbench.run_adversary("lb-a", "lb-unit-reject", eps=np.float32(0.25), adversary_params={"K": 2, "T": 2})
    b = schedbench.run_adversary("lb-a", "lb-unit-reject", eps=0.25, adversary_params={"K": 2, "T": 2})
    assert type(a.eps) is float and a.eps == b.eps == 0.25 and a.objective == b.objective
    speed = schedbench.run("ll-fifo", INST, eps=np.float64(0.5))
    assert type(speed.eps) is float and speed.eps == 0.5


@pytest.mark.parametrize(
    "eps",
    [
        float("nan"),
        np.float32("nan"),
        float("inf"),
        np.float64("-inf"),
        0,
        1,
        1.0,
        np.int64(1),
        "0.25",
        "abc",
        True,
        np.bool_(True),
        None,
        [0.25],
        np.array([0.25]),
    ],
    ids=repr,
)
@pytest.mark.parametrize("func", ["run", "run_adversary"])
def test_a_bad_eps_is_refused_by_name(func, eps):
    with pytest.raises(ParameterError, match=r"algorithm 'lb-unit-reject': eps must be a number in \(0, 1\), got "):
        if func == "run":
            schedbench.run("lb-unit-reject", INST, eps=eps)
        else:
            schedbench.run_adversary("lb-a", "lb-unit-reject", eps=eps, adversary_params={"K": 2, "T": 2})


@pytest.mark.parametrize(
    "family, params, message",
    [
        ("random-restricted", {"m": 4, "n": 100, "sizes": "pow2", "max_size_exp": 2000}, "'max_size_exp' must be in"),
        ("random-restricted", {"m": 4, "n": 1000, "arrivals": "poisson", "rate": 1e-9}, "parameter 'rate' = 1e-09"),
        ("random-restricted", {"m": 4, "n": 100, "arrivals": "poisson", "load": 1e-12}, "parameter 'load' = 1e-12"),
        ("random-restricted", {"m": 4, "n": 10**9}, "parameters 'n' = 1000000000 and 'd' = 2"),
        ("anr-tree", {"K": 40}, "parameter 'K' must be in [1, 22]"),
    ],
)
def test_family_sizes_are_refused_before_any_allocation(family, params, message):
    # each of these used to end in a MemoryError (or wrapped a size to 0)
    import re
    import time

    from schedbench.checks import check_config
    from schedbench.hall.config import ConfigError, resolve_config
    from schedbench.scheduling.instances.base import FamilyParameterError

    t0 = time.perf_counter()
    with pytest.raises(FamilyParameterError, match=re.escape(message)):
        schedbench.get_family(family).make(0, 1, **params)
    cfg = {
        "seed": 1,
        "eps": [0.25],
        "experiments": {"x": {"family": family, "params": params, "instances": 1, "algorithms": {"greedy": None}}},
    }
    with pytest.raises(ConfigError, match=re.escape(message)):  # and by the config check, before any job
        check_config(resolve_config(cfg))
    assert time.perf_counter() - t0 < 5


def test_an_adversary_tree_beyond_its_limit_is_refused():
    with pytest.raises(ParameterError, match="parameter 'm' = 16777216 is more than 1048576 machines"):
        schedbench.run_adversary("anr-tree", "greedy", adversary_params={"m": 2**24})


@pytest.mark.parametrize("argv", [["--seed", "-1"], ["--index", "-3"], ["--seed", "x"]])
def test_cli_seeds_and_indices_are_non_negative_integers(argv, tmp_path, capsys):
    from schedbench.cli import main

    with pytest.raises(SystemExit) as info:
        main(["generate", "random-restricted", str(tmp_path / "a.npz"), "--param", "m=2", "--param", "n=3", *argv])
    assert info.value.code == 2 and "expected an integer >= 0" in capsys.readouterr().err


def test_a_binary_config_or_base_file_is_refused_by_name(tmp_path):
    from schedbench.hall.config import ConfigError, load_config_file

    binary = tmp_path / "bin.yaml"
    binary.write_bytes(bytes([0x85, 0xFF, 0x00, 0x10]) * 50)
    with pytest.raises(ConfigError, match=r"bin\.yaml: not a UTF-8 text file \(byte 0x85 at offset 0\)"):
        load_config_file(str(binary))
    child = tmp_path / "child.yaml"
    child.write_text("base: bin.yaml\nseed: 1\n")
    with pytest.raises(ConfigError, match=r"bin\.yaml: not a UTF-8 text file"):
        load_config_file(str(child))


def test_a_subnormal_eps_is_refused_by_name_not_overflowed():
    """ε = 5e-324 is in (0, 1) but 1/ε is infinite: ⌈log₂(1/ε)⌉ raised OverflowError (found by the
    hostile-input harness); every rejection-model algorithm refuses it naming eps."""
    from schedbench.hall.params import ParameterError
    from schedbench.scheduling.registry import algorithm_names, get_algorithm

    for name in algorithm_names():
        cls = get_algorithm(name)
        if cls.model != "rejection":
            continue
        with pytest.raises(ParameterError, match=r"eps = 5e-324 is too small"):
            cls.check_eps(5e-324)
        assert cls.check_eps(2.0**-53) == 2.0**-53
