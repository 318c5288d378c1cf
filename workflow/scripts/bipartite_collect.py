# Thin: concatenate bipartite chunks, add provenance, check the schema.
import pandas as pd

from schedbench.hall.io import check_table, provenance, read_parquet, write_parquet
from schedbench.hall.logs import logged

with logged(snakemake.log[0], "bipartite_collect") as log:
    table = pd.concat([read_parquet(p) for p in snakemake.input.parts], ignore_index=True)
    table = table.sort_values(["experiment", "degree_label", "rho", "N", "policy"], kind="stable").reset_index(
        drop=True
    )
    for key, value in provenance(snakemake.params.config_hash).items():
        table[key] = value
    check_table(table, snakemake.input.schema, name="bipartite table")
    log.info("%d rows; status %s", len(table), table["status"].value_counts().to_dict())
    write_parquet(table, snakemake.output[0])
