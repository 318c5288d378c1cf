# Thin: join the online parts with the OPT parts, add provenance, check the schema, write runs.parquet.
from schedbench.hall.io import check_results, provenance, read_parquet, write_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.registry import plugin_files
from schedbench.scheduling.stage.results import assemble

with logged(snakemake.log[0], "collect_runs") as log:
    table = assemble(
        [read_parquet(p) for p in snakemake.input.parts],
        [read_parquet(p) for p in snakemake.input.opts],
        provenance(snakemake.params.config_hash, plugin_files()),
    )
    check_results(table, snakemake.input.schema)
    log.info("%d rows; status %s", len(table), table["status"].value_counts().to_dict())
    write_parquet(table, snakemake.output[0])
