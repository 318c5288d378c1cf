# Thin: one (problem, algorithm) of search.eps_sweep -> results/eps_sweep/{problem}/{algorithm}/eps_*.json
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.eps_sweep import run_sweep

with logged(snakemake.log[0], "eps_sweep_algorithm") as log:
    rows = run_sweep(
        snakemake.wildcards.sweep_problem,
        snakemake.wildcards.algorithm,
        dict(snakemake.params.section),
        int(snakemake.params.seed),
        list(snakemake.output.points),
    )
    for row in rows:
        log.info("%s", row)
