"""The bipartite wing as the hall sees it (:class:`schedbench.hall.wing.Wing`): its config
section, its results tables as ``diff``/``merge``/``archive`` compare them, its paper text
(:mod:`.tables`), its config check and cost plan, its rules file and the files they make."""

from __future__ import annotations

from schedbench.bipartite.stage import claims, report, tables
from schedbench.bipartite.stage.config import check_bipartite
from schedbench.bipartite.stage.plan import plan_bipartite, plan_bipartite_outputs
from schedbench.hall.wing import SiteView, TableSpec, Wing, experiment_files, stage_fields

__all__ = ["WING"]


def _experiments(config: dict) -> dict:
    """The bipartite experiments the config runs, by name (none without the section)."""
    return (config.get("bipartite") or {}).get("experiments") or {}


def _experiment_figures(config: dict) -> list[tuple[str, str]]:
    """Every (experiment, figure kind B1-B5) the config draws, sorted."""
    experiments = _experiments(config)
    return sorted((exp, fig) for exp in experiments for fig in experiments[exp]["figures"])


def _figures(config: dict) -> list[str]:
    return [f"paper/figures/bipartite_{exp}_{fig}.pdf" for exp, fig in _experiment_figures(config)]


def _paper_contents(config: dict) -> dict:
    """The body shows the excess over the benchmark against N (B2: the many-server claim), else
    the first figure; the appendix the checks and rates tables."""
    figures = [(f"bipartite_{exp}_{fig}", fig) for exp, fig in _experiment_figures(config)]
    if not figures:
        return {}
    many_server = [f for f in figures if f[1] == "B2"] or figures
    return {"bipartite": ([many_server[0]], []), "tables": ([], ["bipartite_checks", "bipartite_rates"])}


def _bench_keys(config: dict) -> list[str]:
    return sorted(_experiments(config))


def _targets(config: dict) -> list[str]:
    if not _experiments(config):
        return []
    return [
        "results/bipartite.parquet",
        "paper/tables/bipartite_checks.tex",
        "paper/tables/bipartite_rates.tex",
    ] + _figures(config)


WING = Wing(
    name="bipartite",
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
    **stage_fields("bipartite", tables, claims, report, check_bipartite, plan_bipartite, plan_bipartite_outputs),
    targets=_targets,
    report_tables=experiment_files(
        _experiments, ["results/report/bipartite.html", "results/report/bipartite_checks.html"]
    ),
    claims_inputs=experiment_files(
        _experiments,
        {"bipartite_checks": "results/bipartite_checks.parquet", "bipartite": "results/bipartite.parquet"},
    ),
    site_tables=experiment_files(
        _experiments,
        {"bipartite": "results/bipartite.parquet", "bipartite_checks": "results/bipartite_checks.parquet"},
    ),
    site_views=(
        SiteView(
            "bipartite",
            "Bipartite load balancing: excess mean response over the benchmark t* against N",
            columns=(
                "experiment",
                "N",
                "rho",
                "graph",
                "degree_label",
                "policy",
                "t_star",
                "jiq_fluid",
                "random_exact",
                "mean_response",
                "mean_response_ci_lo",
                "mean_response_ci_hi",
                "excess_over_t_star",
                "status",
            ),
            x="N",
            y="excess_over_t_star",
            lines=(("policy", ""), ("rho", "ρ"), ("degree_label", "")),
            ylabel="excess over t*",
            logx=True,
            logy=True,
        ),
        SiteView("bipartite_checks", "Bipartite: the simulator against its oracles"),
    ),
    figures=_figures,
    paper_contents=_paper_contents,
    bench_keys=_bench_keys,
)
