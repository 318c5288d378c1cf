# Thin: runs.parquet -> paper/figures/ecdf_{problem}.pdf (+ .png): performance profiles of one problem
from schedbench.hall.io import read_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.figures import plot_ecdf

with logged(snakemake.log[0], "figure_ecdf"):
    plot_ecdf(
        read_parquet(snakemake.input[0]),
        snakemake.output.pdf,
        problem=snakemake.wildcards.problem,
        experiments=list(snakemake.params.experiments),
    )
