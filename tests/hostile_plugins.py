"""A library of misbehaving plug-ins for the hostile-input harness (tests/unit/test_hostile_harness.py,
tools/hostile-table; docs/hostile-input.md): each a plug-in file whose algorithm breaks one rule
— a bad decision, an exception, a loop, an allocation past the machine, a write into a read-only
array, a loop at import, a compiled path of the wrong length.

Each runs through every command of :data:`COMMANDS` (``{file}`` the plug-in file, ``{folder}``
its folder, ``{name}`` its algorithm, ``{instance}`` a small instance file). Every outcome must
be one line naming the algorithm (or, at import, the file), within the harness's limits — never
a traceback or a hang. The limits are shortened while the harness runs (:data:`SECONDS`)."""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from pathlib import Path

HEAD = '''"""{name}: a misbehaving plug-in of the hostile-input harness."""
import numpy as np
from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.compiled import CompiledRun
from schedbench.scheduling.registry import register_algorithm

@register_algorithm
class Misbehaves(OnlineAlgorithm):
    name = "{name}"
    problem = "maxflow"
    model = "plain"
    rule_label = "R"
    reference = "a misbehaving plug-in"
'''

#: algorithm name → the body of its class (indented) after :data:`HEAD`, or ``None`` with the
#: whole file in :data:`WHOLE_FILES`
BODIES: dict[str, str] = {
    "ineligible-machine": "    def on_arrival(self, job, view):\n        return 99\n",
    "negative-machine": "    def on_arrival(self, job, view):\n        return -7\n",
    "float-machine": "    def on_arrival(self, job, view):\n        return 0.5\n",
    "none-machine": "    def on_arrival(self, job, view):\n        return None\n",
    "plain-rejects": "    def on_arrival(self, job, view):\n        return -1\n",
    "raises": "    def on_arrival(self, job, view):\n        raise RuntimeError('a bug in the rule')\n",
    "divides-by-zero": "    def on_arrival(self, job, view):\n        return 1 // 0\n",
    "recurses": "    def on_arrival(self, job, view):\n        return self.on_arrival(job, view)\n",
    "constructor-raises": "    def __init__(self, m, **kw):\n        raise KeyError('state')\n",
    "exits": "    def on_arrival(self, job, view):\n        raise SystemExit(0)\n",
    "loops": "    def on_arrival(self, job, view):\n        while True:\n            pass\n",
    "allocates": "    def on_arrival(self, job, view):\n        self.hog = np.ones(2**50, dtype=np.uint8)\n",
    "writes-the-job": "    def on_arrival(self, job, view):\n        job.eligible[0] = 0\n        return 0\n",
    "writes-the-instance": (
        "    def compiled_run(self, inst, order):\n        inst.size[0] = 5\n"
        "    def on_arrival(self, job, view):\n        return int(job.eligible[0])\n"
    ),
    "one-job-short": (
        "    def on_arrival(self, job, view):\n        return int(job.eligible[0])\n"
        "    def compiled_run(self, inst, order):\n        n = inst.n - 1\n"
        "        return CompiledRun(np.zeros(n, np.int64), np.zeros(n), np.zeros((0, 2), np.int64), np.zeros((0, 3)))\n"
    ),
}
#: plug-in files that break before any algorithm exists: name → the whole file
WHOLE_FILES: dict[str, str] = {
    "loops-at-import": "while True:\n    pass\n",
    "exits-at-import": "import sys\nsys.exit(3)\n",
}
CASES = [*BODIES, *WHOLE_FILES]

#: The commands each plug-in goes through; a new command that runs user code joins by a line here.
COMMANDS: list[list[str]] = [
    ["--plugins", "{folder}", "run", "{name}", "{instance}", "--problem", "maxflow"],
    [
        "--plugins",
        "{folder}",
        "compare",
        "-a",
        "{name}",
        "-f",
        "random-restricted",
        "-p",
        "m=3",
        "-p",
        "n=6",
        "--instances",
        "1",
        "--eps",
        "0.5",
        "--problem",
        "maxflow",
        "--plugin-time-limit",
        "{seconds}",
    ],
    ["check", "{file}"],
]
#: the limits while the harness runs (seconds): a plug-in's run, its import, its runs in check
SECONDS = 1.0


