rule collect_runs:
    """The tidy results table: all runs, provenance, checked against its schema."""
    input:
        parts=online_parts(),
        schema="workflow/schemas/results.schema.yaml",
        sources=[_source(schedbench.pipeline.results), _source(schedbench.pipeline.io)],
    output:
        "results/runs.parquet",
    params:
        config_hash=CONFIG_HASH,
    log:
        "results/logs/collect_runs.log",
    script:
        "../scripts/collect_runs.py"
