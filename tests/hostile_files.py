"""Special files in the place of an input file, for the hostile-input harness
(tests/unit/test_hostile_harness.py, tools/hostile-table; docs/hostile-input.md): a FIFO (opened,
it blocks until a writer comes), ``/dev/zero`` (it never ends), a folder, a dangling symlink and
a file of 17 MiB of zeros, given to every command of :data:`COMMANDS` that reads a file
(``{path}`` the special file, ``{out}`` a new output beside it). Every outcome must be an answer
or one line naming the path — never a hang or a traceback."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable


def _fifo(work: Path) -> Path:
    os.mkfifo(work / "fifo.yaml")
    return work / "fifo.yaml"


def _folder(work: Path) -> Path:
    (work / "folder.yaml").mkdir()
    return work / "folder.yaml"


def _dangling(work: Path) -> Path:
    (work / "dangling.yaml").symlink_to(work / "nowhere")
    return work / "dangling.yaml"


def _large(work: Path) -> Path:
    with open(work / "large.yaml", "wb") as handle:
        handle.truncate(17 * 2**20)  # sparse: 17 MiB of zeros
    return work / "large.yaml"


#: name → how to make it in a fresh folder (returns its path)
FILES: dict[str, Callable[[Path], Path]] = {
    "a FIFO": _fifo,
    "/dev/zero": lambda work: Path("/dev/zero"),
    "a folder": _folder,
    "a dangling symlink": _dangling,
    "17 MiB of zeros": _large,
}

#: the cases of this library (the harness's rows)
CASES = list(FILES)

#: The commands given a special file; a new command that reads a file joins by a line here.
COMMANDS: list[list[str]] = [
    ["check-config", "{path}"],
    ["plan", "{path}"],
    ["run", "greedy", "{path}"],
    ["opt", "{path}"],
    ["check", "{path}"],
    ["--plugins", "{path}", "list"],
    ["merge", "{path}", "-o", "{out}"],
    ["diff", "{path}", "{path}"],
    ["status", "{path}"],
    ["archive", "--root", "{path}"],
]


def outcome(name: str, argv: list[str], work: Path, cli_outcome) -> tuple[str, str]:
    """``("answered" | "refused" | "failed", detail)`` of ``argv`` with the special file ``name``
    (made in ``work``), run by ``cli_outcome(args, value)`` (the harness's, under its time limit).
    A refusal must name the path."""
    work.mkdir(parents=True, exist_ok=True)
    path = FILES[name](work)
    args = [a.format(path=path, out=work / "out.parquet") for a in argv]
    kind, detail = cli_outcome(args, "")
    case = f"{name}: schedbench {' '.join(argv)}"
    if kind == "failed":
        return kind, f"{case}: {detail}"
    if kind == "refused" and str(path) not in detail and path.name not in detail:
        return "failed", f"{case}: '{detail}' does not name {path}"
    return kind, detail
