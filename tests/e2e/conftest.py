"""The end-to-end fixtures: the smoke pipeline, run once per session (per xdist worker: `make
test` runs every local e2e test in one worker, tests/conftest.py XDIST_GROUPS) in a copy of the
workflow and shared by every e2e test that only reads it; copies of that finished run for the tests
that rerun it; the helpers that run Snakemake there. Nothing is installed here: without LaTeX
(`make test-debs` installs it) the PDF rule is left out and the tests that need it skip."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import ROOT, latex_missing

# the timing columns of the results tables: every other column is value-identical from run to run
TIMING = {
    "results/runs.parquet": ["seconds", "opt_seconds"],
    "results/loss.parquet": ["seconds"],
    "results/bipartite.parquet": ["seconds"],
}


def assert_same_tables(work: Path, reference: Path) -> None:
    for path, timing in TIMING.items():
        pd.testing.assert_frame_equal(
            pd.read_parquet(reference / path).drop(columns=timing), pd.read_parquet(work / path).drop(columns=timing)
        )


def omit_pdf() -> list[str]:
    """Without LaTeX the PDF rule is left out (and the tests that need it skip)."""
    return ["--omit-from", "paper_pdf"] if latex_missing() else []


def failure_report(workdir: Path, proc: subprocess.CompletedProcess) -> str:
    """What a failed Snakemake run says about its failed jobs: each "Error in rule" block and the
    end of that job's log (the run's own tail rarely reaches back to the job that failed), then
    the run's tail."""
    out = proc.stdout + proc.stderr
    parts = []
    for block in re.findall(r"^Error in rule .*\n(?:[ \t]+.*\n?)*", out, re.M)[:3]:
        parts.append(block)
        for log in re.findall(r"^\s*log: (.+?)(?: \(check log file\(s\) for error details\))?$", block, re.M):
            for name in log.split(", "):
                path = workdir / name.strip()
                if path.is_file():
                    parts.append(f"--- {name.strip()} (end) ---\n" + "\n".join(path.read_text().splitlines()[-40:]))
    return "\n".join(parts) + "\n--- the run's tail ---\n" + proc.stdout[-2000:] + proc.stderr[-3000:]


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    """Snakemake in ``workdir`` on 2 cores (without LaTeX: the PDF rule left out)."""
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", *omit_pdf(), *args]
    return subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=900)


def start(work: Path, *args: str) -> subprocess.Popen:
    """The smoke pipeline in ``work``, in the background, in its own process group (to be killed)."""
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", *omit_pdf(), "--configfile", "config/smoke.yaml", *args]
    return subprocess.Popen(
        cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )


def copy_workflow(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Snakefile", dest)
    for d in ("workflow", "config", "profiles"):
        shutil.copytree(ROOT / d, dest / d)
    (dest / "paper").mkdir()
    for source in ("main.tex", "references.tex"):  # the paper's hand-written files (the rest is generated)
        shutil.copy(ROOT / "paper" / source, dest / "paper")
    shutil.copytree(ROOT / "paper/sections", dest / "paper/sections")
    return dest


def one_experiment_config(work: Path, name: str = "term") -> str:
    """A copy of the smoke config in ``work`` with its ``anr_tree`` experiment only (no loss,
    bipartite, search or practice section): a run of a few short jobs. Returns its path."""
    import yaml

    cfg = yaml.safe_load((work / "config/smoke.yaml").read_text())
    cfg["experiments"] = {"only": cfg["experiments"]["anr_tree"]}
    for section in ("loss", "bipartite", "search", "practice"):
        cfg.pop(section, None)
    (work / f"config/{name}.yaml").write_text(yaml.safe_dump(cfg))
    return f"config/{name}.yaml"


def copy_run(run: Path, dest: Path) -> Path:
    """A copy of a finished run: its outputs, logs and Snakemake's metadata, modification times kept
    (Snakemake sees it as finished too)."""
    shutil.copytree(run, dest, symlinks=True)
    return dest


@pytest.fixture(scope="session")
def pipeline(tmp_path_factory):
    """The smoke pipeline, run once for the whole e2e session. Tests only read it (dry runs,
    summaries, the report); those that rerun jobs work on a copy (``finished_run``)."""
    work = copy_workflow(tmp_path_factory.mktemp("wf"))
    proc = snakemake(work, "--configfile", "config/smoke.yaml")
    assert proc.returncode == 0, failure_report(work, proc)
    return work


@pytest.fixture
def finished_run(pipeline, tmp_path):
    """A copy of the session's finished smoke run, for a test that reruns some of it."""
    return copy_run(pipeline, tmp_path / "wf")
