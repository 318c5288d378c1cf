# Thin: one algorithm against the experiment's adversary -> validated rows + realised instances.
from schedbench.scheduling.stage.experiment import run_adversary
from schedbench.hall.io import write_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.engine import AlgorithmError

# a run past its time limit (an AlgorithmError reaching here): one line in the log, the job fails
with logged(snakemake.log[0], "run_adversary", one_line=(AlgorithmError,)) as log:
    table = run_adversary(
        snakemake.wildcards.experiment,
        snakemake.params.exp_cfg,
        snakemake.wildcards.algorithm,
        snakemake.params.grid,
        snakemake.params.eps,
        int(snakemake.params.seed),
        snakemake.output.realised,
        float(snakemake.params.run_seconds),
    )
    log.info("%d runs: %s", len(table), table["status"].value_counts().to_dict())
    write_parquet(table, snakemake.output.runs)
