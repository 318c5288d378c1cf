"""docs/tutorial.md is a test: its ```bash tutorial``` lines run in order, in a scratch copy of the
workflow, and its ```yaml file=PATH``` blocks are written there first (in document order)."""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import copy_workflow, omit_pdf

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.e2e

_BLOCK = re.compile(r"^```(?P<info>[^\n]*)\n(?P<body>.*?)^```\s*$", re.M | re.S)


def tutorial_steps() -> list[tuple[str, str, str]]:
    """(kind, target, text): ('file', PATH, content) and ('run', '', command line), in order."""
    steps = []
    for m in _BLOCK.finditer((ROOT / "docs/tutorial.md").read_text()):
        info = m.group("info").split()
        if info[:2] == ["bash", "tutorial"]:
            steps += [("run", "", line) for line in m.group("body").splitlines() if line.strip()]
        elif info and info[0] == "yaml" and len(info) > 1 and info[1].startswith("file="):
            steps.append(("file", info[1][len("file=") :], m.group("body")))
    return steps


def test_the_tutorial_has_every_step():
    runs = [s[2] for s in tutorial_steps() if s[0] == "run"]
    for word in ("schedbench new", "schedbench check ", "compare", "check-config", "snakemake"):
        assert any(word in r for r in runs), word


def test_the_tutorial_runs(tmp_path):
    work = copy_workflow(tmp_path / "wf")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    env.pop("SCHEDBENCH_PLUGINS", None)
    outputs = {}
    for kind, target, text in tutorial_steps():
        if kind == "file":
            (work / target).write_text(text)
            continue
        argv = shlex.split(text)
        if argv[0] == "snakemake":
            argv = [sys.executable, "-m", "snakemake", *argv[1:], *omit_pdf()]
        elif argv[0] in ("schedbench", "python"):
            argv = [sys.executable, *(["-m", "schedbench.cli"] if argv[0] == "schedbench" else []), *argv[1:]]
        proc = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, f"{text}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
        outputs[text] = proc.stdout
    check = next(v for k, v in outputs.items() if k.startswith("schedbench check my-baselines"))
    assert "FAIL" not in check and "PASS" in check
    compare = next(v for k, v in outputs.items() if " compare " in k)
    assert "my-least-work" in compare and "ll-fifo" in compare and "imd" in compare
    found = next(v for k, v in outputs.items() if k.startswith("grep -c"))
    assert int(found.strip()) >= 1
    table = next(v for k, v in outputs.items() if k.startswith("python -c"))
    assert "my-least-work" in table and "0.25" in table
