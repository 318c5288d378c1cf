"""End to end: Snakemake runs in their own copy of the workflow, not the session's smoke run
(tests/e2e/conftest.py ``pipeline``): configs given, refused or reduced to one experiment, a user's
plug-ins in the pipeline, and a SIGTERM'd local run resumed. Outside the local e2e group of
tests/conftest.py ``XDIST_GROUPS`` (they share nothing with it), so ``make test`` runs them on
whichever worker is free."""

import hashlib
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.e2e.conftest import (
    copy_workflow,
    omit_pdf,
    one_experiment_config,
    snakemake,
)

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.e2e


def test_given_config_replaces_the_default_one(tmp_path):
    # Snakemake merges --configfile into a `configfile:` default; the Snakefile must not, or a
    # one-experiment config would silently inherit the paper's other experiments.
    work = copy_workflow(tmp_path / "wf")
    cfg = yaml.safe_load((work / "config/smoke.yaml").read_text())
    cfg["experiments"] = {"only_this": cfg["experiments"]["anr_tree"]}
    (work / "config/one.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, "--configfile", "config/one.yaml", "-n")
    assert proc.returncode == 0, proc.stderr[-3000:]
    experiments = set(re.findall(r"results/(\w+)/instances/", proc.stdout + proc.stderr))
    assert experiments == {"only_this"}


@pytest.mark.parametrize(
    "edit, key",
    [
        (lambda c: c.update(expriments=c.pop("experiments")), "expriments"),
        (lambda c: c["experiments"]["random_unit"].update(instance=3), "instance"),
        (lambda c: c.update(seed="seven"), "seven"),
        (
            lambda c: c["experiments"]["random_unit"]["algorithms"].update({"lb-unit-reject": {"alpha_rul": "safe"}}),
            "experiments.random_unit.algorithms.lb-unit-reject",
        ),
    ],
)
def test_bad_config_fails_before_any_job_naming_the_key(tmp_path, edit, key):
    work = copy_workflow(tmp_path / "wf")
    cfg = yaml.safe_load((work / "config/smoke.yaml").read_text())
    edit(cfg)
    (work / "config/bad.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, "--configfile", "config/bad.yaml")
    assert proc.returncode != 0
    assert key in proc.stdout + proc.stderr
    assert not (work / "results").exists()


def test_the_default_profile_is_in_effect(tmp_path):
    work = copy_workflow(tmp_path / "wf")
    proc = snakemake(work, "--configfile", "config/smoke.yaml", "-n")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Using workflow specific profile profiles/default" in proc.stdout + proc.stderr


def test_every_valid_config_produces_every_figure(tmp_path):
    # one plain algorithm, no adversary, no loss or bipartite section: every target still builds
    work = copy_workflow(tmp_path / "wf")
    cfg = yaml.safe_load((work / "config/smoke.yaml").read_text())
    cfg["experiments"] = {
        "only": {"family": "anr-tree", "params": {"K": 3}, "instances": 1, "algorithms": {"greedy": None}}
    }
    for section in ("loss", "bipartite"):
        cfg.pop(section)
    (work / "config/one.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, "--configfile", "config/one.yaml")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for fig in ("ratio_vs_eps_load", "rejection_vs_eps_load", "adversary_rounds"):
        assert (work / f"paper/figures/{fig}.pdf").read_bytes().startswith(b"%PDF")


def test_config_file_errors_name_the_file_and_line(tmp_path):
    work = copy_workflow(tmp_path / "wf")
    (work / "config/dup.yaml").write_text((work / "config/smoke.yaml").read_text() + "seed: 8\n")
    proc = snakemake(work, "--configfile", "config/dup.yaml", "-n")
    assert proc.returncode != 0 and "key 'seed' given twice" in proc.stdout + proc.stderr


def test_an_out_of_tree_plugin_runs_in_the_pipeline_and_an_edit_reruns_exactly_its_jobs(tmp_path):
    # docs/plugins.md: the config's `plugins:` names a user's folder; its algorithm runs in the
    # pipeline like a built-in, and its file is a declared input of the jobs that use it
    from tests.unit.test_plugins import LEAST_INDEX

    work = copy_workflow(tmp_path / "wf")
    plug = tmp_path / "userplugins"
    plug.mkdir()
    (plug / "least_index.py").write_text(LEAST_INDEX)
    for kind, name in (("adversary", "my-trap"), ("family", "my-fam")):  # the scaffold's plug-ins
        made = subprocess.run(
            [sys.executable, "-m", "schedbench.cli", "new", kind, name, "--dir", str(plug)],
            capture_output=True,
            text=True,
        )
        assert made.returncode == 0, made.stderr
    family = {"family": "random-restricted", "params": {"m": 4, "n": 30, "d": 2, "sizes": "unit"}, "instances": 1}
    cfg = {
        "seed": 3,
        "eps": [0.25],
        "plugins": [str(plug)],
        "experiments": {
            "with_plugin": {**family, "algorithms": {"least-index": None, "greedy": None}},
            "without_plugin": {**family, "algorithms": {"greedy": None}},
            "plugin_adversary": {"adversary": "my-trap", "algorithms": {"greedy": None}},
            "plugin_family": {"family": "my-fam", "instances": 1, "algorithms": {"greedy": None}},
        },
    }
    (work / "config/plug.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, "results/runs.parquet", "paper/tables/methods.tex", "--configfile", "config/plug.yaml")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "least-index" in (work / "paper/tables/methods.tex").read_text()  # the paper's method table
    runs = pd.read_parquet(work / "results/runs.parquet")
    mine = runs[runs["algorithm"] == "least-index"]
    assert len(mine) == 1 and (mine["status"] == "ok").all() and (mine["experiment"] == "with_plugin").all()
    assert set(runs[runs["experiment"] == "plugin_adversary"]["family"]) == {"my-trap"}
    assert set(runs[runs["experiment"] == "plugin_family"]["family"]) == {"my-fam"}
    assert (runs["status"] == "ok").all()
    packages = json.loads(runs["packages"].iloc[0])  # the plug-in's content is in the provenance
    assert packages["plug-in least_index.py"] == hashlib.sha256(LEAST_INDEX.encode()).hexdigest()
    path = plug / "least_index.py"
    path.write_text(LEAST_INDEX + "\n# edited\n")
    proc = snakemake(work, "results/runs.parquet", "--configfile", "config/plug.yaml", "-n")
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    assert re.search(r"^run_online\s+1$", out, re.M), out[-3000:]  # the plug-in's batch only
    assert re.search(r"output: results/with_plugin/online/batch-0\.parquet", out)
    assert not re.search(r"output: results/without_plugin/online/", out)
    assert not re.search(r"^(make_instances|solve_offline)\s+\d+$", out, re.M)
    # a plug-in that stops importing fails the run before any job, naming its file and line
    path.write_text("import nothing_of_that_name\n")
    proc = snakemake(work, "results/runs.parquet", "--configfile", "config/plug.yaml", "-n")
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert f"{path.resolve()}:1" in out and "ModuleNotFoundError" in out, out[-3000:]


def _plugin_job_fails(tmp_path, file: str, source: str, limit: float, experiment: dict, target: str, log: str):
    """A one-experiment run (``experiment`` named after ``file``'s stem) with the plug-in ``source``
    in a folder of its own and ``plugin_time_limit`` = ``limit``: the ``target`` job fails; returns
    (workflow copy, plug-in path, the ``error:`` lines of the job's ``log``), no traceback anywhere."""
    work = copy_workflow(tmp_path / "wf")
    plug = tmp_path / "userplugins"
    plug.mkdir()
    (plug / file).write_text(source)
    name = Path(file).stem.split("_")[0]
    cfg = {
        "seed": 3,
        "eps": [0.25],
        "plugins": [str(plug)],
        "plugin_time_limit": limit,
        "experiments": {name: experiment},
    }
    (work / "config/mine.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, target, "--configfile", "config/mine.yaml")
    assert proc.returncode != 0
    text = (work / log).read_text()
    assert "Traceback" not in text and "Traceback" not in proc.stderr
    return work, (plug / file).resolve(), [line for line in text.splitlines() if line.startswith("error:")]


def test_a_plugin_that_hangs_fails_its_job_with_one_line_and_no_output(tmp_path):
    # config `plugin_time_limit`: a run of a plug-in past it ends its run_online job, the log
    # saying so in one line (no traceback), no batch table written; the other jobs are kept
    from tests.unit.test_time_limits import HANGS

    family = {"family": "random-restricted", "params": {"m": 4, "n": 12, "d": 2, "sizes": "unit"}, "instances": 1}
    experiment = {**family, "problem": "maxflow", "algorithms": {"hangs-forever": None}}
    work, plug, errors = _plugin_job_fails(
        tmp_path, "hangs_forever.py", HANGS, 2, experiment, "results/hangs/online/batch-0.parquet",
        "results/logs/run_online/hangs-0.log",
    )  # fmt: skip
    assert errors == [
        f"error: run_online: plug-in {plug}: algorithm 'hangs-forever': no answer "
        "within the run time limit of 2 s (a decision that never returns? the limit: compare --plugin-time-limit, "
        "the config's plugin_time_limit); instance hangs/0000, eps None"
    ], errors
    assert not (work / "results/hangs/online/batch-0.parquet").exists()
    assert (work / "results/hangs/opt/batch-0.parquet").exists()  # what was done is kept


def test_a_family_plugin_whose_generator_hangs_fails_make_instances_with_one_line(tmp_path):
    # config `plugin_time_limit` limits a plug-in family's generation too: its make_instances job
    # fails, the log saying so in one line naming the plug-in and the family, no batch written
    from tests.unit.test_plugin_time_limits import FAMILY

    experiment = {"family": "loops-family", "instances": 1, "algorithms": {"greedy": None}}
    work, plug, errors = _plugin_job_fails(
        tmp_path, "loops_family.py", FAMILY.format(name="loops-family"), 1, experiment,
        "results/loops/instances/batch-0", "results/logs/make_instances/loops-0.log",
    )  # fmt: skip
    assert errors == [
        f"error: make_instances: plug-in {plug}: family 'loops-family': instance 0: "
        "not generated within the run time limit of 1 s (a generator that never returns? the limit: compare "
        "--plugin-time-limit, the config's plugin_time_limit)"
    ], errors
    assert not (work / "results/loops/instances/batch-0").exists()


def _processes_in(work: Path) -> list[str]:
    """The command lines of live processes that name ``work`` (a job left running)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(work) in cmdline:
            found.append(cmdline)
    return found


def test_a_sigterm_ends_a_local_run_in_time_and_the_same_command_resumes(tmp_path):
    # hall/stop.py: Snakemake's own SIGTERM waits for every running job; the Snakefile's onstart
    # stops them instead, so that the run ends within STOP_SECONDS and the same command resumes
    from schedbench.hall.stop import STOP_SECONDS

    work = copy_workflow(tmp_path / "wf")
    one_experiment_config(work)
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", *omit_pdf(), "--configfile", "config/term.yaml"]
    run = subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for line in run.stdout:
            if "Finished jobid" in line:  # jobs are under way
                break
        t0 = time.monotonic()
        run.send_signal(signal.SIGTERM)  # to Snakemake alone, as `kill PID` or a batch system sends it
        rest, _ = run.communicate(timeout=STOP_SECONDS + 60)
        elapsed = time.monotonic() - t0
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert elapsed <= STOP_SECONDS and "schedbench: SIGTERM: stopping the running jobs" in rest, rest[-3000:]
    time.sleep(1)
    assert _processes_in(work) == []  # no job left running
    for table in (work / "results").rglob("*.parquet"):  # nothing half-written in an output's place
        pd.read_parquet(table)
    again = snakemake(work, "--configfile", "config/term.yaml")  # the same command resumes
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    dry = snakemake(work, "--configfile", "config/term.yaml", "-n")
    assert "Nothing to be done" in dry.stdout + dry.stderr
