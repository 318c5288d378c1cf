# Thin: one (series, problem, algorithm) of search.eps_sweep -> results/eps_sweep/{series}/{problem}/{algorithm}/*.json
from schedbench.hall.logs import logged
from schedbench.scheduling.engine import AlgorithmError
from schedbench.scheduling.stage.eps_sweep import point_files, run_sweep

# a plug-in's run past its time limit (an AlgorithmError reaching here): one line in the log, the job fails
with logged(snakemake.log[0], "eps_sweep_algorithm", one_line=(AlgorithmError,)) as log:
    wc, section = snakemake.wildcards, dict(snakemake.params.section)
    outputs = point_files(snakemake.output.points, section, wc.sweep_series)
    rows = run_sweep(
        wc.sweep_series,
        wc.sweep_problem,
        wc.algorithm,
        section,
        int(snakemake.params.seed),
        outputs,
        run_seconds=float(snakemake.params.run_seconds),
    )
    for row in rows:
        log.info("%s", row)
