"""A library of misbehaving family plug-ins for the hostile-input harness
(tests/unit/test_hostile_harness.py, tools/hostile-table; docs/hostile-input.md): each a plug-in
file registering an instance family whose generator breaks one rule — it never returns, raises,
exits, allocates past the machine, or returns something that is not an instance.

Each runs through every command of :data:`COMMANDS` (``{file}`` the plug-in file, ``{folder}``
its folder, ``{name}`` its family, ``{out}`` an output path). Every outcome must be one line
naming the family (or its file), within the harness's limits — never a traceback or a hang.
The limits are shortened while the harness runs (``hostile_plugins.SECONDS``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.hostile_plugins import SECONDS, case_outcome

HEAD = '''"""{name}: a misbehaving family plug-in of the hostile-input harness."""
import sys

import numpy as np

from schedbench.hall.params import Param
from schedbench.scheduling.instances.base import Family
from schedbench.scheduling.registry import register_family


def _generate(rng, m, n):
{body}

FAMILY = register_family(
    Family(
        name="{name}",
        parameters={{"m": Param(2, doc="machines", type=int, min=1), "n": Param(4, doc="jobs", type=int, min=1)}},
        generator=_generate,
        sized=lambda p: False,
        doc="a misbehaving family",
    )
)
'''

#: family name → the body of its generator (indented)
BODIES: dict[str, str] = {
    "family-loops": "    while True:\n        pass\n",
    "family-raises": "    raise RuntimeError('a bug in the generator')\n",
    "family-divides-by-zero": "    return n // 0\n",
    "family-exits": "    sys.exit(0)\n",
    "family-allocates": "    return np.ones(2**50, dtype=np.uint8)\n",
    "family-returns-a-list": "    return [m, n]\n",
}
CASES = list(BODIES)

#: The commands each family goes through; a new command that generates instances joins by a line here.
COMMANDS: list[list[str]] = [
    ["--plugins", "{folder}", "generate", "{name}", "{out}"],
    [
        "--plugins",
        "{folder}",
        "compare",
        "-a",
        "greedy",
        "-f",
        "{name}",
        "--instances",
        "1",
        "--plugin-time-limit",
        "{seconds}",
    ],
    ["check", "{file}"],
]


def write_plugin(name: str, folder) -> str:
    """Write the family plug-in ``name`` as ``folder/<name>.py`` (alone in its folder); return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name.replace('-', '_')}.py"
    path.write_text(HEAD.format(name=name, body=BODIES[name]))
    return str(path)


def outcome(name: str, argv: list[str], work: Path, cli_outcome) -> tuple[str, str]:
    """``("answered" | "refused" | "failed", detail)`` of the command ``argv`` with the family
    plug-in ``name`` (written into ``work``), run by ``cli_outcome(args, value)`` (the harness's,
    under its time limit) with the limits at ``SECONDS``. A refusal must name the family or its
    file and be one line; no case may take much past its limits."""
    folder = work / f"family-{name}"
    shutil.rmtree(folder, ignore_errors=True)
    file = write_plugin(name, folder)
    fields = {"folder": folder, "file": file, "name": name, "out": work / "out.npz", "seconds": SECONDS}
    kind, detail = case_outcome(name, file, argv, fields, cli_outcome, "family")
    if kind == "answered":
        return "failed", f"{name}: answered ({detail[-200:]}) though the family cannot build an instance"
    return kind, detail
