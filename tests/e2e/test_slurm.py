"""The pipeline on a real single-node SLURM cluster (tests/e2e/slurm_cluster.py) through the
cluster profile ``workflow/profiles/slurm``: every job a real sbatch job (grouped as the profile
says), the results tables value-identical to a local run's of the same config (timing columns
aside), the figures and LaTeX tables byte-identical; the cluster's daemons stopped by their PIDs,
nothing else touched.

The config is a part of the smoke one (``slurm_config``): three experiments (a family and two
adversaries, three problems), one loss and one bipartite experiment, one search task — every rule
of the workflow runs, the grouped ones in group jobs, 17 remote jobs instead of the smoke config's
81 (the cluster's cost is per job: submission, status checks, a Snakemake per job step). Its local
twin runs beside the SLURM run, on the same 2 cores.

Where SLURM cannot run (not root, the Debian packages missing: `make test-debs` installs them) the
module is skipped with the reason. Overrides of the profile, and why: ``--cores 2`` (this node has
2 CPUs: a wider group job would never start), ``slurm-status-command: squeue`` (no slurmdbd here;
MinJobAge 300 s allows it) and a 2-s first status check (the default waits 40 s).
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from schedbench.hall.stop import STOP_SECONDS
from tests.conftest import tools_missing
from tests.e2e.conftest import assert_same_tables, copy_workflow, failure_report, omit_pdf, one_experiment_config
from tests.e2e.slurm_cluster import DEBS, TOOLS, SlurmCluster, _alive, missing_reason

pytestmark = [pytest.mark.e2e, pytest.mark.slurm]

PROFILE_OVERRIDES = [
    "--cores",
    "2",
    "--slurm-status-command",
    "squeue",
    "--slurm-init-seconds-before-status-checks",
    "2",
]
CONFIG = "config/slurm-test.yaml"
# the remote rules: each runs as (part of) an sbatch job
REMOTE_RULES = {
    "make_instances",
    "solve_offline",
    "run_online",
    "run_adversary",
    "loss_points",
    "bipartite_groups",
    "worst_case_task",
    "eps_sweep_algorithm",
    "bipartite_checks",
    "practice_family",
}


def slurm_config(work: Path) -> str:
    """Writes the module's config (a part of config/smoke.yaml) into ``work``; returns its path."""
    cfg = yaml.safe_load((work / "config/smoke.yaml").read_text())
    cfg["experiments"] = {k: cfg["experiments"][k] for k in ("anr_tree", "idisp_tree", "section4")}
    # a scaling series (A5 alone, at fixed n, gives an empty slope table, on which loss_tables fails)
    cfg["loss"]["experiments"] = {k: cfg["loss"]["experiments"][k] for k in ("A3_log_sampling",)}
    cfg["bipartite"]["experiments"] = {k: cfg["bipartite"]["experiments"][k] for k in ("B3_sparsity",)}
    cfg["search"]["tasks"] = {k: cfg["search"]["tasks"][k] for k in ("greedy_anr_m4",)}
    (work / CONFIG).write_text(yaml.safe_dump(cfg))
    return CONFIG


