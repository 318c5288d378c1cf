# Thin: runs.parquet -> paper/figures/headline_{problem}.pdf (one problem)
from schedbench.hall.io import read_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.headline import plot_headline

with logged(snakemake.log[0], "figure_headline") as log:
    panels = plot_headline(read_parquet(snakemake.input[0]), snakemake.wildcards.problem, snakemake.output.pdf)
    log.info("panels: %s", panels)
