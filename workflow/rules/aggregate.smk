rule collect_runs:
    """The tidy results table: all runs joined with their instances' OPT, provenance, checked
    against its schema."""
    input:
        parts=online_parts(),
        opts=opt_parts(),
        schema="workflow/schemas/results.schema.yaml",
        sources=sources_of("collect_runs.py"),
        plugins=plugin_files(),  # their hashes go into the table's provenance
    output:
        "results/runs.parquet",
    log:
        "results/logs/collect_runs.log",
    benchmark:
        "results/benchmarks/collect_runs.tsv"
    localrule: True
    params:
        config_hash=CONFIG_HASH,
    script:
        "../scripts/collect_runs.py"
