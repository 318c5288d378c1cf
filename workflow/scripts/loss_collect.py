# Thin: concatenate loss chunks, add provenance, check the schema, fit slopes.
import pandas as pd

from schedbench.hall.io import check_table, provenance, read_parquet, write_parquet
from schedbench.hall.logs import logged
from schedbench.loss.stage.slopes import slope_table

with logged(snakemake.log[0], "loss_collect") as log:
    table = pd.concat([read_parquet(p) for p in snakemake.input.parts], ignore_index=True)
    table = table.sort_values(["experiment", "d", "alpha", "k_label", "n"], kind="stable").reset_index(drop=True)
    for key, value in provenance(snakemake.params.config_hash).items():
        table[key] = value
    check_table(table, snakemake.input.schema, name="loss table")
    slopes = slope_table(table, min_n=int(snakemake.params.fit_min_n))
    log.info("%d points, %d fitted series", len(table), len(slopes))
    write_parquet(table, snakemake.output.table)
    write_parquet(slopes, snakemake.output.slopes)
