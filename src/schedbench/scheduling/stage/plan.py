"""The scheduling wing's part of the run planner (:mod:`schedbench.hall.plan`,
docs/run-planner.md): per experiment and stage, the jobs the pipeline will create, the runs and
the work they do, and a CPU estimate from a cost model calibrated on the reference machine.

The counts are exact (they follow the rules' own batching and grids: instances per batch job,
one online job per batch running every algorithm × parameter combination × ε, one adversary job
and one OPT job per adversary experiment and algorithm, one job per search task, one per (problem, algorithm) of the ε sweep). The sizes come
from the families' and adversaries' own statements (``Family.shape``, ``Adversary.size``). The
seconds come from the rates below, measured on the reference machine (benchmarks/README.md):
estimates, not promises, leaning high where a solver may run to its work limit.
"""

from __future__ import annotations

from typing import Any

from schedbench.hall.grids import algorithm_grid, batches
from schedbench.hall.plan import BASE_BYTES, JOB_STARTUP_SECONDS, StageEstimate, output_stages
from schedbench.scheduling.registry import get_adversary, get_algorithm, get_family
from schedbench.scheduling.stage.config import DEFAULT_SEEDS, experiment_problem

__all__ = ["plan_scheduling", "plan_scheduling_outputs", "total_runs", "RATES", "OUTPUT_SECONDS_MEASURED"]

#: Jobs per second of a run, validation included (benchmarks/README.md, "Second round"):
#: compiled path with unit / sized jobs, the step path, and LoadBalancing's compiled dispatch.
RATES = {
    "compiled-unit": 1.0e6,
    "compiled-sized": 5.0e5,
    "compiled-load": 3.0e6,
    "step": 2.0e4,
}
#: Seconds per job of an offline solve that always finishes: the unit makespan (max-flow
#: bisection) and the unit max-flow-time (matching bisection), measured at n = 10^5.
OPT_UNIT_SECONDS_PER_JOB = {"load": 1.0e-5, "flow": 1.6e-5}
#: A sized optimum (MILP / window MIP): about c·n^1.5 seconds (measured: 0.35 s at n = 40, 2.3 s
#: at n = 200, the work limit at n = 400 and more), at most the work limit (a unit ≈ a second).
OPT_SIZED_COEF = 1.4e-3
#: Bytes: an instance per job and per eligibility entry; the engine and validator per job of a
#: run; a results row; a window MIP per job.
INSTANCE_BYTES_PER_JOB = 48.0
INSTANCE_BYTES_PER_ENTRY = 8.0
RUN_BYTES_PER_JOB = 200.0
ROW_BYTES = 1500.0
MIP_BYTES_PER_JOB = 2000.0


def _run_rate(cls, unit: bool, problem: str) -> float:
    """Jobs per second of one run of ``cls`` (an algorithm may state its own: ``jobs_per_second``)."""
    own = cls.jobs_per_second
    if own:
        return float(own)
    if not cls.has_compiled_path():
        return RATES["step"]
    if problem == "load":
        return RATES["compiled-load"]
    return RATES["compiled-unit" if unit else "compiled-sized"]


def _opt_seconds(n: int, unit: bool, problem: str, work_limit: float) -> float:
    kind = "load" if problem == "load" else "flow"
    seconds = n * OPT_UNIT_SECONDS_PER_JOB[kind]
    if not unit:
        seconds += min(work_limit, OPT_SIZED_COEF * n**1.5)
    return seconds


def _instance_bytes(n: int, entries: int) -> float:
    return n * INSTANCE_BYTES_PER_JOB + entries * INSTANCE_BYTES_PER_ENTRY


def _runs_per_instance(algorithms: dict[str, Any], eps: list[float]) -> list[tuple[Any, int]]:
    """(algorithm class, runs on one instance) for each algorithm of an experiment."""
    out = []
    for name in sorted(algorithms):
        cls = get_algorithm(name)
        out.append((cls, len(algorithm_grid(algorithms[name])) * len(cls.eps_values(eps))))
    return out


