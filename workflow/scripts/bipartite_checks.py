# Thin: table T2, the simulator against exact values and limits.
import pandas as pd

from schedbench.hall.io import write_parquet
from schedbench.hall.logs import logged
from schedbench.bipartite.stage.checks import run_checks

with logged(snakemake.log[0], "bipartite_checks") as log:
    table = pd.DataFrame(run_checks(int(snakemake.params.seed), int(snakemake.params.arrivals)))
    log.info("%d checks, %d passed", len(table), int(table["passed"].sum()))
    write_parquet(table, snakemake.output[0])
