"""The scheduling wing as the hall sees it (:class:`schedbench.hall.wing.Wing`): its config (the
config's top level), its results tables as ``diff``/``merge``/``archive`` compare them, its paper
text (:mod:`.tables`), claims, report views, config check and cost plan."""

from __future__ import annotations

import pandas as pd

from schedbench.hall.wing import SiteView, TableSpec, Wing
from schedbench.scheduling.stage.tables import TABLE_CAPTIONS, figure_caption, paper_macros

__all__ = ["WING"]


def _check(config: dict) -> None:
    from schedbench.scheduling.stage.config import check_scheduling

    check_scheduling(config)


def _judged_claims(tables: dict, present) -> list:
    from schedbench.scheduling.stage.claims import judged_claims

    return judged_claims(tables, present)


def _findings_lines(tables: dict, frame: pd.DataFrame, params: dict) -> list[str]:
    from schedbench.scheduling.stage.claims import findings_lines

    return findings_lines(tables, frame, params)


def _report_views(tables: dict) -> dict:
    from schedbench.scheduling.stage.report import report_views

    return report_views(tables)


def _plan(config: dict) -> list:
    from schedbench.scheduling.stage.plan import plan_scheduling

    return plan_scheduling(config)


def _plan_outputs(config: dict) -> list:
    from schedbench.scheduling.stage.plan import plan_scheduling_outputs

    return plan_scheduling_outputs(config)


#: Its keys are the config's top level; its runs table is compared by the hall's own groups
#: (:mod:`schedbench.hall.group_diff`), so only the search's worst cases are a spec here.
WING = Wing(
    name="scheduling",
    section=None,
    tables={"results/worst_cases.parquet": TableSpec(identity=("task",))},
    paper_macros=paper_macros,
    figure_caption=figure_caption,
    table_captions=TABLE_CAPTIONS,
    paper_groups=("practice", "adversaries", "eps_sweep", "search"),
    long_tables=("methods", "practice", "eps_sweep", "adversaries", "rejections"),
    claims=_judged_claims,
    findings=_findings_lines,
    report_views=_report_views,
    check=_check,
    plan=_plan,
    plan_outputs=_plan_outputs,
    rules=None,  # its rules are the workflow's core files (the Snakefile includes them by name)
    site_views=(
        SiteView(
            "eps_sweep_growth",
            "ε sweep: growth of the worst ratio found",
            columns=(
                "series",
                "problem",
                "algorithm",
                "model",
                "points",
                "eps_min",
                "eps_max",
                "ratio_first",
                "ratio_last",
                "fit_kind",
                "fit_slope",
                "fit_lo",
                "fit_hi",
                "bound_exponent",
                "grows",
            ),
        ),
        SiteView("worst_cases", "Worst cases found by the search"),
    ),
)
