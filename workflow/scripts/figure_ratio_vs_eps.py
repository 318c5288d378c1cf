# Thin: runs.parquet -> paper/figures/ratio_vs_eps_{problem}.pdf (one problem, a PDF page per few experiments)
from schedbench.hall.io import read_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.figures import plot_ratio_vs_eps

with logged(snakemake.log[0], "figure_ratio_vs_eps") as log:
    order = plot_ratio_vs_eps(
        read_parquet(snakemake.input[0]),
        snakemake.output[0],
        n_boot=int(snakemake.params.n_boot),
        problem=snakemake.wildcards.problem,
        experiments=list(snakemake.params.experiments),
    )
    log.info("legend order: %s", order)
