"""A generated hostile-input harness (docs/hostile-input.md): every public function of the package
and every CLI subcommand, given generated bad arguments, either answers or refuses with a named
error — never a hang (each call under a time limit), never a MemoryError, never an internal
exception type (AttributeError, TypeError, OverflowError, a solver's own error)."""

from __future__ import annotations

import math
import signal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedbench as sb
from schedbench import Instance
from schedbench.cli import main
from schedbench.scheduling.registry import UnknownNameError
from schedbench.scheduling.search.exact import SearchFailed

SIZED = Instance.from_lists(2, [0, 0, 1], [1, 2, 1], [[0], [0, 1], [1]])
UNIT = Instance.from_lists(2, [0, 0, 1], [1, 1, 1], [[0], [0, 1], [1]])

#: Bad values of every kind: none, non-finite, negative, huge, wrong types, numpy scalars.
ODD = [
    None,
    math.nan,
    math.inf,
    -math.inf,
    -1,
    0,
    2**63,
    10**30,
    "x",
    b"x",
    True,
    [],
    {},
    1.5,
    np.float32("nan"),
    np.int64(-5),
    object(),
    (1, 2),
]
VALUES = st.one_of(
    st.sampled_from(ODD),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.text(max_size=4),
)

#: function name → (function, good keyword arguments): each argument is replaced in turn.
CALLS = {
    "run": (
        sb.run,
        dict(algorithm="lb-unit-reject", instance=UNIT, eps=0.25, seed=0, time_limit=60.0, work_limit=10.0),
    ),
    "run_adversary": (
        sb.run_adversary,
        dict(
            adversary="anr-tree",
            algorithm="greedy",
            eps=None,
            seed=0,
            adversary_params={"m": 4},
            algorithm_params={},
            time_limit=60.0,
            work_limit=10.0,
        ),
    ),
    "solve_opt": (sb.solve_opt, dict(inst=SIZED, problem="maxflow", time_limit=60.0, seed=0, work_limit=10.0)),
    "opt_makespan": (sb.opt_makespan, dict(inst=SIZED, time_limit=60.0, seed=0, work_limit=10.0)),
    "opt_max_flow": (sb.opt_max_flow, dict(inst=SIZED, objective="flow", time_limit=60.0, seed=0, work_limit=10.0)),
    "max_flow_lower_bound": (sb.max_flow_lower_bound, dict(inst=SIZED, objective="flow", time_limit=60.0)),
    "worst_case": (
        sb.worst_case,
        dict(
            algorithm="greedy",
            m=2,
            opt=1,
            time_limit=20.0,
            sizes=(1,),
            release_window=0,
            workers=1,
            seed=0,
            work_limit=2.0,
        ),
    ),
    "search_worst": (sb.search_worst, dict(algorithm="greedy", m=2, max_evals=3, budget_seconds=20.0, seed=0)),
    "get_algorithm": (sb.get_algorithm, dict(name="greedy")),
    "get_adversary": (sb.get_adversary, dict(name="anr-tree")),
    "get_family": (sb.get_family, dict(name="random-restricted")),
    "Instance.from_lists": (Instance.from_lists, dict(m=2, release=[0, 0], size=[1, 1], eligible=[[0], [1]])),
}
CASES = [(name, arg) for name, (_, good) in CALLS.items() for arg in good]
TIME_LIMIT = 60  # seconds per call: far beyond any of these tiny calls


class Hang(Exception):
    pass


def _alarm(*_):
    raise Hang


def _named(exc: BaseException, name: str, args: dict) -> bool:
    """A refusal names the argument (or, for nested parameters and lookups, the parameter or name)."""
    text = str(exc)
    if getattr(exc, "argument", None) in args or isinstance(exc, UnknownNameError):
        return True
    return any(a in text for a in args) or "parameter '" in text


@pytest.mark.parametrize("name, arg", CASES, ids=[f"{n}-{a}" for n, a in CASES])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=VALUES)
def test_a_public_function_answers_or_refuses_by_name(name, arg, value):
    fn, good = CALLS[name]
    kwargs = {**good, arg: value}
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT)
    try:
        fn(**kwargs)
    except Hang:
        pytest.fail(f"{name}({arg}={value!r}) ran past {TIME_LIMIT} s")
    except (ValueError, LookupError, SearchFailed) as exc:  # SearchFailed: a limit ran out, said as such
        assert _named(exc, arg, kwargs), f"{name}({arg}={value!r}): {type(exc).__name__}: {exc}"
    except Exception as exc:  # an internal type: TypeError, AttributeError, OverflowError, MemoryError ...
        pytest.fail(f"{name}({arg}={value!r}) raised {type(exc).__name__}: {exc}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


#: CLI invocations with one generated bad value in the place of ``{}``.
CLI = [
    ["opt", "{}"],
    ["opt", "missing.npz", "--work-limit", "{}"],
    ["run", "greedy", "missing.npz", "--eps", "{}"],
    ["run", "greedy", "missing.npz", "--seed", "{}"],
    ["generate", "random-restricted", "--index", "{}", "-p", "n=4", "-p", "m=2"],
    ["generate", "random-restricted", "-p", "n={}", "-p", "m=2"],
    ["compare", "-a", "greedy", "-f", "random-restricted", "-p", "m=2", "-p", "n=4", "--eps", "{}"],
    ["compare", "-a", "{}", "-f", "random-restricted", "-p", "m=2", "-p", "n=4", "--eps", "0.5"],
    ["compare", "-a", "greedy", "-f", "random-restricted", "-p", "m=2", "-p", "n=4", "--time-limit", "{}"],
    ["describe", "{}"],
    ["plan", "{}"],
    ["check-config", "{}"],
    ["status", "{}"],
    ["check", "{}"],
]
CLI_VALUES = st.one_of(
    st.sampled_from(["nan", "inf", "-1", "0", "1e400", "", "x", "-", "--", "1.5", "9" * 30]),
    st.text(alphabet="0123456789.-+eEnaixNA", min_size=1, max_size=6),
)


@pytest.mark.parametrize("argv", CLI, ids=[" ".join(a) for a in CLI])
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=CLI_VALUES)
def test_a_cli_subcommand_answers_or_refuses_without_a_traceback(argv, value, capsys, tmp_path_factory, monkeypatch):
    monkeypatch.chdir(tmp_path_factory.mktemp("cli"))
    args = [a.replace("{}", value) for a in argv]
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT)
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's refusal of a value it cannot read: exit 2 with a usage line
        code = exc.code
    except Hang:
        pytest.fail(f"schedbench {' '.join(args)} ran past {TIME_LIMIT} s")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err, (args, out.err[-2000:])
    assert isinstance(code, int), (args, code)
    if code != 0:
        assert out.err.strip() or out.out.strip(), f"schedbench {' '.join(args)} failed without a word"
