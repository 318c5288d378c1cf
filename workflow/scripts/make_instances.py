# Thin: one batch of instances -> one .npz per instance.
from schedbench.scheduling.stage.prepare import make_instances
from schedbench.hall.logs import logged

with logged(snakemake.log[0], "make_instances") as log:
    paths = make_instances(
        snakemake.wildcards.experiment,
        snakemake.params.exp_cfg,
        int(snakemake.params.seed),
        snakemake.params.indices,
        snakemake.output[0],
        problem=snakemake.params.problem,
    )
    log.info("wrote %d instances to %s", len(paths), snakemake.output[0])
