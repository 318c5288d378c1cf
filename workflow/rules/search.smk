# The worst-case search: one job per task of the config's `search` section
# (SEARCH and SEARCH_TASKS come from common.smk).
ADVERSARY_MODULES = sorted({get_adversary(name).__module__ for name in adversary_names()})


wildcard_constraints:
    task=r"[A-Za-z0-9_]+",


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
