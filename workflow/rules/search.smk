# The worst-case search: one job per task of the config's `search` section
# (SEARCH and SEARCH_TASKS come from common.smk).
ADVERSARY_MODULES = sorted({get_adversary(name).__module__ for name in adversary_names()})


wildcard_constraints:
    task=r"[A-Za-z0-9_]+",
    sweep_problem=r"[a-z]+",
    sweep_series=r"[a-z][a-z0-9_]*",


rule worst_case_task:
    """One exact (CP-SAT) or black-box worst-case search; what it finds is replayed through the
    real plug-in and the real offline solver before it is written."""
    input:
        sources=lambda wc: sources_of(
            "worst_case_task.py", get_algorithm(SEARCH["tasks"][wc.task]["algorithm"]).__module__, *ADVERSARY_MODULES
        ),
    output:
        "results/search/{task}.json",
    log:
        "results/logs/search/{task}.log",
    benchmark:
        "results/benchmarks/worst_case_task/{task}.tsv"
    params:
        task=lambda wc: SEARCH["tasks"][wc.task],
        seed=SEARCH.get("seed", config["seed"]),
        run_seconds=config["plugin_time_limit"],
    script:
        "../scripts/worst_case_task.py"


rule worst_case_table:
    input:
        tasks=expand("results/search/{task}.json", task=SEARCH_TASKS),
        runs="results/runs.parquet",
        sources=sources_of("worst_case_table.py"),
    output:
        table="results/worst_cases.parquet",
        tex="paper/tables/worst_cases.tex",
        figure="paper/figures/worst_cases.pdf",
        png=report(
            "paper/figures/worst_cases.png",
            caption="../report/worst_cases.rst",
            category="Worst-case search",
            subcategory="Figures",
            labels={"figure": "worst cases found"},
        ),
    log:
        "results/logs/worst_case_table.log",
    benchmark:
        "results/benchmarks/worst_case_table.tsv"
    localrule: True
    params:
        provenance=PROVENANCE,
    script:
        "../scripts/worst_case_table.py"


# search.eps_sweep (only when the config has one)
if EPS_SWEEP:

    rule eps_sweep_algorithm:
        """The black-box search of one algorithm on one problem at every point of one series of
        search.eps_sweep (a directory of one worst case per point: a series' points vary in
        number), each seeded from the adversaries played there and from the previous point's
        worst case; every find is replayed through the real plug-in and the real offline solver
        before it is written."""
        input:
            sources=lambda wc: sources_of(
                "eps_sweep_task.py", get_algorithm(wc.algorithm).__module__, *ADVERSARY_MODULES
            ),
        output:
            points=directory("results/eps_sweep/{sweep_series}/{sweep_problem}/{algorithm}"),
        log:
            "results/logs/eps_sweep/{sweep_series}/{sweep_problem}/{algorithm}.log",
        benchmark:
            "results/benchmarks/eps_sweep/{sweep_series}/{sweep_problem}/{algorithm}.tsv"
        params:
            section=EPS_SWEEP,
            seed=EPS_SWEEP.get("seed", SEARCH.get("seed", config["seed"])),
            run_seconds=config["plugin_time_limit"],
        script:
            "../scripts/eps_sweep_task.py"

    rule eps_sweep_table:
        """The sweep's points, the growth table and one figure per problem (a row per series)."""
        input:
            points=sweep_directories("results/eps_sweep", EPS_SWEEP),
            sources=sources_of("eps_sweep_table.py"),
        output:
            table="results/eps_sweep.parquet",
            growth="results/eps_sweep_growth.parquet",
            tex="paper/tables/eps_sweep.tex",
            figures=expand("paper/figures/eps_sweep_{problem}.pdf", problem=EPS_SWEEP_PROBLEMS),
            pngs=[
                report(
                    f"paper/figures/eps_sweep_{problem}.png",
                    caption="../report/eps_sweep.rst",
                    category="Worst-case search",
                    subcategory="Figures",
                    labels={"figure": f"worst case vs eps, {problem}"},
                )
                for problem in EPS_SWEEP_PROBLEMS
            ],
        log:
            "results/logs/eps_sweep_table.log",
        benchmark:
            "results/benchmarks/eps_sweep_table.tsv"
        localrule: True
        params:
            section=EPS_SWEEP,
            series=[s for s, _, _ in EPS_SWEEP_JOBS],
            problems=EPS_SWEEP_PROBLEMS,
            provenance=PROVENANCE,
        script:
            "../scripts/eps_sweep_table.py"
