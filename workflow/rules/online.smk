rule run_online:
    """One algorithm, all its parameters and all eps, on one batch; every outcome validated."""
    input:
        instances="results/{experiment}/instances/batch-{batch}",
        opt="results/{experiment}/opt/batch-{batch}.parquet",
        sources=lambda wc: sources_of("run_online.py", algorithm_module(wc)),
    output:
        "results/{experiment}/online/{algorithm}/batch-{batch}.parquet",
    log:
        "results/logs/run_online/{experiment}-{algorithm}-{batch}.log",
    benchmark:
        "results/benchmarks/run_online/{experiment}-{algorithm}-{batch}.tsv"
    params:
        grid=lambda wc: exp_cfg(wc.experiment)["algorithms"][wc.algorithm] or {},
        eps=lambda wc: exp_eps(wc.experiment),
        seed=config["seed"],
        problem=exp_problem,
    script:
        "../scripts/run_online.py"


rule run_adversary:
    """An adaptive adversary against one algorithm (all parameters, eps, seeds); every outcome
    validated, every realised instance saved for the offline solver."""
    input:
        sources=lambda wc: sources_of("run_adversary.py", algorithm_module(wc), adversary_module(wc)),
    output:
        runs="results/{experiment}/online/{algorithm}/adversary.parquet",
        realised=directory("results/{experiment}/realised/{algorithm}"),
    log:
        "results/logs/run_adversary/{experiment}-{algorithm}.log",
    benchmark:
        "results/benchmarks/run_adversary/{experiment}-{algorithm}.tsv"
    params:
        exp_cfg=lambda wc: exp_cfg(wc.experiment),
        grid=lambda wc: exp_cfg(wc.experiment)["algorithms"][wc.algorithm] or {},
        eps=lambda wc: exp_eps(wc.experiment),
        seed=config["seed"],
    script:
        "../scripts/run_adversary.py"
