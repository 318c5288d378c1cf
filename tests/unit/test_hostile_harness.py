"""A generated hostile-input harness (docs/hostile-input.md): every public function of the package
and every CLI subcommand, given generated bad arguments, either answers or refuses with a named
error — never a hang (each call under a time limit), never a MemoryError, never an internal
exception type (AttributeError, TypeError, OverflowError, a solver's own error). Beyond arguments,
libraries of hostile cases (:data:`LIBRARIES`: damaged runs and archives, misbehaving plug-ins,
special files) go through the commands that read them, each ending in an answer or one line
naming the case's file or plug-in."""

from __future__ import annotations

import copy
import math
import signal
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedbench as sb
from schedbench import Instance
from schedbench.cli import main
from schedbench.scheduling import registry
from schedbench.scheduling.registry import UnknownNameError
from schedbench.scheduling.search.exact import SearchFailed
from tests import hostile_families, hostile_files, hostile_plugins, hostile_runs

ROOT = Path(__file__).resolve().parents[2]
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
    "search_worst": (
        sb.search_worst,
        dict(algorithm="greedy", m=2, max_evals=3, budget_seconds=20.0, seed=0, run_seconds=60.0),
    ),
    "get_algorithm": (sb.get_algorithm, dict(name="greedy")),
    "get_adversary": (sb.get_adversary, dict(name="anr-tree")),
    "get_family": (sb.get_family, dict(name="random-restricted")),
    "registry.get": (registry.get, dict(kind="family", name="random-restricted")),
    "registry.names": (registry.names, dict(kind="adversary")),
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


def call_outcome(name: str, arg: str, value) -> tuple[str, str]:
    """``("answered" | "refused" | "failed", detail)`` of one public function called with
    ``arg=value`` and its other arguments good, under :data:`TIME_LIMIT`."""
    fn, good = CALLS[name]
    kwargs = {**good, arg: value}
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT)
    try:
        fn(**kwargs)
    except Hang:
        return "failed", f"{name}({arg}={value!r}) ran past {TIME_LIMIT} s"
    except (ValueError, LookupError, SearchFailed) as exc:  # SearchFailed: a limit ran out, said as such
        if _named(exc, arg, kwargs):
            return "refused", str(exc)
        return "failed", f"{name}({arg}={value!r}): {type(exc).__name__}: {exc} (names no argument)"
    except Exception as exc:  # an internal type: TypeError, AttributeError, OverflowError, MemoryError ...
        return "failed", f"{name}({arg}={value!r}) raised {type(exc).__name__}: {exc}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return "answered", ""


@pytest.mark.parametrize("name, arg", CASES, ids=[f"{n}-{a}" for n, a in CASES])
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(value=VALUES)
def test_a_public_function_answers_or_refuses_by_name(name, arg, value, memory_headroom):
    kind, detail = call_outcome(name, arg, value)
    assert kind != "failed", detail


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
    ["loss", "simulate", "--n", "{}", "--k", "2", "--d", "2", "--lam", "0.9", "--arrivals", "2000"],
    ["loss", "simulate", "--n", "8", "--k", "2", "--d", "2", "--lam", "{}", "--arrivals", "2000"],
    ["loss", "exact", "--n", "8", "--k", "{}", "--d", "2", "--lam", "0.9"],
    ["loss", "exact", "--n", "8", "--k", "2", "--d", "{}", "--mu", "{}", "--lam", "0.9"],
    ["bipartite", "simulate", "--policy", "jfsq", "--mu", "{}", "--lam", "1", "--arrivals", "2000"],
    ["bipartite", "simulate", "--policy", "jsq-d", "--mu", "2,1", "--lam", "1", "--d", "{}", "--arrivals", "2000"],
    ["bipartite", "exact", "--policy", "jfsq", "--mu", "2,1", "--lam", "{}"],
    ["bipartite", "exact", "--policy", "random", "--mu", "2,1", "--lam", "1", "--neighbors", "{}"],
]
CLI_VALUES = st.one_of(
    st.sampled_from(["nan", "inf", "-1", "0", "1e400", "", "x", "-", "--", "1.5", "9" * 30]),
    st.text(alphabet="0123456789.-+eEnaixNA", min_size=1, max_size=6),
)


