rule figure_ratio_vs_eps:
    input:
        "results/runs.parquet",
        sources=sources_of("figure_ratio_vs_eps.py"),
    output:
        report("paper/figures/ratio_vs_eps_{problem}.pdf", caption="../report/ratio_vs_eps.rst", category="Figures"),
    params:
        n_boot=config.get("figures", {}).get("n_boot", 1000),
    log:
        "results/logs/figure_ratio_vs_eps_{problem}.log",
    script:
        "../scripts/figure_ratio_vs_eps.py"


rule paper_tables:
    input:
        "results/runs.parquet",
        sources=sources_of("paper_tables.py"),
    output:
        table="paper/tables/ratios.tex",
        adversaries="paper/tables/adversaries.tex",
        rejections="paper/tables/rejections.tex",
        macros="paper/macros.tex",
    log:
        "results/logs/paper_tables.log",
    script:
        "../scripts/paper_tables.py"


rule figure_rejection_vs_eps:
    input:
        "results/runs.parquet",
        sources=sources_of("figure_rejection_vs_eps.py"),
    output:
        report("paper/figures/rejection_vs_eps_{problem}.pdf", caption="../report/rejection_vs_eps.rst", category="Figures"),
    params:
        n_boot=config.get("figures", {}).get("n_boot", 1000),
    log:
        "results/logs/figure_rejection_vs_eps_{problem}.log",
    script:
        "../scripts/figure_rejection_vs_eps.py"


rule figure_adversary_rounds:
    input:
        "results/runs.parquet",
        sources=sources_of("figure_adversary_rounds.py"),
    output:
        report("paper/figures/adversary_rounds.pdf", caption="../report/adversary_rounds.rst", category="Figures"),
    params:
        parameter=config.get("figures", {}).get("rounds_parameter", "K"),
        n_boot=config.get("figures", {}).get("n_boot", 1000),
    log:
        "results/logs/figure_adversary_rounds.log",
    script:
        "../scripts/figure_adversary_rounds.py"


rule method_table:
    input:
        sources=sources_of("method_table.py", *ALGORITHM_MODULES),
    output:
        "paper/tables/methods.tex",
    log:
        "results/logs/method_table.log",
    script:
        "../scripts/method_table.py"


rule figure_parameter_sweep:
    input:
        "results/runs.parquet",
        sources=sources_of("figure_parameter_sweep.py"),
    output:
        report("paper/figures/parameter_sweep.pdf", caption="../report/parameter_sweep.rst", category="Figures"),
    params:
        parameters=config.get("figures", {}).get("sweep_parameters", ["c"]),
        n_boot=config.get("figures", {}).get("n_boot", 1000),
    log:
        "results/logs/figure_parameter_sweep.log",
    script:
        "../scripts/figure_parameter_sweep.py"
