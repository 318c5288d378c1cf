# The practice comparison (config section `practice`): rejection policies against speed
# baselines, tuned on training instances, paired on held-out ones (scheduling.stage.practice).


wildcard_constraints:
    practice_family=r"[A-Za-z0-9_]+",


if PRACTICE_FAMILIES:

    rule practice_family:
        """Tune every policy and baseline of one family on its training instances, then run the
        chosen settings on its test instances (every outcome validated)."""
        input:
            data=practice_data,
            sources=lambda wc: sources_of("practice_family.py", *practice_modules(wc)),
        output:
            "results/practice/{practice_family}.parquet",
        log:
            "results/logs/practice/{practice_family}.log",
        benchmark:
            "results/benchmarks/practice/{practice_family}.tsv"
        params:
            section=lambda wc: family_section(PRACTICE, wc.practice_family),  # this family only
            seed=config["seed"],
            run_seconds=config["plugin_time_limit"],
        script:
            "../scripts/practice_family.py"

    rule practice_table:
        """The paired table (geometric-mean ratio and win rate with intervals, budget used), its
        LaTeX table and figure."""
        input:
            families=expand("results/practice/{practice_family}.parquet", practice_family=PRACTICE_FAMILIES),
            sources=sources_of("practice_table.py"),
        output:
            runs="results/practice_runs.parquet",
            pairs="results/practice_pairs.parquet",
            tex="paper/tables/practice.tex",
            figure="paper/figures/practice.pdf",
            png=report(
                "paper/figures/practice.png",
                caption="../report/practice.rst",
                category="Practice comparison",
                labels={"figure": "rejection vs speed, paired"},
            ),
        log:
            "results/logs/practice_table.log",
        benchmark:
            "results/benchmarks/practice_table.tsv"
        localrule: True
        params:
            n_boot=practice_setting(PRACTICE, "n_boot"),
            min_budget_used=practice_setting(PRACTICE, "min_budget_used"),
            seed=practice_seed(PRACTICE, config["seed"]),
            titles=family_titles(PRACTICE),  # each family in words, for the figure's legends
            provenance=PROVENANCE,
        script:
            "../scripts/practice_table.py"