def cli_outcome(argv: list[str], value: str, capsys) -> tuple[str, str]:
    """``("answered" | "refused" | "failed", detail)`` of one CLI invocation with ``value`` in
    the place of ``{}`` (run in the current directory), under :data:`TIME_LIMIT`."""
    args = [a.replace("{}", value) for a in argv]
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT)
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's refusal of a value it cannot read: exit 2 with a usage line
        code = exc.code
    except Hang:
        return "failed", f"schedbench {' '.join(args)} ran past {TIME_LIMIT} s"
    except Exception as exc:
        return "failed", f"schedbench {' '.join(args)} raised {type(exc).__name__}: {exc}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out = capsys.readouterr()
    if "Traceback" in out.out + out.err:
        return "failed", f"schedbench {' '.join(args)}: a traceback: {out.err[-2000:]}"
    if not isinstance(code, int):
        return "failed", f"schedbench {' '.join(args)}: exit code {code!r}"
    if code == 0:
        return "answered", out.out[-2000:]
    if not (out.err.strip() or out.out.strip()):
        return "failed", f"schedbench {' '.join(args)} failed without a word"
    return "refused", out.err.strip().splitlines()[-1] if out.err.strip() else out.out.strip()


@pytest.mark.parametrize("argv", CLI, ids=[" ".join(a) for a in CLI])
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=CLI_VALUES)
def test_a_cli_subcommand_answers_or_refuses_without_a_traceback(
    argv, value, capsys, tmp_path_factory, monkeypatch, memory_headroom
):
    monkeypatch.chdir(tmp_path_factory.mktemp("cli"))
    kind, detail = cli_outcome(argv, value, capsys)
    assert kind != "failed", detail


#: The configs whose sections the harness mutates: the smoke config has every section but a
#: search with long tasks, which config/search.yaml has.
CONFIGS = {name: yaml.safe_load((ROOT / "config" / f"{name}.yaml").read_text()) for name in ("smoke", "search")}
CONFIG_VALUES = st.sampled_from(
    [None, math.nan, math.inf, -1, 0, 1, 2.5, 2**63, 10**30, 1e-300, "x", "", [], {}, [1, 2], True, {"rule": "x"}]
)


def config_sections(config: dict) -> list[tuple]:
    """Every section of a config: each top-level key, and each entry of ``experiments``,
    ``loss.experiments``, ``bipartite.experiments`` and ``search.tasks``."""
    sections = [(key,) for key in config if key not in ("experiments",)]
    sections += [("experiments", name) for name in config.get("experiments", {})]
    for wing, inner in (("loss", "experiments"), ("bipartite", "experiments"), ("search", "tasks")):
        sections += [(wing, inner, name) for name in (config.get(wing) or {}).get(inner, {})]
    return sections


def key_paths(node, prefix: tuple) -> list[tuple]:
    """The section's own path and every key path below it (list entries by index)."""
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += key_paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += key_paths(v, prefix + (i,))
    return out


CONFIG_CASES = [(name, section) for name, config in CONFIGS.items() for section in config_sections(config)]


def _node(config, path):
    for key in path:
        config = config[key]
    return config


def config_outcome(config_name: str, path: tuple, action: str, value, tmp_path, capsys) -> tuple[str, str]:
    """``("answered" | "refused" | "failed", detail)`` of ``schedbench check-config`` (YAML,
    schema, cross-field rules, the run planner's estimate and limit) on a config with the key at
    ``path`` deleted, set to ``value`` or given an unknown sibling. A refusal must name the key
    or a section above it."""
    config = copy.deepcopy(CONFIGS[config_name])
    parent, last = _node(config, path[:-1]), path[-1]
    if action == "delete" and isinstance(parent, dict):
        del parent[last]
    elif action == "add" and isinstance(parent, dict):
        parent[f"{last}_unknown"] = value
    else:
        parent[last] = value
    file = tmp_path / "hostile.yaml"
    file.write_text(yaml.safe_dump(config))
    kind, detail = cli_outcome(["check-config", str(file)], "", capsys)
    case = f"{config_name}: {action} {'.'.join(map(str, path))} = {value!r}"
    if kind == "failed":
        return kind, f"{case}: {detail}"
    if kind == "refused":
        # the key or its section is named: the dotted path down to some depth (a cost refusal names
        # the experiment whose estimate is largest, a schema error the deepest key it can)
        names = [".".join(str(k) for k in path[:depth]) for depth in range(1, len(path) + 1)]
        if not any(name in detail for name in names):
            return "failed", f"{case}: '{detail}' names no key"
    return kind, detail


