"""The run planner against the pipeline itself (docs/run-planner.md): its job and run counts are
those of Snakemake's job list and of the finished smoke run's tables; a config it estimates past
its limits is refused before any job, and runs with accept_cost."""

import re

import pandas as pd
import pytest
import yaml

from schedbench.checks import check_config, plan_config
from schedbench.hall.config import load_config

from .conftest import copy_workflow, latex_missing, snakemake

pytestmark = pytest.mark.e2e

STAGE_RULES = {
    "make_instances": "make_instances",
    "solve_offline": "solve_offline",
    "run_online": "run_online",
    "adversary": "run_adversary",
    "search": "worst_case_task",
    "eps_sweep": "eps_sweep_algorithm",
}


def _plan(work):
    config = load_config([work / "config/smoke.yaml"], work / "workflow/schemas/config.schema.yaml")
    check_config(config)
    return plan_config(config)


def test_the_plan_counts_the_jobs_snakemake_schedules_and_the_runs_the_tables_hold(pipeline):
    plan = _plan(pipeline)
    proc = snakemake(pipeline, "--configfile", "config/smoke.yaml", "-n", "--forceall")
    assert proc.returncode == 0, proc.stderr[-3000:]
    scheduled = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", proc.stdout, re.M)}
    scheduled.pop("total", None)  # the job stats' sum row
    planned = {}
    for s in plan.stages:
        rule = STAGE_RULES.get(s.stage, s.stage)  # the loss and bipartite stages are named by their rules
        planned[rule] = planned.get(rule, 0) + s.jobs
    if latex_missing():  # the tests leave the PDF out without LaTeX (conftest.omit_pdf)
        planned.pop("paper_pdf")
    assert planned == {rule: scheduled.get(rule, 0) for rule in planned}, (planned, scheduled)
    assert set(scheduled) - set(planned) <= {"source_manifest", "all"}  # every other rule is planned
    runs = pd.read_parquet(pipeline / "results/runs.parquet")
    per_experiment = runs.groupby("experiment").size().to_dict()
    counted = {}
    for s in plan.stages:
        if s.stage in ("run_online", "adversary"):
            name = s.section.split(".", 1)[1]
            counted[name] = counted.get(name, 0) + s.runs
    assert counted == per_experiment


def test_a_config_past_the_limits_is_refused_before_any_job_and_runs_when_accepted(tmp_path):
    work = copy_workflow(tmp_path / "wf")
    cfg = yaml.safe_load((work / "config/smoke.yaml").read_text())
    # about 130 h of CPU against the 24-h limit: refused however fast the machine measures itself
    # (1000 instances, about 27 h, passed on a quiet fast machine); big batches keep the DAG small
    big = {"family": "random-restricted", "params": {"m": 4096, "n": 20_000_000, "d": 2}, "instances": 5000}
    cfg["batch_size"] = 100
    cfg["experiments"]["huge"] = {**big, "algorithms": {"greedy": None}}
    (work / "config/huge.yaml").write_text(yaml.safe_dump(cfg))
    proc = snakemake(work, "--configfile", "config/huge.yaml", "-n")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "accept_cost" in out and "experiments.huge" in out
    assert not (work / "results").exists()
    proc = snakemake(work, "--configfile", "config/huge.yaml", "-n", "--config", "accept_cost=True")
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
