"""The loss wing as the hall sees it (:class:`schedbench.hall.wing.Wing`): its config section,
its results tables as ``diff``/``merge``/``archive`` compare them, its paper text
(:mod:`.tables`), its config check and cost plan."""

from __future__ import annotations

from schedbench.hall.wing import TableSpec, Wing
from schedbench.loss.stage import claims, report, tables

__all__ = ["WING"]


def _check(config: dict) -> None:
    from schedbench.loss.stage.config import check_loss

    check_loss(config.get("loss"))


def _plan(config: dict) -> list:
    from schedbench.loss.stage.plan import plan_loss

    return plan_loss(config.get("loss"))


def _plan_outputs(config: dict) -> list:
    from schedbench.loss.stage.plan import plan_loss_outputs

    return plan_loss_outputs(config.get("loss"))


WING = Wing(
    name="loss",
    section="loss",
    tables={
        "results/loss.parquet": TableSpec(
            identity=(
                "experiment",
                "n",
                "d",
                "alpha",
                "beta",
                "k_rule",
                "k_label",
                "k_param",
                "k",
                "independent",
                "method",
                "estimator",
            ),
            estimates={
                q: (f"{q}_ci_lo", f"{q}_ci_hi")
                for q in ("blocking", "mean_response", "excess_response", "mean_busy", "mean_response_realized")
            },
            exact=("lam", "mu", "arrivals", "batches", "exact_blocking", "exact_excess"),
            schema="loss.schema.yaml",
        ),
        "results/loss_slopes.parquet": TableSpec(
            identity=("experiment", "d", "alpha", "beta", "k_label", "k_rule", "quantity"),
            estimates={"slope": ("slope_lo", "slope_hi")},
            exact=("exact_slope", "claimed_slope", "claim", "max_n"),
        ),
    },
    paper_macros=tables.paper_macros,
    figure_caption=tables.figure_caption,
    table_captions=tables.TABLE_CAPTIONS,
    paper_groups=("loss",),
    claims=claims.judged_claims,
    findings=claims.findings_lines,
    report_views=report.report_views,
    check=_check,
    plan=_plan,
    plan_outputs=_plan_outputs,
)