@pytest.mark.parametrize("config_name, section", CONFIG_CASES, ids=[f"{c}-{'.'.join(s)}" for c, s in CONFIG_CASES])
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data(), action=st.sampled_from(["set", "delete", "add"]), value=CONFIG_VALUES)
def test_a_config_section_answers_or_refuses_by_name(config_name, section, data, action, value, tmp_path, capsys):
    path = data.draw(st.sampled_from(key_paths(_node(CONFIGS[config_name], section), section)))
    kind, detail = config_outcome(config_name, path, action, value, tmp_path, capsys)
    assert kind != "failed", detail


#: Libraries of hostile cases beyond arguments: each a module with ``CASES`` (names), ``COMMANDS``
#: (argv templates) and ``outcome(case, argv, work, cli_outcome)``. A command joins a library by a
#: line in its COMMANDS; a new kind of case joins here by a line.
LIBRARIES = {
    "damaged runs and archives": hostile_runs,
    "misbehaving plug-ins": hostile_plugins,
    "misbehaving families": hostile_families,
    "special files": hostile_files,
}
LIBRARY_CASES = [
    (library, case, argv) for library, module in LIBRARIES.items() for case in module.CASES for argv in module.COMMANDS
]


def command_of(argv: list[str]) -> str:
    """The subcommand of an invocation (after a leading ``--plugins PATH``)."""
    return argv[2] if argv[0] == "--plugins" else argv[0]


def library_outcome(library: str, case: str, argv: list[str], work: Path, capsys) -> tuple[str, str]:
    """``("answered" | "refused" | "failed", detail)`` of one case of a library through one command."""
    return LIBRARIES[library].outcome(case, argv, work, lambda args, value: cli_outcome(args, value, capsys))


@pytest.mark.parametrize(
    "library, case, argv",
    LIBRARY_CASES,
    ids=[f"{case}-{' '.join(argv[:2])}" for _, case, argv in LIBRARY_CASES],
)
def test_a_hostile_run_plugin_or_file_is_answered_or_refused_naming_it(library, case, argv, tmp_path, capsys):
    kind, detail = library_outcome(library, case, argv, tmp_path, capsys)
    assert kind != "failed", detail


def test_the_docs_table_has_a_row_for_every_surface_of_the_harness():
    """docs/hostile-input.md's table is regenerated by tools/hostile-table from this harness:
    one row per public function, CLI subcommand and config section group, none failed."""
    text = (ROOT / "docs" / "hostile-input.md").read_text()
    begin = "<!-- harness table: generated by tools/hostile-table, do not edit -->"
    table = text.split(begin, 1)[1].split("<!-- end of harness table -->", 1)[0]
    rows = {line.split("|")[1].strip(): line.split("|")[1:-1] for line in table.strip().splitlines()[2:]}
    expected = [f"`{name}`" for name in CALLS]
    expected += [f"`schedbench {c}`" for c in dict.fromkeys(argv[0] for argv in CLI)]
    expected += [f"config `{g}`" for g in dict.fromkeys(section[0] for _, section in CONFIG_CASES)]
    expected += list(dict.fromkeys(f"{library}: `schedbench {command_of(argv)}`" for library, _, argv in LIBRARY_CASES))
    assert sorted(rows) == sorted(expected), "run .venv/bin/python tools/hostile-table"
    for surface, cells in rows.items():
        calls, answered, refused, failed = (int(c) for c in cells[2:6])
        assert calls == answered + refused + failed and calls > 0 and failed == 0, (surface, cells)
