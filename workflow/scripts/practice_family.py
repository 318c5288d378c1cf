# Thin: one family of the practice comparison -> results/practice/<family>.parquet (tuning and test runs)
from schedbench.hall.io import write_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.engine import AlgorithmError
from schedbench.scheduling.instances.base import FamilyError
from schedbench.scheduling.stage.practice import run_family

# a plug-in's run or instance past its time limit (an AlgorithmError or FamilyError reaching here):
# one line in the log, the job fails
with logged(snakemake.log[0], "practice_family", one_line=(AlgorithmError, FamilyError)) as log:
    table = run_family(
        snakemake.wildcards.practice_family,
        snakemake.params.section,
        int(snakemake.params.seed),
        run_seconds=float(snakemake.params.run_seconds),
    )
    log.info("%d runs: %s", len(table), table.groupby("split")["status"].value_counts().to_dict())
    write_parquet(table, snakemake.output[0])
