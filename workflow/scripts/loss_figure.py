# Thin: results/loss.parquet -> one figure (A1..A5) for one experiment.
from schedbench.hall.io import read_parquet
from schedbench.hall.logs import logged
from schedbench.loss.stage.figures import LOSS_FIGURES

with logged(snakemake.log[0], "loss_figure"):
    table = read_parquet(snakemake.input[0])
    LOSS_FIGURES[snakemake.params.figure](
        table[table["experiment"] == snakemake.wildcards.experiment], snakemake.output[0]
    )
