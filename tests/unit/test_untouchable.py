"""No silently wrong answer from user code: an instance no algorithm can change (its arrays are
backed by immutable bytes, also after pickling), a plug-in that tries — or replaces an array, or
calls ``sys.exit`` — is an error naming it, and every run after it on the same instance gives
what it gives without it (the API, the pipeline's run path, ``compare``); grids that list a value
twice are refused by name."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pytest

from schedbench.scheduling.engine import AlgorithmError
from schedbench.scheduling.model import Instance
from schedbench.scheduling.play import execute
from schedbench.scheduling.registry import get_algorithm

GREEDY = get_algorithm("greedy")


def _instance() -> Instance:
    return Instance.from_lists(3, [0, 0, 1, 1, 2], [4, 2, 3, 1, 5], [[0], [0, 1], [1, 2], [2], [0, 2]])


class _Writes(GREEDY):
    """Makes the sizes writeable and sets them to 1 (as the hostile plug-in of the report did)."""

    name = "writes-sizes"

    def dispatch_all(self, size, indptr, indices, order):
        size.setflags(write=True)
        size[:] = 1


class _Replaces(GREEDY):
    """Swaps the instance's size array for another one behind the frozen dataclass's back."""

    name = "replaces-sizes"
    victim: Instance | None = None  # the instance under test (set by the test)

    def dispatch_all(self, size, indptr, indices, order):
        object.__setattr__(_Replaces.victim, "size", np.ones_like(size))
        return None


class _Hogs(GREEDY):
    name = "hogs-memory"

    def dispatch_all(self, size, indptr, indices, order):
        raise MemoryError  # what numpy raises for np.empty(10**14)


class _Exits(GREEDY):
    name = "exits"

    def dispatch_all(self, size, indptr, indices, order):
        sys.exit(0)


def test_instance_arrays_cannot_be_made_writeable_not_even_after_pickling():
    inst = _instance()
    for copy in (inst, pickle.loads(pickle.dumps(inst))):
        for name in ("release", "size", "indptr", "indices", "w_flow", "w_reject"):
            arr = getattr(copy, name)
            with pytest.raises(ValueError, match="WRITEABLE"):
                arr.setflags(write=True)
    assert pickle.loads(pickle.dumps(inst)).size.tolist() == [4, 2, 3, 1, 5]


@pytest.mark.parametrize(
    "cls, message",
    [(_Writes, "writeable"), (_Replaces, "changed the instance"), (_Exits, "sys.exit"), (_Hogs, "out of memory")],
)
def test_a_plugin_that_touches_the_instance_or_exits_is_named_and_later_runs_are_unchanged(cls, message):
    inst = _instance()
    _Replaces.victim = inst
    before = execute(GREEDY, inst)
    with pytest.raises(AlgorithmError, match=f"{cls.name}.*{message}|{message}.*") as err:
        execute(cls, inst)
    assert cls.name in str(err.value)
    after = execute(GREEDY, inst)
    assert after.objective == before.objective and after.valid
    assert inst.size.tolist() == [4, 2, 3, 1, 5]  # restored when an array was swapped


def test_the_pipeline_run_path_records_the_plugin_run_as_failed_and_goes_on():
    from schedbench.scheduling.stage.experiment import _run_row

    inst = _instance()
    good, _ = _run_row(GREEDY, inst, {}, None, 0, {}, None)
    bad, record = _run_row(_Writes, inst, {}, None, 0, {}, None)
    assert record is None and bad["status"] == "error" and "writes-sizes" in bad["errors"]
    again, _ = _run_row(GREEDY, inst, {}, None, 0, {}, None)
    assert again["objective"] == good["objective"] and again["status"] == good["status"] == "ok"


MUTATOR = '''
from schedbench.scheduling.algorithms.greedy import Greedy
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class SizeOne(Greedy):
    """greedy after setting every size to 1 (a hostile plug-in)."""

    name = "size-one"
    summary = "greedy after writing 1 into every size"

    def dispatch_all(self, size, indptr, indices, order):
        size.setflags(write=True)
        size[:] = 1
        return super().dispatch_all(size, indptr, indices, order)
'''


def _cli(*args: str, plugins: str | None = None) -> subprocess.CompletedProcess:
    import os

    env = {k: v for k, v in os.environ.items() if k != "SCHEDBENCH_PLUGINS"}
    if plugins:
        env["SCHEDBENCH_PLUGINS"] = plugins
    return subprocess.run([sys.executable, "-m", "schedbench.cli", *args], capture_output=True, text=True, env=env)


def _greedy_line(out: str) -> str:
    return next(line for line in out.splitlines() if line.startswith("greedy ")).rsplit(maxsplit=1)[0]  # no s/run


def test_compare_counts_no_run_of_a_mutating_plugin_and_greedy_is_unchanged(tmp_path):
    (tmp_path / "size_one.py").write_text(MUTATOR)
    args = ["compare", "-f", "random-restricted", "-p", "m=4", "-p", "n=20", "--instances", "3"]
    alone = _cli(*args, "-a", "greedy")
    both = _cli(*args, "-a", "size-one", "-a", "greedy", plugins=str(tmp_path))
    assert alone.returncode == 0, alone.stderr
    assert both.returncode == 0, both.stderr
    assert _greedy_line(both.stdout) == _greedy_line(alone.stdout)
    line = next(x for x in both.stdout.splitlines() if x.startswith("size-one"))
    assert " 0/3 " in line  # no valid run of the plug-in


def test_sys_exit_at_import_is_an_error_naming_the_plugin(tmp_path):
    (tmp_path / "leaves.py").write_text("import sys\nsys.exit(0)\n")
    out = _cli("list", plugins=str(tmp_path))
    assert out.returncode != 0 and "leaves.py" in out.stderr and "SystemExit" in out.stderr


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--eps", "0.5,0.5"], "'0.5' is listed twice"),
        (["-a", "greedy:ties=index|index"], "lists 'index' twice"),
        (["-p", "m=5"], "-p m: given twice"),
    ],
)
def test_compare_refuses_a_grid_with_a_value_twice(args, needle):
    base = ["compare", "-f", "random-restricted", "-p", "m=4", "-p", "n=20", "--instances", "2"]
    if not any(a == "-a" for a in args):
        base += ["-a", "lb-general-reject" if "--eps" in args else "greedy"]
    out = _cli(*base, *args)
    assert out.returncode != 0 and needle in out.stderr, out.stderr


def test_the_config_refuses_a_grid_with_a_value_twice():
    import copy
    from pathlib import Path

    from schedbench.checks import check_config
    from schedbench.hall.config import ConfigError, load_config

    cfg = load_config([Path(__file__).resolve().parents[2] / "config/smoke.yaml"])
    fam = next(k for k, v in cfg["experiments"].items() if "family" in v)
    alg = next(iter(cfg["experiments"][fam]["algorithms"]))
    cases = {
        "eps: 0.5 is listed twice": lambda c: c.update(eps=[0.5, 0.25, 0.5]),
        f"experiments.{fam}.eps: 0.25": lambda c: c["experiments"][fam].update(eps=[0.25, 0.25]),
        f"experiments.{fam}.algorithms.{alg}.ties": lambda c: c["experiments"][fam]["algorithms"].update(
            {alg: {"ties": ["index", "random", "index"]}}
        ),
    }
    for needle, change in cases.items():
        c = copy.deepcopy(cfg)
        change(c)
        with pytest.raises(ConfigError, match=needle.replace(".", r"\.")):
            check_config(c)


def test_repeated_treats_bools_apart_from_numbers():
    from schedbench.hall.grids import repeated

    assert repeated([1, True]) is None and repeated([True, True]) is True and repeated([1, 1.0]) == 1.0
    assert repeated([{"a": 1}, {"a": 1}]) == {"a": 1} and repeated(["x", "y"]) is None


OVERRUN = '''
from schedbench.scheduling.algorithms.greedy import Greedy
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class RejectHalf(Greedy):
    """Rejects every second job without asking its budget (a broken plug-in)."""

    name = "reject-half"
    model = "rejection"
    summary = "greedy that rejects every second job, budget unchecked"

    def __init__(self, m, **kw):
        super().__init__(m, **kw)
        self.k = 0

    def dispatch_all(self, size, indptr, indices, order):
        return None

    def on_arrival(self, job, view):
        self.k += 1
        return REJECT if self.k % 2 == 0 else super().on_arrival(job, view)
'''


def test_a_plugin_over_its_budget_fails_check_and_compare_says_why(tmp_path):
    (tmp_path / "reject_half.py").write_text(OVERRUN)
    out = _cli("check", str(tmp_path / "reject_half.py"))
    assert out.returncode == 1, out.stdout
    assert "FAIL  algorithm reject-half: passes the validator" in out.stdout and "budget_violated" in out.stdout
    args = ["compare", "-a", "reject-half", "-a", "greedy", "-f", "random-restricted", "-p", "m=4", "-p", "n=20"]
    out = _cli(*args, "--instances", "3", "--eps", "0.25", plugins=str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert "reject-half at eps=0.25: not counted: 3 budget_violated" in out.stdout
    assert next(x for x in out.stdout.splitlines() if x.startswith("greedy")).split()[1] == "-"  # no ε, not nan


def test_the_documented_failing_baseline_is_the_only_builtin_allowed_to_overrun():
    from schedbench.scheduling.registry import algorithm_names, get_algorithm

    assert [n for n in algorithm_names() if get_algorithm(n).overruns_budget] == ["class-ll-srpt"]
