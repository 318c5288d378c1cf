# Thin: runs.parquet -> one problem's figures: paper/figures/{headline,ratio_vs_eps,rejection_vs_eps,ecdf}_{problem}.pdf (+ .png)
from schedbench.hall.io import read_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.figures import plot_ecdf, plot_vs_eps
from schedbench.scheduling.stage.headline import plot_headline

with logged(snakemake.log[0], "scheduling_figures") as log:
    runs = read_parquet(snakemake.input[0])
    problem, out = snakemake.wildcards.problem, snakemake.output
    drawn = snakemake.params.experiments  # per paged figure, its experiments (one row each)
    n_boot = int(snakemake.params.n_boot)
    log.info("headline panels: %s", plot_headline(runs, problem, out.headline))
    for what, legends in (("ratio", "ALG/OPT"), ("rejection", "rejected-fraction")):
        name = f"{what}_vs_eps"
        entries = plot_vs_eps(
            runs, getattr(out, name), what, n_boot=n_boot, problem=problem, experiments=list(drawn[name])
        )
        log.info("%s legends: %s", legends, entries)
    plot_ecdf(runs, out.ecdf, problem=problem, experiments=list(drawn["ecdf"]))
