# Thin: runs.parquet -> paper/figures/separation.pdf (+ .png): rejection vs speed against m on the immediate-dispatch construction
from schedbench.hall.io import read_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.separation import plot_separation

with logged(snakemake.log[0], "figure_separation"):
    plot_separation(read_parquet(snakemake.input[0]), snakemake.output.pdf)
