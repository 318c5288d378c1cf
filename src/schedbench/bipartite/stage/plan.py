"""The bipartite wing's part of the run planner (schedbench.hall.plan, docs/run-planner.md):
jobs (the rule's balanced chunks of groups), groups, arrivals × policies, and seconds at the rate
the default config's ``make run`` measured (benchmarks/README.md: 6.35·10⁸ arrival-policies in
273 s of job time, graphs, bounds, checks and job start-up included)."""

from __future__ import annotations

from schedbench.bipartite.stage.experiments import expand_groups, group_arrivals
from schedbench.hall.config import balanced_chunks
from schedbench.hall.plan import BASE_BYTES, JOB_STARTUP_SECONDS, StageEstimate

__all__ = ["plan_bipartite", "SECONDS_PER_ARRIVAL_POLICY"]

#: Job seconds per simulated arrival and policy (measured, module docstring).
SECONDS_PER_ARRIVAL_POLICY = 4.3e-7


def plan_bipartite(section: dict | None) -> list[StageEstimate]:
    """One row per bipartite experiment of a checked config."""
    section = section or {}
    out = []
    for name in sorted(section.get("experiments") or {}):
        exp = section["experiments"][name]
        groups = expand_groups(name, exp)
        jobs = len(balanced_chunks(groups, int(section["groups_per_job"]), key=lambda g: 0))
        work = sum(group_arrivals(g, section) for g in groups) * len(exp["policies"])
        out.append(
            StageEstimate(
                f"bipartite.experiments.{name}",
                "bipartite_groups",
                jobs,
                len(groups),
                float(work),
                jobs * JOB_STARTUP_SECONDS + work * SECONDS_PER_ARRIVAL_POLICY,
                BASE_BYTES,
                f"{work:.3g} arrival-policies",
            )
        )
    return out
