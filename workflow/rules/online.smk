rule run_online:
    """Every algorithm of the experiment, all their parameters and all eps, on one batch (one
    job per batch: a job's fixed start-up cost is paid once for all algorithms); every outcome
    validated. Its sources are the union of the algorithms' modules: editing an algorithm
    reruns the batches of the experiments that run it."""
    input:
        instances="results/{experiment}/instances/batch-{batch}",
        opt="results/{experiment}/opt/batch-{batch}.parquet",
        sources=lambda wc: sources_of("run_online.py", *experiment_algorithm_modules(wc)),
    output:
        "results/{experiment}/online/batch-{batch}.parquet",
    log:
        "results/logs/run_online/{experiment}-{batch}.log",
    benchmark:
        "results/benchmarks/run_online/{experiment}-{batch}.tsv"
    params:
        algorithms=lambda wc: {
            alg: exp_cfg(wc.experiment)["algorithms"][alg] or {} for alg in exp_algorithms(wc.experiment)
        },
        eps=lambda wc: exp_eps(wc.experiment),
        seed=config["seed"],
        problem=exp_problem,
        run_seconds=config["plugin_time_limit"],
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
        run_seconds=config["plugin_time_limit"],
    script:
        "../scripts/run_adversary.py"