def _family_stages(where: str, exp: dict, eps: list[float], batch_size: int, work_limit: float) -> list[StageEstimate]:
    family = get_family(exp["family"])
    problem = experiment_problem(exp)
    instances = int(exp["instances"])
    jobs = len(batches(instances, batch_size))
    per_job = min(batch_size, instances)
    shape = family.shape(exp.get("params") or {}) if hasattr(family, "shape") else None
    if shape is None:
        note = f"family {family.name!r} states no size: work not estimated"
        n = m = entries = 0
    else:
        n, m, entries = shape
        note = f"n = {n}, m = {m}"
    unit = family.unit_sizes(exp.get("params") or {})
    inst_bytes = _instance_bytes(n, entries)
    runs = _runs_per_instance(exp["algorithms"], eps)
    per_instance = sum(k for _, k in runs)
    run_seconds = sum(k * n / _run_rate(cls, unit, problem) for cls, k in runs)
    return [
        StageEstimate(
            where,
            "make_instances",
            jobs,
            instances,
            float(instances * n),
            jobs * JOB_STARTUP_SECONDS + instances * n * 2e-6,
            BASE_BYTES + 2 * inst_bytes,
            note,
        ),
        StageEstimate(
            where,
            "solve_offline",
            jobs,
            instances,
            float(instances * n),
            jobs * JOB_STARTUP_SECONDS + instances * _opt_seconds(n, unit, problem, work_limit),
            BASE_BYTES + inst_bytes + (0 if unit else n * MIP_BYTES_PER_JOB),
            "" if unit else f"sized: each solve up to the work limit ({work_limit:g})",
        ),
        StageEstimate(
            where,
            "run_online",
            jobs,
            instances * per_instance,
            float(instances * per_instance * n),
            jobs * JOB_STARTUP_SECONDS + instances * run_seconds,
            BASE_BYTES + inst_bytes + n * RUN_BYTES_PER_JOB + per_job * per_instance * ROW_BYTES,
            f"{per_instance} runs per instance",
        ),
    ]


def _adversary_stages(where: str, exp: dict, eps: list[float], work_limit: float) -> list[StageEstimate]:
    adv = get_adversary(exp["adversary"])
    problem = experiment_problem(exp)
    seeds = int(exp.get("seeds", DEFAULT_SEEDS))
    games = work = seconds = opt_seconds = 0.0
    peak = 0.0
    unstated = False
    jobs = 0
    for name in sorted(exp["algorithms"]):
        cls = get_algorithm(name)
        jobs += 1
        for adv_params in algorithm_grid(exp.get("params")):
            for e in cls.eps_values(eps):
                size = adv.size(adv.resolve_params(adv_params, eps=e)) if hasattr(adv, "size") else None
                if size is None:
                    unstated = True
                    size = (0, 0)
                n, m = size
                k = len(algorithm_grid(exp["algorithms"][name])) * seeds
                games += k
                work += k * n
                seconds += k * n / RATES["step"]
                opt_seconds += k * _opt_seconds(
                    n, adv.unit_sizes_for(adv.resolve_params(adv_params, eps=e)), problem, work_limit
                )
                peak = max(peak, n * (INSTANCE_BYTES_PER_JOB + 2 * INSTANCE_BYTES_PER_ENTRY + RUN_BYTES_PER_JOB))
    note = f"adversary {adv.name!r} states no size: work not estimated" if unstated else ""
    return [
        StageEstimate(
            where, "adversary", jobs, int(games), work, jobs * JOB_STARTUP_SECONDS + seconds, BASE_BYTES + peak, note
        ),
        StageEstimate(
            where,
            "solve_offline",
            jobs,
            int(games),
            work,
            jobs * JOB_STARTUP_SECONDS + opt_seconds,
            BASE_BYTES + peak,
            "",
        ),
    ]


def _search_stages(section: dict | None) -> list[StageEstimate]:
    from schedbench.scheduling.stage.search import task_setting

    out = []
    for name, task in sorted(((section or {}).get("tasks") or {}).items()):
        if task["method"] == "exact":
            seconds = float(task_setting(task, "work_limit"))
            note = "CP-SAT, up to its work limit"
        else:
            seconds = min(float(task_setting(task, "budget_seconds")), int(task["max_evals"]) * 0.05)
            note = f"{int(task['max_evals'])} candidates"
        out.append(
            StageEstimate(f"search.tasks.{name}", "search", 1, 1, 0.0, JOB_STARTUP_SECONDS + seconds, BASE_BYTES, note)
        )
    return out + _eps_sweep_stages((section or {}).get("eps_sweep"))


#: Seconds per black-box evaluation in the ε sweep, leaning high (benchmarks/README.md, the
#: black-box search: ~950 evaluations/s on LoadBalancing and MaxFlowTime, 150–260 on the
#: weighted problems at m = 4; the sweep's larger m and n at small ε cost more).
SWEEP_SECONDS_PER_EVAL = 0.02


def _eps_sweep_stages(section: dict | None) -> list[StageEstimate]:
    """One job per (series, problem, algorithm) of ``search.eps_sweep``, each running every point
    of its series (a candidate costs more with more jobs: scaled by the series' largest n over
    400 jobs, from 1 up — measured: 20 candidates of 640 jobs in 0.1–1.0 s)."""
    from schedbench.scheduling.stage.eps_sweep import series_points, sweep_jobs, sweep_limits, sweep_series, sweep_size

    out, series = [], sweep_series(section)
    for name, problem, algorithm in sweep_jobs(section):
        s = series[name]
        limits = sweep_limits(s)
        points = series_points(s)
        scale = max(1.0, max(sweep_size(s, e, m)[1] for e, m in points) / 400.0)
        seconds = len(points) * min(limits["budget_seconds"], limits["max_evals"] * SWEEP_SECONDS_PER_EVAL * scale)
        out.append(
            StageEstimate(
                f"search.eps_sweep.{name}.{problem}.{algorithm}",
                "eps_sweep",
                1,
                len(points),
                0.0,
                JOB_STARTUP_SECONDS + seconds,
                BASE_BYTES,
                f"{len(points)} points × {limits['max_evals']} candidates",
            )
        )
    return out


