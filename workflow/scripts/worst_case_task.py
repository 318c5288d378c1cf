# Thin: one search task of the config -> results/search/{task}.json (replayed worst case)
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.search import run_task

with logged(snakemake.log[0], "worst_case_task") as log:
    row = run_task(
        snakemake.wildcards.task, dict(snakemake.params.task), int(snakemake.params.seed), snakemake.output[0]
    )
    log.info("%s", row)
