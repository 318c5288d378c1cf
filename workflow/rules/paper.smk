rule figure_ratio_vs_eps:
    input:
        "results/runs.parquet",
        sources=sources_of("figure_ratio_vs_eps.py"),
    output:
        report("paper/figures/ratio_vs_eps.pdf", caption="../report/ratio_vs_eps.rst", category="Figures"),
    params:
        n_boot=config.get("figures", {}).get("n_boot", 1000),
    log:
        "results/logs/figure_ratio_vs_eps.log",
    script:
        "../scripts/figure_ratio_vs_eps.py"


rule paper_tables:
    input:
        "results/runs.parquet",
        sources=sources_of("paper_tables.py"),
    output:
        table="paper/tables/ratios.tex",
        macros="paper/macros.tex",
    log:
        "results/logs/paper_tables.log",
    script:
        "../scripts/paper_tables.py"
