# Thin: results/bipartite.parquet -> one figure (B1..B5) for one experiment.
from schedbench.hall.io import read_parquet
from schedbench.hall.logs import logged
from schedbench.bipartite.stage.figures import BIPARTITE_FIGURES

with logged(snakemake.log[0], "bipartite_figure"):
    table = read_parquet(snakemake.input[0])
    BIPARTITE_FIGURES[snakemake.wildcards.figure](
        table[table["experiment"] == snakemake.wildcards.experiment], snakemake.output[0]
    )
