"""The smoke pipeline on a real single-node SLURM cluster (tests/e2e/slurm_cluster.py) through
the cluster profile ``workflow/profiles/slurm``: every job a real sbatch job (grouped as the
profile says), the results tables value-identical to the local run's (timing columns aside) and
the figures byte-identical; the cluster's daemons stopped by their PIDs, nothing else touched.

Where SLURM cannot run (not root, no Debian packages) the module is skipped with the reason.
Overrides of the profile, and why: ``--cores 2`` (this node has 2 CPUs: a wider group job would
never start), ``slurm-status-command: squeue`` (no slurmdbd here; MinJobAge 300 s allows it) and a
5-s first status check (the default waits 40 s).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.e2e.conftest import ROOT, copy_workflow, ensure_debs, latex_missing
from tests.e2e.slurm_cluster import DEBS, TOOLS, SlurmCluster, _alive, missing_reason
from tests.e2e.test_pipeline import TIMING, assert_same_tables

_REASON = ensure_debs("a real single-node SLURM", DEBS, TOOLS) or missing_reason()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=str(_REASON))

PROFILE_OVERRIDES = ["--cores", "2", "--slurm-status-command", "squeue",
                     "--slurm-init-seconds-before-status-checks", "5"]


def slurm_snakemake(cluster: SlurmCluster, work: Path, *args: str) -> subprocess.CompletedProcess:
    omit = ["--omit-from", "paper_pdf"] if latex_missing() else []
    cmd = [sys.executable, "-m", "snakemake", "--workflow-profile", "workflow/profiles/slurm", *PROFILE_OVERRIDES,
           *omit, *args]
    return subprocess.run(cmd, cwd=work, env=cluster.env, capture_output=True, text=True, timeout=1500)


@pytest.fixture(scope="module")
def cluster():
    root = Path(tempfile.mkdtemp(prefix="sb-slurm-", dir="/tmp"))  # short: munge's socket lives here
    c = SlurmCluster(root)
    c.start()
    try:
        yield c
        assert c.stop() == [], "a SLURM daemon outlived SIGKILL"
    finally:
        c.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def slurm_run(cluster, tmp_path_factory):
    work = copy_workflow(tmp_path_factory.mktemp("slurm-wf"))
    start = time.monotonic()
    proc = slurm_snakemake(cluster, work, "--configfile", "config/smoke.yaml")
    seconds = time.monotonic() - start
    print(f"smoke pipeline through SLURM: {seconds:.0f} s", file=sys.stderr)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    return work, proc.stdout + proc.stderr


def test_the_cluster_runs_a_batch_job(cluster):
    assert cluster.sbatch_wait("echo hello from $SLURM_JOB_ID").startswith("hello from ")


def test_every_job_ran_and_jobs_were_grouped(slurm_run):
    work, out = slurm_run
    # Snakemake 9.27 can end early with status 0 (groups waiting on each other): nothing is left
    dry = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--configfile", "config/smoke.yaml",
                          *(["--omit-from", "paper_pdf"] if latex_missing() else [])],
                         cwd=work, capture_output=True, text=True, timeout=300)
    assert dry.returncode == 0 and "Nothing to be done" in dry.stdout + dry.stderr, dry.stdout[-2000:]
    submitted = out.count("has been submitted with SLURM jobid")
    remote = sum(1 for line in out.splitlines() if line.strip().startswith("rule "))
    grouped = out.count("Group job ")
    assert submitted >= 3 and grouped >= 1
    assert submitted < remote  # grouping: fewer cluster jobs than jobs
    # (the plugin deletes the SLURM logs of jobs that succeeded: .snakemake/slurm_logs is empty)


def test_tables_are_value_identical_to_the_local_run(slurm_run, pipeline):
    work, _ = slurm_run
    assert_same_tables(work, pipeline)
    for path in ["results/worst_cases.parquet", "results/loss_slopes.parquet", "results/bipartite_checks.parquet"]:
        pd.testing.assert_frame_equal(pd.read_parquet(pipeline / path).drop(columns=["seconds"], errors="ignore"),
                                      pd.read_parquet(work / path).drop(columns=["seconds"], errors="ignore"))


def test_figures_are_identical_to_the_local_run(slurm_run, pipeline):
    work, _ = slurm_run
    local = sorted(p.relative_to(pipeline) for p in (pipeline / "paper/figures").glob("*.png"))
    assert local and local == sorted(p.relative_to(work) for p in (work / "paper/figures").glob("*.png"))
    differ = [str(p) for p in local if (pipeline / p).read_bytes() != (work / p).read_bytes()]
    assert differ == []
    tables = sorted((pipeline / "paper/tables").glob("*.tex"))
    assert [t.name for t in tables] == sorted(t.name for t in (work / "paper/tables").glob("*.tex"))
    assert [t.name for t in tables if t.read_text() != (work / "paper/tables" / t.name).read_text()] == []


def test_long_jobs_log_their_progress(slurm_run):
    work, _ = slurm_run
    line = next(l for l in (work / "results/logs/loss_points").glob("*.log")).read_text()
    assert "progress: starting" in line and "points (100 %)" in line and "events at" in line and "ETA 0:00:00" in line


def test_status_summarises_the_cluster_run(slurm_run):
    work, _ = slurm_run
    proc = subprocess.run([sys.executable, "-m", "schedbench.cli", "status", str(work)], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert ": finished" in proc.stdout.splitlines()[0]
    assert " running, 0 failed" in proc.stdout and "SLURM jobs submitted" in proc.stdout
    assert "slowest rules" in proc.stdout


def test_stop_ends_exactly_the_daemons_it_started(cluster, tmp_path):
    # Last in this module (it stops the module's cluster). A decoy named like a SLURM daemon, not
    # started by the cluster: it must survive the stop.
    decoy_bin = tmp_path / "slurmd"
    shutil.copy(shutil.which("sleep"), decoy_bin)
    decoy = subprocess.Popen([str(decoy_bin), "300"])
    try:
        pids = dict(cluster.started)
        assert set(pids) == {"munged", "slurmctld", "slurmd"}
        assert Path("/etc/slurm/slurm.conf").read_bytes() == cluster.conf.read_bytes()
        assert cluster.stop() == []
        assert not any(_alive(pid, name) for name, pid in pids.items())
        assert _alive(decoy.pid, "slurmd")  # same name, not ours: untouched
        assert not Path("/etc/slurm/slurm.conf").exists()  # the default-path copy is removed
        assert cluster.stop() == []  # idempotent
        # a conf left by a killed run of this module (its daemons gone) does not block the next
        stale = cluster.conf.read_text()
        Path("/etc/slurm").mkdir(parents=True, exist_ok=True)
        Path("/etc/slurm/slurm.conf").write_text(stale)
        assert missing_reason() is None and not Path("/etc/slurm/slurm.conf").exists()
        # a conf this module did not write is never touched
        Path("/etc/slurm/slurm.conf").write_text("ClusterName=someone-else\n")
        try:
            assert "leaves it alone" in missing_reason()
        finally:
            Path("/etc/slurm/slurm.conf").unlink()
    finally:
        decoy.kill()
        decoy.wait()
