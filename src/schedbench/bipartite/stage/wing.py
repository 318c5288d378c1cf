"""The bipartite wing as the hall sees it (:class:`schedbench.hall.wing.Wing`): its config
section, its results tables as ``diff``/``merge``/``archive`` compare them, its paper text
(:mod:`.tables`), its config check and cost plan."""

from __future__ import annotations

from schedbench.bipartite.stage import claims, report, tables
from schedbench.hall.wing import TableSpec, Wing

__all__ = ["WING"]


def _check(config: dict) -> None:
    from schedbench.bipartite.stage.config import check_bipartite

    check_bipartite(config.get("bipartite"))


def _plan(config: dict) -> list:
    from schedbench.bipartite.stage.plan import plan_bipartite

    return plan_bipartite(config.get("bipartite"))


def _plan_outputs(config: dict) -> list:
    from schedbench.bipartite.stage.plan import plan_bipartite_outputs

    return plan_bipartite_outputs(config.get("bipartite"))


WING = Wing(
    name="bipartite",
    section="bipartite",
    tables={
        "results/bipartite.parquet": TableSpec(
            identity=("experiment", "N", "M", "rho", "alpha", "beta", "graph", "degree_label", "degree", "policy", "d"),
            estimates={
                "mean_response": ("mean_response_ci_lo", "mean_response_ci_hi"),
                "excess_over_t_star": ("excess_ci_lo", "excess_ci_hi"),
            },
            exact=("t_star", "t_star_graph", "jiq_fluid", "random_exact", "mean_degree", "status", "arrivals"),
            schema="bipartite.schema.yaml",
        ),
        "results/bipartite_checks.parquet": TableSpec(
            identity=("check", "quantity", "kind"),
            estimates={"simulated": ("ci_lo", "ci_hi")},
            exact=("reference", "tolerance", "arrivals"),
        ),
    },
    paper_macros=tables.paper_macros,
    figure_caption=tables.figure_caption,
    table_captions=tables.TABLE_CAPTIONS,
    paper_groups=("bipartite",),
    claims=claims.judged_claims,
    findings=claims.findings_lines,
    report_views=report.report_views,
    check=_check,
    plan=_plan,
    plan_outputs=_plan_outputs,
)
