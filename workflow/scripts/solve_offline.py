# Thin: offline optimum of every instance of a batch -> one parquet row each.
from schedbench.scheduling.stage.prepare import solve_offline
from schedbench.hall.io import instance_files, write_parquet
from schedbench.hall.logs import logged

with logged(snakemake.log[0], "solve_offline") as log:
    paths = instance_files(snakemake.input.instances)
    table = solve_offline(
        paths,
        snakemake.params.problem,
        float(snakemake.params.time_limit),
        int(snakemake.params.seed),
        n_jobs=snakemake.threads,
        work_limit=float(snakemake.params.work_limit),
    )
    log.info("%d instances: %s", len(table), table["opt_status"].value_counts().to_dict())
    write_parquet(table, snakemake.output[0])
