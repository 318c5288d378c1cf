# The paper's helpers (targets, section groups, provenance): functions only, the rules are in paper.smk.
import glob as _glob
import os as _os

from schedbench.hall.paper import GROUPS as PAPER_GROUPS
from schedbench.hall.wing import (
    wing_bench_keys,
    wing_claims_inputs,
    wing_figures,
    wing_paper_contents,
    wing_pdf_inputs,
    wing_report_tables,
    wing_targets,
)
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
N_BOOT = config["figures"]["n_boot"]
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


def _first(stems, preferred):
    """The stem of ``stems`` that ends with the first of ``preferred`` found, else the first."""
    for want in preferred:
        for stem in stems:
            if (stem if isinstance(stem, str) else stem[0]).endswith(want):
                return stem
    return stems[0]


def paper_groups():
    """Section group -> (figures, tables) of the PDF: the body shows one figure per results
    section (the one that carries its argument), the appendix group ``tables`` every table;
    the exhaustive figures (every experiment, algorithm and setting) are the HTML report's only.
    Exactly files the pipeline writes for this config (a group with neither is left out)."""
    groups = {g: ([], []) for g in PAPER_GROUPS}
    appendix = groups["tables"][1]
    appendix.append("methods")
    appendix.append("claims")
    if PRACTICE_FAMILIES:  # the practice comparison (practice.smk)
        groups["practice"][0].append("practice")
        groups["practice"][1].append("practice")
    if ADVERSARY_EXPERIMENTS:  # the separation figure; every adversary's rounds are the report's
        groups["adversaries"][0].append("separation")
        appendix.extend(["adversaries", "rejections"])
    if EPS_SWEEP:  # the search swept over eps (search.smk): the max-flow sweep in the body
        groups["eps_sweep"][0].append(_first([f"eps_sweep_{p}" for p in EPS_SWEEP_PROBLEMS], ["maxflow"]))
        appendix.append("eps_sweep")
    if (config.get("search") or {}).get("tasks"):  # the worst-case search stage (search.smk): its table
        groups["search"][1].append("worst_cases")
    for group, figures, tables in wing_paper_contents(config):  # each wing's choice (Wing.paper_contents)
        groups[group][0].extend(figures)
        groups[group][1].extend(tables)
    return groups


def report_figures():
    """The figure files the pipeline writes for the HTML report only (each with its PNG twin)."""
    shown = {
        f"paper/figures/{f if isinstance(f, str) else f[0]}.pdf" for figs, _ in paper_groups().values() for f in figs
    }
    written = expand(
        "paper/figures/{kind}_{problem}.pdf",
        kind=("headline", "ratio_vs_eps", "rejection_vs_eps", "ecdf"),
        problem=SCHED_PROBLEMS,
    )
    written += (
        ["paper/figures/adversary_rounds.pdf"]
        if ADVERSARY_EXPERIMENTS and _sweeps(config["figures"]["rounds_parameter"])
        else []
    )
    written += ["paper/figures/parameter_sweep.pdf"] if _sweeps(config["figures"]["sweep_parameters"]) else []
    written += [f"paper/figures/eps_sweep_{p}.pdf" for p in EPS_SWEEP_PROBLEMS] if EPS_SWEEP else []
    written += ["paper/figures/worst_cases.pdf"] if (config.get("search") or {}).get("tasks") else []
    written += wing_figures(config)
    return sorted(set(written) - shown)


def paper_labels():
    """The LaTeX labels of the figures and tables the paper holds for this config, and
    ``report:fig:<stem>`` for each figure the HTML report alone holds (hall.claims.evidence_ref)."""
    labels = ["tab:methods"]
    for figures, tables in paper_groups().values():
        labels += [f"fig:{f if isinstance(f, str) else f[0]}" for f in figures]
        labels += [f"tab:{t}" for t in tables]
    return labels + [f"report:fig:{_os.path.basename(f)[:-4]}" for f in report_figures()]


def appendix_experiments(wildcards):
    """Per paged appendix figure (its kind), the experiments it draws for {problem}."""
    return {kind: figure_experiments(config["experiments"], kind, wildcards.problem) for kind in APPENDIX_KINDS}


def claims_inputs(wildcards):
    """The results tables the claims are judged on: the runs, those of the wings this config runs
    (Wing.claims_inputs) and the scheduling stages' it makes."""
    out = {"runs": "results/runs.parquet"} | wing_claims_inputs(config)
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
    """The HTML report tables: the scheduling runs' and each wing's for this config (Wing.report_tables)."""
    return ["results/report/runs_summary.html", "results/report/methods.html"] + wing_report_tables(config)


def paper_targets():
    """Everything the paper and the report are made of, the PDF excluded: the scheduling wing's
    (its rules are the core files) and each registered wing's for this config (Wing.targets)."""
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
        + expand(
            "paper/figures/{name}.{ext}", name=("adversary_rounds", "parameter_sweep", "separation"), ext=("pdf", "png")
        )
        + ["results/tables/ratios.tex", "paper/tables/adversaries.tex", "paper/tables/rejections.tex"]
        + (["results/practice_pairs.parquet", "paper/tables/practice.tex"] if PRACTICE_FAMILIES else [])
        + wing_targets(config)
        + report_tables()
    )
