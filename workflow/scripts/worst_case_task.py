# Thin: one search task of the config -> results/search/{task}.json (replayed worst case)
from schedbench.hall.logs import logged
from schedbench.scheduling.engine import AlgorithmError
from schedbench.scheduling.stage.search import run_task

# a plug-in's run past its time limit (an AlgorithmError reaching here): one line in the log, the job fails
with logged(snakemake.log[0], "worst_case_task", one_line=(AlgorithmError,)) as log:
    row = run_task(
        snakemake.wildcards.task,
        dict(snakemake.params.task),
        int(snakemake.params.seed),
        snakemake.output[0],
        run_seconds=float(snakemake.params.run_seconds),
    )
    log.info("%s", row)