def write_plugin(name: str, folder) -> str:
    """Write the plug-in ``name`` as ``folder/<name>.py`` (alone in its folder); return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    text = WHOLE_FILES.get(name) or HEAD.format(name=name) + BODIES[name]
    path = folder / f"{name.replace('-', '_')}.py"
    path.write_text(text)
    return str(path)


@contextlib.contextmanager
def isolated(seconds: float = SECONDS):
    """The registry, the plug-in variable and the time limits as they were before the block (a
    plug-in loaded in it never reaches the next case); inside it the limits are ``seconds``."""
    from schedbench.scheduling import conformance, play, plugin_guard, registry

    registry._load_plugins()
    tables = (registry._ALGORITHMS, registry._ADVERSARIES, registry._FAMILIES, registry._ORIGIN, registry._PLUGIN_FILES)
    saved = [dict(t) for t in tables]
    env = os.environ.pop(registry.PLUGIN_ENV, None)
    limits = [
        (play, "PLUGIN_RUN_SECONDS"),  # an algorithm's or adversary's run
        (plugin_guard, "PLUGIN_RUN_SECONDS"),  # a family's generation
        (registry, "IMPORT_SECONDS"),
        (conformance, "RUN_SECONDS"),
    ]
    before = [getattr(module, attr) for module, attr in limits]
    for module, attr in limits:
        setattr(module, attr, seconds)
    try:
        yield
    finally:
        for (module, attr), value in zip(limits, before):
            setattr(module, attr, value)
        for table, kept in zip(tables, saved):
            table.clear()
            table.update(kept)
        os.environ.pop(registry.PLUGIN_ENV, None)
        if env is not None:
            os.environ[registry.PLUGIN_ENV] = env


def outcome(name: str, argv: list[str], work: Path, cli_outcome) -> tuple[str, str]:
    """``("answered" | "refused" | "failed", detail)`` of the command ``argv`` with the plug-in
    ``name`` (written into ``work``), run by ``cli_outcome(args, value)`` (the harness's, under its
    time limit) with the limits at :data:`SECONDS`. A refusal must name the algorithm (a plug-in
    that never defines it: its file) and be one line; no case may take much past its limits."""
    folder = work / f"plugin-{name}"
    shutil.rmtree(folder, ignore_errors=True)
    file = write_plugin(name, folder)
    instance = work / "instance.npz"
    if not instance.exists():
        from schedbench.scheduling.model import Instance

        Instance.from_lists(3, [0, 0, 1, 2], [1, 2, 1, 3], [[0, 1], [1, 2], [0], [2]]).save(instance)
    fields = {"folder": folder, "file": file, "name": name, "instance": instance, "seconds": SECONDS}
    return case_outcome(name, file, argv, fields, cli_outcome, "algorithm")


def case_outcome(name: str, file: str, argv: list[str], fields: dict, cli_outcome, what: str) -> tuple[str, str]:
    """One harness case of a plug-in library (algorithms and adversaries here, families in
    ``hostile_families``): ``argv`` with ``fields`` filled in, run under :func:`isolated` limits;
    "failed" when it failed, took much past its limits, or refused without naming the ``what``
    (the plug-in's name) or its file."""
    args = [a.format(**fields) for a in argv]
    t0 = time.monotonic()
    with isolated():
        kind, detail = cli_outcome(args, "")
    case = f"{name}: schedbench {' '.join(argv[2:4] if argv[0] == '--plugins' else argv[:1])}"
    if kind == "failed":
        return kind, f"{case}: {detail}"
    if time.monotonic() - t0 > 20 * SECONDS + 20:
        return "failed", f"{case}: took {time.monotonic() - t0:.0f} s, limits of {SECONDS:g} s"
    if kind == "refused" and name not in detail and Path(file).name not in detail:
        return "failed", f"{case}: '{detail}' names neither the {what} nor its file"
    return kind, detail
