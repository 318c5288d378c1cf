# The pipeline record and the results explorer (docs/explorer.md): the last two jobs of a run.
include: "site_common.smk"


rule pipeline_record:
    """The pipeline record: command, config and its hash, commit, versions and plug-in hashes,
    machine, start and end, and per rule the time and memory of its jobs (hall.pipeline_record)."""
    input:
        done=record_inputs(),
        sources=sources_of("pipeline_record.py"),
        plugins=plugin_files(),  # their hashes go into the record
    output:
        "results/pipeline_record.json",
    log:
        "results/logs/pipeline_record.log",
    benchmark:
        "results/benchmarks/pipeline_record.tsv"
    localrule: True
    params:
        config_hash=CONFIG_HASH,
        config_files=CONFIG_FILE.split(", "),
        bench_root="results/benchmarks",
        patterns=benchmark_patterns,
    script:
        "../scripts/pipeline_record.py"


rule site:
    """The results explorer: results/site/index.html and the pages beside it, opening from the
    file system with no server and no network (hall.site)."""
    input:
        **site_tables(),
        record="results/pipeline_record.json",
        assets=asset_files(),  # app.js and style.css: not imports, so declared here
        sources=sources_of("site.py", *ALGORITHM_MODULES),
    output:
        directory("results/site"),
    log:
        "results/logs/site.log",
    benchmark:
        "results/benchmarks/site.tsv"
    localrule: True
    script:
        "../scripts/site.py"
