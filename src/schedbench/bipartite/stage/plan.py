"""The bipartite wing's part of the run planner (schedbench.hall.plan, docs/run-planner.md):
jobs (the rule's balanced chunks of groups), groups, arrivals × policies, and seconds at the rate
the default config's ``make run`` measured (benchmarks/README.md: 6.35·10⁸ arrival-policies in
273 s of job time, graphs, bounds, checks and job start-up included)."""

from __future__ import annotations

from schedbench.hall.plan import StageEstimate, experiment_stages, output_stages

__all__ = ["plan_bipartite", "plan_bipartite_outputs", "SECONDS_PER_ARRIVAL_POLICY", "OUTPUT_SECONDS_MEASURED"]

#: Job seconds per simulated arrival and policy (measured, module docstring).
SECONDS_PER_ARRIVAL_POLICY = 4.3e-7


def plan_bipartite(section: dict | None) -> list[StageEstimate]:
    """One row per bipartite experiment of a checked config: its groups, their arrivals ×
    policies. Its experiments (and their compiled simulator) are imported here, not when the
    wing is read."""
    from schedbench.bipartite.stage.experiments import expand_groups, group_arrivals

    def groups_and_work(name: str, exp: dict) -> tuple[list, float]:
        groups = expand_groups(name, exp)
        return groups, sum(group_arrivals(g, section) for g in groups) * len(exp["policies"])

    return experiment_stages(
        "bipartite",
        section,
        "bipartite_groups",
        "groups_per_job",
        groups_and_work,
        SECONDS_PER_ARRIVAL_POLICY,
        "arrival-policies",
    )


#: CPU seconds of one job of each rule that builds the bipartite wing's tables and figures,
#: measured on the project machine (:func:`schedbench.hall.plan.output_stages`)
OUTPUT_SECONDS_MEASURED = {
    "bipartite_collect": 1.0,
    "bipartite_checks": 5.0,
    "bipartite_tables": 1.0,
    "report_tables_bipartite": 2.0,
    "bipartite_figures": 12.0,
}


def plan_bipartite_outputs(section: dict | None) -> list[StageEstimate]:
    """The bipartite wing's table and figure rules, one job each when the config has bipartite
    experiments."""
    n = int(bool((section or {}).get("experiments")))
    tables = {"bipartite_collect": n, "bipartite_checks": n, "bipartite_tables": n, "report_tables_bipartite": n}
    return output_stages({"tables": tables, "figures": {"bipartite_figures": n}}, OUTPUT_SECONDS_MEASURED)
