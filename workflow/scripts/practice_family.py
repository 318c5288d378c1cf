# Thin: one family of the practice comparison -> results/practice/<family>.parquet (tuning and test runs)
from schedbench.hall.io import write_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.practice import run_family

with logged(snakemake.log[0], "practice_family") as log:
    table = run_family(snakemake.wildcards.practice_family, snakemake.params.section, int(snakemake.params.seed))
    log.info("%d runs: %s", len(table), table.groupby("split")["status"].value_counts().to_dict())
    write_parquet(table, snakemake.output[0])
