# Thin: results/bipartite.parquet -> every bipartite figure (B1..B5 per experiment) in one job.
from schedbench.hall.io import read_parquet
from schedbench.hall.logs import logged
from schedbench.bipartite.stage.figures import BIPARTITE_FIGURES

with logged(snakemake.log[0], "bipartite_figures"):
    table = read_parquet(snakemake.input[0])
    for (experiment, figure), path in zip(snakemake.params.figures, snakemake.output.pdf):
        BIPARTITE_FIGURES[figure](table[table["experiment"] == experiment], path)
