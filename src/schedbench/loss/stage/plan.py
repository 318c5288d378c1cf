"""The loss wing's part of the run planner (schedbench.hall.plan, docs/run-planner.md): jobs
(the rule's balanced chunks of points), points, arrivals, and seconds at the rate the default
config's ``make run`` measured (benchmarks/README.md: 3.5·10⁹ post-warm-up arrivals of the loss
points in 458 s of job time, warm-up, batches and job start-up included)."""

from __future__ import annotations

from schedbench.hall.plan import StageEstimate, chunked_stage, output_stages

__all__ = ["plan_loss", "plan_loss_outputs", "SECONDS_PER_ARRIVAL", "OUTPUT_SECONDS_MEASURED"]

#: Job seconds per post-warm-up arrival of a point (measured, module docstring).
SECONDS_PER_ARRIVAL = 1.3e-7


def plan_loss(section: dict | None) -> list[StageEstimate]:
    """One row per loss experiment of a checked config. Its experiments (and their compiled
    simulator) are imported here, not when the wing is read."""
    from schedbench.loss.stage.experiments import expand_points, point_arrivals

    section = section or {}
    out = []
    for name in sorted(section.get("experiments") or {}):
        points = expand_points(name, section["experiments"][name])
        arrivals = sum(point_arrivals(p, section) for p in points)
        out.append(
            chunked_stage(
                f"loss.experiments.{name}",
                "loss_points",
                points,
                int(section["points_per_job"]),
                arrivals,
                SECONDS_PER_ARRIVAL,
                "arrivals",
            )
        )
    return out


#: CPU seconds of one job of each rule that builds the loss wing's tables and figures, measured
#: on the project machine (:func:`schedbench.hall.plan.output_stages`)
OUTPUT_SECONDS_MEASURED = {"loss_collect": 2.0, "loss_tables": 1.0, "report_tables_loss": 2.0, "loss_figures": 8.0}


def plan_loss_outputs(section: dict | None) -> list[StageEstimate]:
    """The loss wing's table and figure rules, one job each when the config has loss experiments."""
    n = int(bool((section or {}).get("experiments")))
    jobs = {"tables": {"loss_collect": n, "loss_tables": n, "report_tables_loss": n}, "figures": {"loss_figures": n}}
    return output_stages(jobs, OUTPUT_SECONDS_MEASURED)
