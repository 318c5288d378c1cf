"""The loss wing as the hall sees it (:class:`schedbench.hall.wing.Wing`): its config section,
its results tables as ``diff``/``merge``/``archive`` compare them, its paper text
(:mod:`.tables`), its config check and cost plan, its rules file and the files they make."""

from __future__ import annotations

from schedbench.hall.wing import SiteView, TableSpec, Wing, experiment_files, stage_fields
from schedbench.loss.stage import claims, report, tables
from schedbench.loss.stage.config import check_loss
from schedbench.loss.stage.plan import plan_loss, plan_loss_outputs

__all__ = ["WING"]


def _experiments(config: dict) -> list[str]:
    """The loss experiments the config runs (none without the section)."""
    return sorted((config.get("loss") or {}).get("experiments") or {})


def _figure_kinds(config: dict) -> list[tuple[str, str]]:
    """(figure stem, its kind A1-A5) per experiment: one figure each."""
    experiments = _experiments(config)
    return [(f"loss_{e}", config["loss"]["experiments"][e]["figure"]) for e in experiments]


def _figures(config: dict) -> list[str]:
    return [f"paper/figures/{stem}.pdf" for stem, _ in _figure_kinds(config)]


def _paper_contents(config: dict) -> dict:
    """The body shows the growing-k figure (A3: the claim k = omega(n^alpha) suffices), else the
    first; the appendix the slopes table."""
    figures = _figure_kinds(config)
    if not figures:
        return {}
    growing_k = [f for f in figures if f[1] == "A3"] or figures
    return {"loss": ([growing_k[0]], []), "tables": ([], ["loss_slopes"])}


def _targets(config: dict) -> list[str]:
    if not _experiments(config):
        return []
    return ["results/loss.parquet", "paper/tables/loss_slopes.tex", "paper/macros_loss.tex"] + _figures(config)


WING = Wing(
    name="loss",
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
    **stage_fields("loss", tables, claims, report, check_loss, plan_loss, plan_loss_outputs),
    targets=_targets,
    report_tables=experiment_files(
        _experiments, ["results/report/loss_points.html", "results/report/loss_slopes.html"]
    ),
    claims_inputs=experiment_files(_experiments, {"loss_slopes": "results/loss_slopes.parquet"}),
    site_tables=experiment_files(
        _experiments, {"loss": "results/loss.parquet", "loss_slopes": "results/loss_slopes.parquet"}
    ),
    site_views=(
        SiteView(
            "loss",
            "Loss system: blocking against n (simulated, 95% interval; the exact oracle in the table)",
            columns=(
                "experiment",
                "n",
                "d",
                "k_label",
                "k",
                "method",
                "blocking",
                "blocking_ci_lo",
                "blocking_ci_hi",
                "exact_blocking",
                "excess_response",
                "exact_excess",
                "mean_response",
            ),
            x="n",
            y="blocking",
            lo="blocking_ci_lo",
            hi="blocking_ci_hi",
            lines=(("d", "d"), ("k_label", ""), ("alpha", "α"), ("beta", "β")),
            logx=True,
            logy=True,
        ),
        SiteView(
            "loss_slopes",
            "Loss system: fitted rates",
            columns=(
                "experiment",
                "k_label",
                "quantity",
                "points",
                "slope",
                "slope_lo",
                "slope_hi",
                "exact_slope",
                "claimed_slope",
                "claim",
                "consistent",
            ),
        ),
    ),
    figures=_figures,
    paper_contents=_paper_contents,
    bench_keys=_experiments,
    pdf_inputs=experiment_files(_experiments, ["paper/macros_loss.tex"]),
)
