# The paper's helpers (targets, section groups, provenance): functions only, the rules are in paper.smk.
import glob as _glob
import os as _os

from schedbench.hall.paper import GROUPS as PAPER_GROUPS
from schedbench.scheduling.stage.appendix import KINDS as APPENDIX_KINDS
from schedbench.scheduling.stage.appendix import figure_experiments, page_count

# the config file(s) as given, relative to the working directory where they are under it
CONFIG_FILE = (
    ", ".join(
        _os.path.relpath(p) if not _os.path.relpath(p).startswith("..") else str(p)
        for p in workflow.overwrite_configfiles
    )
    or "config/config.yaml"
)
# what a report caption says produced an entry
PROVENANCE = f"{CONFIG_FILE} (config hash {CONFIG_HASH})"
N_BOOT = config.get("figures", {}).get("n_boot", 1000)
WEIGHTED_PROBLEMS = [p for p in ("wtdmaxflow", "genwtd", "stretch") if p in SCHED_PROBLEMS]
# the Debian packages the PDF needs (the Makefile installs them as root; the PDF rule names them)
LATEX_PACKAGES = "latexmk texlive-latex-recommended texlive-fonts-recommended texlive-latex-extra"


def _sweeps(names):
    """Whether some experiment sweeps one of ``names`` (a list of more than one value) in an
    algorithm grid or in its adversary parameters."""
    names = [names] if isinstance(names, str) else list(names)
    for exp in config["experiments"].values():
        grids = [exp.get("params") or {}] if "adversary" in exp else []
        grids += [g or {} for g in exp["algorithms"].values()]
        for grid in grids:
            if any(isinstance(grid.get(n), list) and len(grid[n]) > 1 for n in names):
                return True
    return False


def paper_groups():
    """Section group -> (figures, tables) of the paper: exactly the files the pipeline writes for
    this config (a group with neither is left out of the PDF)."""
    groups = {g: ([], []) for g in PAPER_GROUPS}
    groups["claims"][0].extend(f"headline_{p}" for p in SCHED_PROBLEMS)
    groups["claims"][1].append("claims")
    if PRACTICE_FAMILIES:  # the practice comparison (practice.smk)
        groups["practice"][0].append("practice")
        groups["practice"][1].append("practice")

    def paged(problem):  # (stem, kind, pages): the appendix's paged figures of one problem
        return [
            (f"{k}_{problem}", "", page_count(len(figure_experiments(config["experiments"], k, problem))))
            for k in APPENDIX_KINDS
        ]

    for problem in ("load", "maxflow"):
        if problem in SCHED_PROBLEMS:
            groups[problem][0].extend(paged(problem))
    groups["weighted"][0].extend(f for p in WEIGHTED_PROBLEMS for f in paged(p))
    if ADVERSARY_EXPERIMENTS:
        if _sweeps(config.get("figures", {}).get("rounds_parameter", "K")):
            groups["adversaries"][0].append("adversary_rounds")
        groups["adversaries"][1].extend(["adversaries", "rejections"])
    if _sweeps(config.get("figures", {}).get("sweep_parameters", ["c"])):
        groups["summary"][0].append("parameter_sweep")
    groups["summary"][1].append("ratios")
    if LOSS_EXPERIMENTS:
        groups["loss"][0].extend((f"loss_{e}", LOSS["experiments"][e]["figure"]) for e in LOSS_EXPERIMENTS)
        groups["loss"][1].append("loss_slopes")
    if BIP_EXPERIMENTS:
        groups["bipartite"][0].extend((f"bipartite_{e}_{f}", f) for e, f in bip_figures())
        groups["bipartite"][1].extend(["bipartite_checks", "bipartite_rates"])
    if (config.get("search") or {}).get("tasks"):  # the worst-case search stage (search.smk)
        groups["search"][0].append("worst_cases")
        groups["search"][1].append("worst_cases")
    if EPS_SWEEP:  # the search swept over eps (search.smk)
        groups["eps_sweep"][0].extend(f"eps_sweep_{p}" for p in EPS_SWEEP_PROBLEMS)
        groups["eps_sweep"][1].append("eps_sweep")
    return groups


def paper_labels():
    """The LaTeX labels of the figures and tables the paper holds for this config."""
    labels = ["tab:methods"]
    for figures, tables in paper_groups().values():
        labels += [f"fig:{f if isinstance(f, str) else f[0]}" for f in figures]
        labels += [f"tab:{t}" for t in tables]
    return labels


def appendix_experiments(wildcards):
    """Per paged appendix figure (its kind), the experiments it draws for {problem}."""
    return {kind: figure_experiments(config["experiments"], kind, wildcards.problem) for kind in APPENDIX_KINDS}


def claims_inputs(wildcards):
    """The results tables the claims are judged on: the runs, and those this config makes."""
    out = {"runs": "results/runs.parquet"}
    if LOSS_EXPERIMENTS:
        out["loss_slopes"] = "results/loss_slopes.parquet"
    if BIP_EXPERIMENTS:
        out["bipartite_checks"] = "results/bipartite_checks.parquet"
        out["bipartite"] = "results/bipartite.parquet"
    if EPS_SWEEP:
        out["sweep_growth"] = "results/eps_sweep_growth.parquet"
    if PRACTICE_FAMILIES:
        out["practice_pairs"] = "results/practice_pairs.parquet"
    return out


def paper_files():
    """The figure and table files the paper includes (each a pipeline output)."""
    out = []
    for figures, tables in paper_groups().values():
        out += [f"paper/figures/{f if isinstance(f, str) else f[0]}.pdf" for f in figures]
        out += [f"paper/tables/{t}.tex" for t in tables]
    return out


def report_tables():
    return (
        ["results/report/runs_summary.html", "results/report/methods.html"]
        + (["results/report/loss_points.html", "results/report/loss_slopes.html"] if LOSS_EXPERIMENTS else [])
        + (["results/report/bipartite.html", "results/report/bipartite_checks.html"] if BIP_EXPERIMENTS else [])
    )


def paper_targets():
    """Everything the paper and the report are made of, the PDF excluded."""
    return (
        ["results/runs.parquet", "paper/macros.tex", "paper/macros_config.tex", "paper/tables/methods.tex"]
        + ["results/claims.parquet", "paper/tables/claims.tex", "paper/macros_findings.tex"]
        + [f"paper/generated/{g}.tex" for g in PAPER_GROUPS]
        + expand(
            "paper/figures/{kind}_{problem}.{ext}",
            kind=("headline", "ratio_vs_eps", "rejection_vs_eps", "ecdf"),
            problem=SCHED_PROBLEMS,
            ext=("pdf", "png"),
        )
        + expand("paper/figures/{name}.{ext}", name=("adversary_rounds", "parameter_sweep"), ext=("pdf", "png"))
        + ["paper/tables/ratios.tex", "paper/tables/adversaries.tex", "paper/tables/rejections.tex"]
        + (["results/practice_pairs.parquet", "paper/tables/practice.tex"] if PRACTICE_FAMILIES else [])
        + loss_targets()
        + bip_targets()
        + report_tables()
    )
