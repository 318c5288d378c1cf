rule run_online:
    """One algorithm, all its parameters and all eps, on one batch; every outcome validated."""
    input:
        instances="results/{experiment}/instances/batch-{batch}",
        opt="results/{experiment}/opt/batch-{batch}.parquet",
        sources=CORE_SOURCES,
        algorithm=algorithm_sources,
    output:
        "results/{experiment}/online/{algorithm}/batch-{batch}.parquet",
    params:
        grid=lambda wc: exp_cfg(wc.experiment)["algorithms"][wc.algorithm] or {},
        eps=lambda wc: exp_eps(wc.experiment),
        seed=config["seed"],
    log:
        "results/logs/run_online/{experiment}-{algorithm}-{batch}.log",
    script:
        "../scripts/run_online.py"
