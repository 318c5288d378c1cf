# Thin: results/loss.parquet -> every loss figure (A1..A5), one per experiment, in one job.
from schedbench.hall.io import read_parquet
from schedbench.hall.logs import logged
from schedbench.loss.stage.figures import LOSS_FIGURES

with logged(snakemake.log[0], "loss_figures"):
    table = read_parquet(snakemake.input[0])
    for (experiment, figure), path in zip(snakemake.params.figures.items(), snakemake.output.pdf):
        LOSS_FIGURES[figure](table[table["experiment"] == experiment], path)
