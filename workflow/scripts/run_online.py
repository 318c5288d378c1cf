# Thin: every algorithm of the experiment (all parameters, all eps) on one batch -> validated rows.
from schedbench.scheduling.stage.experiment import run_online_batch
from schedbench.hall.io import instance_files, read_parquet, write_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.engine import AlgorithmError

# a run past its time limit (an AlgorithmError reaching here): one line in the log, the job fails
with logged(snakemake.log[0], "run_online", one_line=(AlgorithmError,)) as log:
    paths = instance_files(snakemake.input.instances)
    table = run_online_batch(
        paths,
        read_parquet(snakemake.input.opt),
        snakemake.params.algorithms,
        snakemake.params.eps,
        int(snakemake.params.seed),
        n_jobs=snakemake.threads,
        problem=snakemake.params.problem,
        run_seconds=float(snakemake.params.run_seconds),
    )
    log.info("%d runs: %s", len(table), table["status"].value_counts().to_dict())
    write_parquet(table, snakemake.output[0])
