# Thin: runs.parquet -> paper/figures/parameter_sweep.pdf (ratio, rejection, wasted work vs a swept parameter)
from schedbench.hall.io import read_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.figures import plot_sweep

with logged(snakemake.log[0], "figure_parameter_sweep"):
    plot_sweep(
        read_parquet(snakemake.input[0]),
        list(snakemake.params.parameters),
        snakemake.output[0],
        n_boot=int(snakemake.params.n_boot),
    )