def _practice_stages(section: dict | None) -> list[StageEstimate]:
    """One job per family of ``practice``: every candidate of every entry on the training
    instances, then the chosen ones on the test instances, at each ε (the tuning is counted)."""
    from schedbench.scheduling.stage.practice import (
        DEFAULT_EPS,
        family_entries,
        family_problem,
        practice_families,
        split_indices,
        training_key,
    )

    out = []
    for name in practice_families(section):
        fam = section["families"][name]
        family = get_family(fam["family"])
        problem = family_problem(fam)
        shape = family.shape(fam.get("params") or {}) if hasattr(family, "shape") else None
        n, _, entries = shape if shape is not None else (0, 0, 0)
        unit = family.unit_sizes(fam.get("params") or {})
        train, test = split_indices(section, fam)
        eps = len(fam.get("eps", section.get("eps", DEFAULT_EPS)))
        runs = seconds = 0.0
        trained = set()  # entries with the same training key share their training runs
        for role in ("policies", "baselines"):
            for entry in family_entries(fam, role):
                cls = get_algorithm(entry["algorithm"])
                tuning = 0 if training_key(entry) in trained else len(algorithm_grid(entry["tune"])) * len(train)
                trained.add(training_key(entry))
                k = eps * (tuning + len(test))
                runs += k
                seconds += k * n / _run_rate(cls, unit, problem)
        instances = len(train) + len(test)
        out.append(
            StageEstimate(
                f"practice.families.{name}",
                "practice_family",
                1,
                int(runs),
                float(runs * n),
                JOB_STARTUP_SECONDS + seconds + instances * n * 2e-6,
                BASE_BYTES + len(train) * _instance_bytes(n, entries) + n * RUN_BYTES_PER_JOB + runs * ROW_BYTES,
                f"n = {n}: {len(train)} training + {len(test)} test instances, tuning included",
            )
        )
    return out


def plan_scheduling(config: dict) -> list[StageEstimate]:
    """Every stage of the scheduling experiments and search tasks of a checked config."""
    batch_size = int(config["batch_size"])
    work_limit = float(config["opt"]["work_limit"])
    out = []
    for name in sorted(config["experiments"]):
        exp = config["experiments"][name]
        eps = exp.get("eps", config["eps"])
        where = f"experiments.{name}"
        limit = float((exp.get("opt") or {}).get("work_limit", work_limit))  # the experiment's own, if set
        if "family" in exp:
            out += _family_stages(where, exp, eps, batch_size, limit)
        else:
            out += _adversary_stages(where, exp, eps, limit)
    return out + _search_stages(config.get("search")) + _practice_stages(config.get("practice"))


def total_runs(stages: list[StageEstimate]) -> int:
    """The rows the results table will have (online runs and adversary games)."""
    return sum(s.runs for s in stages if s.stage in ("run_online", "adversary"))


#: CPU seconds of one job of each rule that builds the scheduling wing's tables and figures,
#: measured on the project machine (:func:`schedbench.hall.plan.output_stages`)
OUTPUT_SECONDS_MEASURED = {
    "collect_runs": 9.0,
    "paper_tables": 3.0,
    "method_table": 1.0,
    "worst_case_table": 3.0,
    "report_tables_runs": 3.0,
    "eps_sweep_table": 11.0,
    "practice_table": 7.0,
    "scheduling_figures": 15.0,
    "figure_adversary_rounds": 6.0,
    "figure_parameter_sweep": 14.0,
    "figure_separation": 6.5,
}


def plan_scheduling_outputs(config: dict) -> list[StageEstimate]:
    """The scheduling wing's table and figure rules, counted as the Snakefile's targets ask for
    them: one figure job per problem, the ε sweep's and the practice tables when the config has
    those."""
    from schedbench.scheduling.stage.eps_sweep import sweep_jobs
    from schedbench.scheduling.stage.practice import practice_families

    problems = sorted({experiment_problem(e) for e in (config.get("experiments") or {}).values()}) or ["load"]
    tables = {
        "collect_runs": 1,
        "paper_tables": 1,
        "method_table": 1,
        "worst_case_table": 1,
        "report_tables_runs": 1,
        "eps_sweep_table": int(bool(sweep_jobs((config.get("search") or {}).get("eps_sweep") or {}))),
        "practice_table": int(bool(practice_families(config.get("practice") or {}))),
    }
    figures = {
        "scheduling_figures": len(problems),
        "figure_adversary_rounds": 1,
        "figure_parameter_sweep": 1,
        "figure_separation": 1,
    }
    notes = {"scheduling_figures": f"one per problem: {', '.join(problems)}"}
    return output_stages({"tables": tables, "figures": figures}, OUTPUT_SECONDS_MEASURED, notes)
