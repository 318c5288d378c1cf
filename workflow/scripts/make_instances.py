# Thin: one batch of instances -> one .npz per instance.
from schedbench.scheduling.stage.prepare import make_instances
from schedbench.hall.logs import logged
from schedbench.scheduling.instances.base import FamilyError

# a plug-in family's generator past its time limit or raising: one line in the log, the job fails
with logged(snakemake.log[0], "make_instances", one_line=(FamilyError,)) as log:
    paths = make_instances(
        snakemake.wildcards.experiment,
        snakemake.params.exp_cfg,
        int(snakemake.params.seed),
        snakemake.params.indices,
        snakemake.output[0],
        problem=snakemake.params.problem,
        run_seconds=float(snakemake.params.run_seconds),
    )
    log.info("wrote %d instances to %s", len(paths), snakemake.output[0])
