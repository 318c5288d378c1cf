"""`make test`'s scheduler (tests/xdist_groups.py) survives a crashed worker: a pytest run with a
test that kills its worker ends (no hang, as pytest-xdist 3.8's loadgroup did in CI), reports that
test failed once and runs every other test exactly once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFTEST = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from tests.xdist_groups import make_scheduler

def pytest_xdist_make_scheduler(config, log):
    return make_scheduler(config, log, {{"test_group.py": "group", "test_other_group.py": "other"}})
"""
CRASH = "import os\n    os._exit(3)"


def _module(names: list[str], crash: str | None) -> str:
    return "".join(f"def {name}():\n    {CRASH if name == crash else 'pass'}\n\n\n" for name in names)


@pytest.mark.parametrize(
    "crash_in, crash",
    [
        ("test_group.py", "test_g1"),  # inside a group: the rest of the group runs on a replacement
        ("test_solo.py", "test_s0"),  # a test of its own, early: the replacement gets one-test units
        ("test_solo.py", "test_s9"),  # the last solo test: completed units must not come back
    ],
)
def test_a_crashed_worker_is_replaced_and_the_session_ends(tmp_path, crash_in, crash):
    modules = {
        "test_group.py": [f"test_g{i}" for i in range(5)],
        "test_other_group.py": [f"test_o{i}" for i in range(4)],
        "test_solo.py": [f"test_s{i}" for i in range(10)],
    }
    for module, names in modules.items():
        (tmp_path / module).write_text(_module(names, crash if module == crash_in else None))
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-p", "no:cacheprovider", "-rA"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,  # a hang is a failure here, not a CI run that never ends
    )
    out = run.stdout
    assert run.returncode == 1, out[-3000:]
    assert "replacing crashed worker" in out and "1 failed, 18 passed" in out, out[-3000:]
    for names in modules.values():
        for name in names:
            if name != crash:
                assert out.count(f"::{name}\n") + out.count(f"::{name} ") >= 1, (name, out[-3000:])
    assert f"{crash_in}::{crash}" in out
