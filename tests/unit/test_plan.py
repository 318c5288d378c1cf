"""The run planner's estimates and limits (schedbench.hall.plan, scheduling/stage/plan.py,
docs/run-planner.md); its counts are checked against a real pipeline in tests/e2e/test_plan.py."""

import math

import pytest

from schedbench.checks import plan_config
from schedbench.cli import main
from schedbench.hall.plan import MAX_CPU_HOURS, Plan, StageEstimate, check_cost

BASE = {"seed": 1, "eps": [0.5, 0.25], "batch_size": 10, "opt": {"work_limit": 60, "time_limit": 600}}


def config(**experiments):
    return {**BASE, "experiments": experiments}


def family(n, m, instances, algorithms, **params):
    return {
        "family": "random-restricted",
        "params": {"n": n, "m": m, "d": 2, **params},
        "instances": instances,
        "algorithms": algorithms,
    }


def test_counts_follow_batches_grids_and_eps():
    plan = plan_config(
        config(e=family(1000, 8, 25, {"greedy": None, "lb-unit-reject": {"alpha_rule": ["safe", "paper"]}}))
    )
    stages = {s.stage: s for s in plan.stages}
    assert stages["make_instances"].jobs == 3 and stages["make_instances"].runs == 25
    # greedy is plain (one run), lb-unit-reject two parameter values × two ε
    assert stages["run_online"].runs == 25 * (1 + 2 * 2)
    assert stages["run_online"].work == 25 * 5 * 1000


def test_the_estimate_grows_with_the_work():
    small = plan_config(config(e=family(1000, 8, 10, {"greedy": None})))
    large = plan_config(config(e=family(100_000, 8, 10, {"greedy": None})))
    assert large.cpu_hours > small.cpu_hours and large.peak_bytes > small.peak_bytes


def test_a_config_that_would_run_for_days_is_refused_by_name_unless_accepted():
    huge = config(huge=family(20_000_000, 4096, 1000, {"ll-fifo": None}, sizes="uniform"))
    plan = plan_config(huge)
    assert plan.cpu_hours > MAX_CPU_HOURS
    problem = check_cost(plan, accept=False)
    assert "experiments.huge" in problem and "accept_cost: true" in problem
    assert check_cost(plan, accept=True) is None


def test_a_job_larger_than_the_memory_is_refused():
    stage = StageEstimate("experiments.x", "run_online", 1, 1, 1.0, 1.0, 10e9)
    problem = check_cost(Plan([stage], speed=1.0, memory=8e9), accept=False)
    assert "memory" in problem and "experiments.x" in problem
    assert check_cost(Plan([stage], speed=1.0, memory=64e9), accept=False) is None


def test_a_sized_solve_counts_at_most_its_work_limit():
    cfg = config(e=family(100_000, 64, 10, {"ll-fifo": None}, sizes="uniform"))
    cfg["experiments"]["e"]["problem"] = "maxflow"
    opt = next(s for s in plan_config(cfg).stages if s.stage == "solve_offline")
    assert opt.cpu_seconds <= 1 * 2.0 + 10 * (60 + 100_000 * 1.6e-5) + 1e-9


@pytest.mark.parametrize("command", ["plan", "check-config"])
def test_the_cli_prints_the_estimate(command, capsys, tmp_path):
    import yaml

    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(config(e=family(1000, 8, 4, {"greedy": None}))))
    assert main([command, str(path)]) == 0
    out = capsys.readouterr().out
    assert "estimated cost:" in out and "jobs" in out
    if command == "plan":
        assert "experiments.e" in out and "run_online" in out


def test_the_calibration_is_a_finite_positive_factor():
    from schedbench.hall.plan import calibration

    assert math.isfinite(calibration()) and calibration() > 0


