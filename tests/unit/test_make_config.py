"""`make run CONFIG=FILE` checks the config path before Snakemake reads it: Snakemake opens a
``--configfile`` itself, before any of the workflow's code runs (a FIFO blocks it forever, a
folder ends in a traceback), so the Makefile runs ``schedbench check-config FILE`` first, which
refuses a FIFO, a device or a folder by name (docs/hostile-input.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def _recipe(*args: str) -> list[str]:
    """The commands ``make -n`` would run (the environment's installation lines left out)."""
    done = subprocess.run(
        ["make", "-n", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=60, check=True
    )
    return [line for line in done.stdout.splitlines() if "schedbench " in line or "snakemake " in line]


def test_make_run_with_a_config_checks_it_before_snakemake_reads_it(tmp_path, capsys):
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    lines = _recipe("run", f"CONFIG={fifo}")
    assert len(lines) == 2, lines
    assert lines[0].endswith(f"/schedbench check-config {fifo}")
    assert lines[1].endswith(f"/snakemake --cores all --configfile {fifo}")
    # the first command refuses the FIFO by name, at once (make stops there: Snakemake never starts)
    from schedbench.cli import main

    t0 = time.perf_counter()
    code = main(["check-config", str(fifo)])
    err = capsys.readouterr().err
    assert code == 2 and time.perf_counter() - t0 < 10
    assert (
        err
        == f"schedbench: error: {fifo}: not a regular file (a FIFO, a device or a socket): a config is a YAML text file\n"
    )


def test_make_run_without_a_config_runs_the_paper_config_as_before():
    assert [line.split("/")[-1] for line in _recipe("run")] == ["snakemake --cores all"]


def test_make_report_takes_the_same_config():
    lines = _recipe("report", "CONFIG=config/smoke.yaml")
    assert lines[-1].endswith("/snakemake --report report.html --configfile config/smoke.yaml"), lines


def test_a_base_config_that_is_a_fifo_is_refused_by_name_before_any_read(tmp_path, capsys):
    """The Snakefile's own reading (``hall.config``: the default config, a ``base:`` file) never
    opens a FIFO: what Snakemake does not read itself is refused by name."""
    from schedbench.cli import main

    os.mkfifo(tmp_path / "base.yaml")
    (tmp_path / "my.yaml").write_text("base: base.yaml\nseed: 1\n")
    t0 = time.perf_counter()
    code = main(["check-config", str(tmp_path / "my.yaml")])
    err = capsys.readouterr().err
    assert code == 2 and time.perf_counter() - t0 < 10 and err.count("\n") == 1
    assert f"{tmp_path / 'my.yaml'}: base: {tmp_path / 'base.yaml'} is not a file" in err, err
