"""The loss wing's part of the run planner (schedbench.hall.plan, docs/run-planner.md): jobs
(the rule's balanced chunks of points), points, arrivals, and seconds at the rate the default
config's ``make run`` measured (benchmarks/README.md: 3.5·10⁹ post-warm-up arrivals of the loss
points in 458 s of job time, warm-up, batches and job start-up included)."""

from __future__ import annotations

from schedbench.hall.plan import StageEstimate, experiment_stages, output_stages

__all__ = ["plan_loss", "plan_loss_outputs", "SECONDS_PER_ARRIVAL", "OUTPUT_SECONDS_MEASURED"]

#: Job seconds per post-warm-up arrival of a point (measured, module docstring).
SECONDS_PER_ARRIVAL = 1.3e-7


def plan_loss(section: dict | None) -> list[StageEstimate]:
    """One row per loss experiment of a checked config: its points, their post-warm-up
    arrivals. Its experiments (and their compiled simulator) are imported here, not when the
    wing is read."""
    from schedbench.loss.stage.experiments import expand_points, point_arrivals

    def points_and_arrivals(name: str, exp: dict) -> tuple[list, float]:
        points = expand_points(name, exp)
        return points, sum(point_arrivals(p, section) for p in points)

    return experiment_stages(
        "loss", section, "loss_points", "points_per_job", points_and_arrivals, SECONDS_PER_ARRIVAL, "arrivals"
    )


#: CPU seconds of one job of each rule that builds the loss wing's tables and figures, measured
#: on the project machine (:func:`schedbench.hall.plan.output_stages`)
OUTPUT_SECONDS_MEASURED = {"loss_collect": 2.0, "loss_tables": 1.0, "report_tables_loss": 2.0, "loss_figures": 8.0}


def plan_loss_outputs(section: dict | None) -> list[StageEstimate]:
    """The loss wing's table and figure rules, one job each when the config has loss experiments."""
    n = int(bool((section or {}).get("experiments")))
    jobs = {"tables": {"loss_collect": n, "loss_tables": n, "report_tables_loss": n}, "figures": {"loss_figures": n}}
    return output_stages(jobs, OUTPUT_SECONDS_MEASURED)
