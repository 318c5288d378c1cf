rule solve_offline:
    """OPT (HiGHS MILP / max-flow) or a bound for each instance of a family batch, or of the
    instances an adversary realised against one algorithm."""
    input:
        instances=offline_input,
        sources=sources_of("solve_offline.py"),
    output:
        "results/{experiment}/opt/{part}.parquet",
    log:
        "results/logs/solve_offline/{experiment}-{part}.log",
    benchmark:
        "results/benchmarks/solve_offline/{experiment}-{part}.tsv"
    params:
        problem=exp_problem,
        time_limit=exp_opt_limit("time_limit"),
        work_limit=exp_opt_limit("work_limit"),
        seed=config["seed"],
    script:
        "../scripts/solve_offline.py"
