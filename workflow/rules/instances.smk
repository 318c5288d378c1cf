rule make_instances:
    """One batch of instances of a family experiment, one .npz file each."""
    input:
        sources=lambda wc: sources_of("make_instances.py", family_module(wc)),
        data=family_data,
    output:
        directory("results/{experiment}/instances/batch-{batch}"),
    log:
        "results/logs/make_instances/{experiment}-{batch}.log",
    benchmark:
        "results/benchmarks/make_instances/{experiment}-{batch}.tsv"
    params:
        indices=batch_indices,
        exp_cfg=lambda wc: instance_cfg(wc.experiment),
        seed=config["seed"],
        problem=exp_problem,
        run_seconds=config["plugin_time_limit"],
    script:
        "../scripts/make_instances.py"
