# The pipeline record and the results explorer (docs/explorer.md): the last two jobs of a run.
from schedbench.hall.site import asset_files


def site_tables():
    """The results tables the site shows, by name (hall.site.TABLES): the runs and claims, and
    those this config makes."""
    out = {
        "runs": "results/runs.parquet",
        "claims": "results/claims.parquet",
        "worst_cases": "results/worst_cases.parquet",  # written with no search tasks too (empty)
    }
    if PRACTICE_FAMILIES:
        out["practice_pairs"] = "results/practice_pairs.parquet"
    if LOSS_EXPERIMENTS:
        out.update(loss="results/loss.parquet", loss_slopes="results/loss_slopes.parquet")
    if BIP_EXPERIMENTS:
        out.update(bipartite="results/bipartite.parquet", bipartite_checks="results/bipartite_checks.parquet")
    if EPS_SWEEP:
        out.update(eps_sweep="results/eps_sweep.parquet", eps_sweep_growth="results/eps_sweep_growth.parquet")
    return out


def record_inputs():
    """What the record waits for: every output of the run but the site and the PDF (LaTeX is
    optional: a run without it omits the PDF rule, and must keep its record and site)."""
    return paper_targets() + ["paper/tables/worst_cases.tex"]


rule pipeline_record:
    """The pipeline record: command, config and its hash, commit, versions and plug-in hashes,
    machine, start and end, and per rule the time and memory of its jobs (hall.pipeline_record)."""
    input:
        done=record_inputs(),
        sources=sources_of("pipeline_record.py"),
        plugins=plugin_files(),  # their hashes go into the record
    output:
        "results/pipeline_record.json",
    log:
        "results/logs/pipeline_record.log",
    benchmark:
        "results/benchmarks/pipeline_record.tsv"
    localrule: True
    params:
        config_hash=CONFIG_HASH,
        config_files=CONFIG_FILE.split(", "),
        bench_root="results/benchmarks",
    script:
        "../scripts/pipeline_record.py"


rule site:
    """The results explorer: results/site/index.html and the pages beside it, opening from the
    file system with no server and no network (hall.site)."""
    input:
        **site_tables(),
        record="results/pipeline_record.json",
        assets=asset_files(),  # app.js and style.css: not imports, so declared here
        sources=sources_of("site.py", *ALGORITHM_MODULES),
    output:
        directory("results/site"),
    log:
        "results/logs/site.log",
    benchmark:
        "results/benchmarks/site.tsv"
    localrule: True
    script:
        "../scripts/site.py"
