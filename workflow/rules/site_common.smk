# The site's and the pipeline record's helpers: functions only, the rules are in site.smk.
from schedbench.hall.site import asset_files
from schedbench.hall.wing import wing_site_tables


def site_tables():
    """The results tables the site shows, by name (hall.site reads any table it is given): the runs
    and claims, and those this config makes (each wing's: Wing.site_tables)."""
    out = {
        "runs": "results/runs.parquet",
        "claims": "results/claims.parquet",
        "worst_cases": "results/worst_cases.parquet",  # written with no search tasks too (empty)
    }
    if PRACTICE_FAMILIES:
        out["practice_pairs"] = "results/practice_pairs.parquet"
        out["practice_runs"] = "results/practice_runs.parquet"
    out.update(wing_site_tables(config))
    if EPS_SWEEP:
        out.update(eps_sweep="results/eps_sweep.parquet", eps_sweep_growth="results/eps_sweep_growth.parquet")
    return out


def record_inputs():
    """What the record waits for: every output of the run but the site and the PDF (LaTeX is
    optional: a run without it omits the PDF rule, and must keep its record and site), and the
    source manifests of those two, so that every source_manifest job is timed."""
    return (
        paper_targets()
        + ["paper/tables/worst_cases.tex", "paper/generated/reproducibility.tex"]
        + [sources_of("site.py", *ALGORITHM_MODULES), sources_of("paper_pdf.py")]
    )


def benchmark_patterns(wildcards):
    """Rule -> the pattern of its benchmark file (for each rule that declares one), by which the
    record names each benchmark file's rule (a folder need not be the rule's name)."""
    return {r.name: str(r.benchmark) for r in workflow.rules if r.benchmark}