def test_the_calibration_is_probed_once_per_machine_then_read(tmp_path, monkeypatch):
    """The estimate of a config does not move with the machine's load: the probe's factor is
    recorded per machine and read back by every later process; the environment overrides it."""
    import schedbench.hall.plan as plan

    monkeypatch.setattr(plan, "CALIBRATION_FILE", tmp_path / "calibration.json")
    monkeypatch.delenv("SCHEDBENCH_CALIBRATION", raising=False)
    probes = []
    monkeypatch.setattr(plan, "_probe", lambda: probes.append(1) or 0.12)  # twice the reference's 0.06 s
    monkeypatch.setattr(plan, "_SPEED", [])
    assert plan.calibration() == 2.0 and probes == [1]
    monkeypatch.setattr(plan, "_SPEED", [])  # a new process
    monkeypatch.setattr(plan, "_probe", lambda: 0.6)  # the machine is busy now: not probed again
    assert plan.calibration() == 2.0
    monkeypatch.setattr(plan, "_SPEED", [])
    monkeypatch.setenv("SCHEDBENCH_CALIBRATION", "1.5")
    assert plan.calibration() == 1.5
    monkeypatch.setattr(plan, "_SPEED", [])
    monkeypatch.setenv("SCHEDBENCH_CALIBRATION", "nan")
    with pytest.raises(ValueError, match="SCHEDBENCH_CALIBRATION='nan': must be in"):
        plan.calibration()


def _output_jobs(cfg) -> dict[str, int]:
    return {s.stage: s.jobs for s in plan_config(cfg).stages if s.section in ("tables", "figures", "paper")}


def test_the_tables_figures_and_paper_are_counted_as_snakemake_schedules_them():
    # Snakemake's job list of this config (`snakemake -n`), source manifests aside
    cfg = config(e=family(20, 4, 2, {"greedy": None}, sizes="unit"))
    assert _output_jobs(cfg) == {
        "collect_runs": 1,
        "paper_tables": 1,
        "claims_table": 1,
        "method_table": 1,
        "worst_case_table": 1,
        "report_tables_runs": 1,
        "scheduling_figures": 1,
        "figure_adversary_rounds": 1,
        "figure_parameter_sweep": 1,
        "figure_separation": 1,
        "paper_generated": 1,
        "paper_reproducibility": 1,
        "paper_pdf": 1,
        "pipeline_record": 1,
        "site": 1,
    }
    flow = family(20, 4, 2, {"ll-fifo": None}, sizes="unit")
    two = config(e=family(20, 4, 2, {"greedy": None}, sizes="unit"), f={**flow, "problem": "maxflow"})
    assert _output_jobs(two)["scheduling_figures"] == 2  # one per problem
    plan = plan_config(cfg)
    assert plan.jobs == sum(s.jobs for s in plan.stages) and plan.cpu_hours * 3600 == pytest.approx(
        sum(s.cpu_seconds for s in plan.stages) * plan.speed
    )


def test_the_plan_table_keeps_every_name_whole_and_subtotals_each_stage():
    from schedbench.hall.plan import format_plan

    long = "experiments." + "a_very_long_experiment_name_" * 3
    stages = [
        StageEstimate(long, "make_instances", 2, 4, 8.0, 10.0, 1e6),
        StageEstimate("experiments.b", "make_instances", 1, 2, 4.0, 20.0, 1e6),
        StageEstimate("experiments.b", "run_online", 3, 9, 9.0, 30.0, 1e6),
        StageEstimate("tables", "collect_runs", 1, 1, 0.0, 9.0, 1e6),
        StageEstimate("tables", "paper_tables", 1, 1, 0.0, 3.0, 1e6),
        StageEstimate("figures", "scheduling_figures", 2, 2, 0.0, 30.0, 1e6),
    ]
    text = format_plan(Plan(stages, speed=2.0, memory=64e9))
    assert long in text and "scheduling_figures" in text
    sub = {line.split()[1]: line.split()[2:] for line in text.splitlines() if line.startswith("subtotal")}
    # jobs and CPU on this machine (speed 2): make_instances 3 jobs, (10 + 20) × 2 = 60 s = 1 min, ...
    assert sub == {
        "make_instances": ["3", "1", "min"],
        "run_online": ["3", "1", "min"],
        "tables": ["2", "24", "s"],
        "figures": ["2", "1", "min"],
    }
