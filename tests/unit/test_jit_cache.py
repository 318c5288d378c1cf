"""The compiled functions' on-disk cache follows their sources (``hall/jit.py``): a compiled
function that calls a helper in another file runs the edited helper after that file changes —
with numba's own cache it would keep the old one until the cache is cleared by hand — and a
second process loads it from the cache instead of compiling."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from schedbench.hall.jit import source_files, type_files

HELPER = """
from schedbench.hall.jit import compiled

FACTOR = {factor}


@compiled
def scale(x):
    return FACTOR * x
"""

CALLER = """
import numpy as np

from schedbench.hall.jit import compiled
import helper_mod as hm


@compiled
def total(a):
    s = 0.0
    for x in a:
        s += hm.scale(x)
    return s
"""

RUN = (
    "import numpy as np, caller_mod as c; "
    "print(c.total(np.arange(4.0)), sum(c.total.stats.cache_hits.values()), sum(c.total.stats.cache_misses.values()))"
)


def _run(folder: Path) -> tuple[float, int, int]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(folder), *sys.path]))
    out = subprocess.run([sys.executable, "-c", RUN], cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    value, hits, misses = out.stdout.split()
    return float(value), int(hits), int(misses)


def test_editing_a_helper_in_another_file_recompiles_its_caller(tmp_path):
    (tmp_path / "helper_mod.py").write_text(textwrap.dedent(HELPER.format(factor=2.0)))
    (tmp_path / "caller_mod.py").write_text(textwrap.dedent(CALLER))
    assert _run(tmp_path) == (12.0, 0, 1)  # compiled, then cached
    assert _run(tmp_path) == (12.0, 1, 0)  # a new process loads it
    (tmp_path / "helper_mod.py").write_text(textwrap.dedent(HELPER.format(factor=3.0)))  # only the helper's file
    assert _run(tmp_path) == (18.0, 0, 1)  # the edit is seen: compiled again
    assert _run(tmp_path) == (18.0, 1, 0)


def test_the_key_holds_every_file_a_policy_reaches():
    """A compiled rule of the suite reaches its own file, the machine core's and the files the
    core's functions live in — not a library's."""
    from schedbench.scheduling.algorithms.ll_fifo import ll_fifo_rule

    names = {p.name for p in source_files(ll_fifo_rule.py_func)}
    assert {"ll_fifo.py", "machines.py"} <= names
    assert not any("site-packages" in str(p) for p in source_files(ll_fifo_rule.py_func))


def test_the_key_holds_the_files_of_the_suites_own_argument_types():
    """A function that only reads the machine core's record (no core function named) still
    compiles again when machines.py changes: the record type's file is in its key."""
    import numba
    from schedbench.scheduling import machines as mc
    from schedbench.scheduling.model import Instance

    inst = Instance.from_lists(2, [0, 1], [1, 2], [[0], [1]])
    record = mc.record(inst, inst.arrival_order(), 1.0)
    names = {p.name for p in type_files((numba.typeof(record), numba.float64))}
    assert names == {"machines.py"}