def slurm_snakemake(cluster: SlurmCluster, work: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [
        sys.executable,
        "-m",
        "snakemake",
        "--workflow-profile",
        "workflow/profiles/slurm",
        *PROFILE_OVERRIDES,
        *omit_pdf(),
        *args,
    ]
    return subprocess.run(cmd, cwd=work, env=cluster.env, capture_output=True, text=True, timeout=1500)


@pytest.fixture(scope="module")
def cluster():
    reason = tools_missing("a real single-node SLURM", tuple(DEBS), tuple(TOOLS)) or missing_reason()
    if reason:
        pytest.skip(reason)
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
    """The module's config through SLURM and, beside it in the background, locally (the cluster
    run mostly waits for submissions and status checks): (SLURM work dir, its output, local work dir)."""
    work = copy_workflow(tmp_path_factory.mktemp("slurm-wf"))
    local = copy_workflow(tmp_path_factory.mktemp("local-wf"))
    config = slurm_config(work)
    slurm_config(local)
    local_out = local.parent / f"{local.name}.out"
    with open(local_out, "w") as out:
        twin = subprocess.Popen(
            [sys.executable, "-m", "snakemake", "--cores", "2", *omit_pdf(), "--configfile", config],
            cwd=local,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        start = time.monotonic()
        proc = slurm_snakemake(cluster, work, "--configfile", config)
        print(f"{config} through SLURM: {time.monotonic() - start:.0f} s", file=sys.stderr)
        assert proc.returncode == 0, failure_report(work, proc)
        assert twin.wait(timeout=900) == 0, local_out.read_text()[-5000:]
    finally:
        if twin.poll() is None:
            os.killpg(twin.pid, signal.SIGKILL)
            twin.wait()
    return work, proc.stdout + proc.stderr, local


def test_the_cluster_runs_a_batch_job(cluster):
    assert cluster.sbatch_wait("echo hello from $SLURM_JOB_ID").startswith("hello from ")


def test_every_job_ran_and_jobs_were_grouped(slurm_run):
    work, out, _ = slurm_run
    # Snakemake 9.27 can end early with status 0 (groups waiting on each other): nothing is left
    dry = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--configfile", CONFIG, *omit_pdf()],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert dry.returncode == 0 and "Nothing to be done" in dry.stdout + dry.stderr, dry.stdout[-2000:]
    # every rule of the workflow ran (the PDF's unless LaTeX is missing), the remote ones on the cluster
    listed = subprocess.run(
        [sys.executable, "-m", "snakemake", "--list-rules"], cwd=work, capture_output=True, text=True, timeout=300
    )
    rules = {line.split()[0] for line in listed.stdout.splitlines() if line.strip() and not line[0].isspace()}
    ran = set(re.findall(r"^\s*(?:local)?rule (\w+):\s*$", out, re.M))
    assert REMOTE_RULES < rules and ran == rules - ({"paper_pdf"} if omit_pdf() else set()), (rules, ran)
    assert set(re.findall(r"^\s*rule (\w+):\s*$", out, re.M)) == REMOTE_RULES
    submitted = out.count("has been submitted with SLURM jobid")
    remote = sum(1 for line in out.splitlines() if line.strip().startswith("rule "))
    grouped = out.count("Group job ")
    assert submitted >= 3 and grouped >= 1
    assert submitted < remote  # grouping: fewer cluster jobs than jobs
    # (the plugin deletes the SLURM logs of jobs that succeeded: .snakemake/slurm_logs is empty)


def test_tables_are_value_identical_to_the_local_run(slurm_run):
    work, _, pipeline = slurm_run
    assert_same_tables(work, pipeline)
    for path in [
        "results/worst_cases.parquet",
        "results/eps_sweep.parquet",
        "results/loss_slopes.parquet",
        "results/bipartite_checks.parquet",
    ]:
        pd.testing.assert_frame_equal(
            pd.read_parquet(pipeline / path).drop(columns=["seconds"], errors="ignore"),
            pd.read_parquet(work / path).drop(columns=["seconds"], errors="ignore"),
        )


def test_figures_are_identical_to_the_local_run(slurm_run):
    work, _, pipeline = slurm_run
    local = sorted(p.relative_to(pipeline) for p in (pipeline / "paper/figures").glob("*.png"))
    assert local and local == sorted(p.relative_to(work) for p in (work / "paper/figures").glob("*.png"))
    differ = [str(p) for p in local if (pipeline / p).read_bytes() != (work / p).read_bytes()]
    assert differ == []
    tables = sorted((pipeline / "paper/tables").glob("*.tex"))
    assert [t.name for t in tables] == sorted(t.name for t in (work / "paper/tables").glob("*.tex"))
    assert [t.name for t in tables if t.read_text() != (work / "paper/tables" / t.name).read_text()] == []


def test_long_jobs_log_their_progress(slurm_run):
    work, _, _ = slurm_run
    line = next((work / "results/logs/loss_points").glob("*.log")).read_text()
    assert "progress: starting" in line and "points (100 %)" in line and "events at" in line and "ETA 0:00:00" in line


def test_status_summarises_the_cluster_run(slurm_run):
    work, _, _ = slurm_run
    proc = subprocess.run(
        [sys.executable, "-m", "schedbench.cli", "status", str(work)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert ": finished" in proc.stdout.splitlines()[0]
    assert " running, 0 failed" in proc.stdout and "SLURM jobs submitted" in proc.stdout
    assert "slowest rules" in proc.stdout


def _squeue(cluster: SlurmCluster) -> list[str]:
    proc = subprocess.run(["squeue", "-h", "-o", "%i %T"], env=cluster.env, capture_output=True, text=True, timeout=30)
    return proc.stdout.split("\n")[:-1]


def _sigterm_when_submitted(cluster: SlurmCluster, work: Path, config: str, frozen_controller: bool) -> float:
    """Start the SLURM-profile run, SIGTERM its Snakemake process (alone, not its group) once a job
    is on the cluster — with the controller frozen (SIGSTOP: it no longer answers, as one gone
    away) if asked — and return the seconds until it exited."""
    cmd = [sys.executable, "-m", "snakemake", "--workflow-profile", "workflow/profiles/slurm", *PROFILE_OVERRIDES]
    run = subprocess.Popen(
        [*cmd, *omit_pdf(), "--configfile", config],
        cwd=work,
        env=cluster.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    controller = cluster.started["slurmctld"]
    try:
        out = []
        for line in run.stdout:
            out.append(line)
            if "has been submitted with SLURM jobid" in line:
                break
        assert any("has been submitted with SLURM jobid" in line for line in out), "".join(out)[-3000:]
        time.sleep(3)  # the job starts on the node
        if frozen_controller:
            os.kill(controller, signal.SIGSTOP)
        t0 = time.monotonic()
        run.send_signal(signal.SIGTERM)
        rest, _ = run.communicate(timeout=STOP_SECONDS + 60)
        elapsed = time.monotonic() - t0
        assert "schedbench: SIGTERM: stopping the running jobs" in rest, rest[-3000:]
        return elapsed
    finally:
        if frozen_controller:
            os.kill(controller, signal.SIGCONT)
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()


def test_a_sigterm_ends_a_cluster_run_in_time_and_the_same_command_resumes(cluster, tmp_path):
    """A SIGTERM to the Snakemake process of a SLURM-profile run (as a batch system or ``kill``
    sends it): the run ends within STOP_SECONDS, its cluster jobs cancelled; with the controller
    not answering (frozen) it still ends in time; the same command then finishes the run."""
    work = copy_workflow(tmp_path / "wf")
    config = one_experiment_config(work)

    elapsed = _sigterm_when_submitted(cluster, work, config, frozen_controller=False)
    print(f"SIGTERM, controller answering: ended after {elapsed:.1f} s", file=sys.stderr)
    assert elapsed <= STOP_SECONDS
    deadline = time.monotonic() + 60
    while _squeue(cluster) and time.monotonic() < deadline:  # cancelled: gone from the queue
        time.sleep(2)
    assert _squeue(cluster) == []

    elapsed = _sigterm_when_submitted(cluster, work, config, frozen_controller=True)
    print(f"SIGTERM, controller frozen: ended after {elapsed:.1f} s", file=sys.stderr)
    assert elapsed <= STOP_SECONDS

    for table in (work / "results").rglob("*.parquet"):  # nothing half-written in an output's place
        pd.read_parquet(table)
    again = slurm_snakemake(cluster, work, "--configfile", config)  # the same command resumes
    assert again.returncode == 0, failure_report(work, again)
    dry = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--configfile", config, *omit_pdf()],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Nothing to be done" in dry.stdout + dry.stderr, dry.stdout[-2000:]


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
