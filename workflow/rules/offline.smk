rule solve_offline:
    """Offline optimum (HiGHS MILP / max-flow bound) of each instance of a batch."""
    input:
        instances="results/{experiment}/instances/batch-{batch}",
        sources=OFFLINE_SOURCES,
    output:
        "results/{experiment}/opt/batch-{batch}.parquet",
    params:
        time_limit=config.get("opt", {}).get("time_limit", 60),
        seed=config["seed"],
    log:
        "results/logs/solve_offline/{experiment}-{batch}.log",
    script:
        "../scripts/solve_offline.py"
