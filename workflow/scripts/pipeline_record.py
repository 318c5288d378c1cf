# Thin: this run's command, config, code, machine and per-rule times -> results/pipeline_record.json
from schedbench.hall.logs import logged
from schedbench.hall.pipeline_record import pipeline_record, write_record
from schedbench.scheduling.registry import plugin_files

with logged(snakemake.log[0], "pipeline_record") as log:
    record = pipeline_record(
        dict(snakemake.config),
        snakemake.params.config_hash,
        snakemake.params.config_files,
        snakemake.params.bench_root,
        plugin_files(),
        patterns=snakemake.params.patterns,
    )
    log.info("%d rules, %d jobs", len(record["rules"]), len(record["jobs"]))
    write_record(snakemake.output[0], record)
