# Thin: runs.parquet -> paper/figures/adversary_rounds.pdf (ALG/OPT vs an adversary's rounds)
from schedbench.hall.io import read_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.figures import plot_rounds

with logged(snakemake.log[0], "figure_adversary_rounds"):
    plot_rounds(
        read_parquet(snakemake.input[0]),
        snakemake.params.parameter,
        snakemake.output[0],
        n_boot=int(snakemake.params.n_boot),
    )
