# The paper: figures (PDF for the paper, PNG twin for the HTML report), LaTeX tables and macros,
# the generated section files, the reproducibility section and paper/main.pdf (latexmk).
include: "paper_common.smk"


rule scheduling_figures:
    """One problem's figures in one job (one start-up for four): the headline figure (the paper's
    first section) and the appendix's paged figures of every algorithm — ALG/OPT against ε, the
    largest prefix rejected fraction against ε, the performance profiles."""
    input:
        "results/runs.parquet",
        sources=sources_of("scheduling_figures.py"),
    output:
        headline="paper/figures/headline_{problem}.pdf",
        ratio_vs_eps="paper/figures/ratio_vs_eps_{problem}.pdf",
        rejection_vs_eps="paper/figures/rejection_vs_eps_{problem}.pdf",
        ecdf="paper/figures/ecdf_{problem}.pdf",
        headline_png=report(
            "paper/figures/headline_{problem}.png",
            caption="../report/headline.rst",
            category="Scheduling {problem}",
            subcategory="Figures",
            labels={"figure": "headline: rejection vs speed", "problem": "{problem}"},
        ),
        ratio_vs_eps_png=report(
            "paper/figures/ratio_vs_eps_{problem}.png",
            caption="../report/ratio_vs_eps.rst",
            category="Scheduling {problem}",
            subcategory="Figures",
            labels={"figure": "ALG/OPT vs ε", "problem": "{problem}"},
        ),
        rejection_vs_eps_png=report(
            "paper/figures/rejection_vs_eps_{problem}.png",
            caption="../report/rejection_vs_eps.rst",
            category="Scheduling {problem}",
            subcategory="Figures",
            labels={"figure": "max prefix rejected fraction vs ε", "problem": "{problem}"},
        ),
        ecdf_png=report(
            "paper/figures/ecdf_{problem}.png",
            caption="../report/ecdf.rst",
            category="Scheduling {problem}",
            subcategory="Figures",
            labels={"figure": "performance profile (ECDF)", "problem": "{problem}"},
        ),
    log:
        "results/logs/scheduling_figures/{problem}.log",
    benchmark:
        "results/benchmarks/scheduling_figures/{problem}.tsv"
    localrule: True
    params:
        n_boot=N_BOOT,
        experiments=appendix_experiments,
        provenance=PROVENANCE,
    script:
        "../scripts/scheduling_figures.py"


rule paper_tables:
    input:
        "results/runs.parquet",
        sources=sources_of("paper_tables.py"),
    output:
        table="results/tables/ratios.tex",  # every ratio with its interval, in LaTeX (not in the PDF)
        adversaries="paper/tables/adversaries.tex",
        rejections="paper/tables/rejections.tex",
        macros="paper/macros.tex",
    log:
        "results/logs/paper_tables.log",
    benchmark:
        "results/benchmarks/paper_tables.tsv"
    localrule: True
    script:
        "../scripts/paper_tables.py"


rule figure_separation:
    """Rejection against speed on the immediate-dispatch construction, m up to the largest
    played: the paper's separation figure (scheduling.stage.separation)."""
    input:
        "results/runs.parquet",
        sources=sources_of("figure_separation.py"),
    output:
        pdf="paper/figures/separation.pdf",
        png=report(
            "paper/figures/separation.png",
            caption="../report/separation.rst",
            category="Adversaries",
            subcategory="Figures",
            labels={"figure": "separation: rejection vs speed against m"},
        ),
    log:
        "results/logs/figure_separation.log",
    benchmark:
        "results/benchmarks/figure_separation.tsv"
    localrule: True
    params:
        provenance=PROVENANCE,
    script:
        "../scripts/figure_separation.py"


rule figure_adversary_rounds:
    input:
        "results/runs.parquet",
        sources=sources_of("figure_adversary_rounds.py"),
    output:
        pdf="paper/figures/adversary_rounds.pdf",
        png=report(
            "paper/figures/adversary_rounds.png",
            caption="../report/adversary_rounds.rst",
            category="Adversaries",
            subcategory="Figures",
            labels={"figure": "ALG/OPT vs rounds"},
        ),
    log:
        "results/logs/figure_adversary_rounds.log",
    benchmark:
        "results/benchmarks/figure_adversary_rounds.tsv"
    localrule: True
    params:
        parameter=config["figures"]["rounds_parameter"],
        n_boot=N_BOOT,
        provenance=PROVENANCE,
    script:
        "../scripts/figure_adversary_rounds.py"


rule claims_table:
    """Every claim of the source papers judged on this run's results (docs/claims.md), and each
    scheduling problem's finding in a sentence (the macros its section opens with)."""
    input:
        unpack(claims_inputs),
        references="paper/references.tex",
        sources=sources_of("claims_table.py"),
    output:
        table="results/claims.parquet",
        tex="paper/tables/claims.tex",
        findings="paper/macros_findings.tex",
    log:
        "results/logs/claims_table.log",
    benchmark:
        "results/benchmarks/claims_table.tsv"
    localrule: True
    params:
        present=lambda wc: paper_labels(),
        titles=family_titles(PRACTICE),  # the practice families in words
    script:
        "../scripts/claims_table.py"


rule method_table:
    input:
        references="paper/references.tex",
        sources=sources_of("method_table.py", *ALGORITHM_MODULES),
    output:
        "paper/tables/methods.tex",
    log:
        "results/logs/method_table.log",
    benchmark:
        "results/benchmarks/method_table.tsv"
    localrule: True
    script:
        "../scripts/method_table.py"


rule figure_parameter_sweep:
    input:
        "results/runs.parquet",
        sources=sources_of("figure_parameter_sweep.py"),
    output:
        pdf="paper/figures/parameter_sweep.pdf",
        png=report(
            "paper/figures/parameter_sweep.png",
            caption="../report/parameter_sweep.rst",
            category="Parameter sweeps",
            subcategory="Figures",
            labels={"figure": "parameter sweep"},
        ),
    log:
        "results/logs/figure_parameter_sweep.log",
    benchmark:
        "results/benchmarks/figure_parameter_sweep.tsv"
    localrule: True
    params:
        parameters=config["figures"]["sweep_parameters"],
        n_boot=N_BOOT,
        provenance=PROVENANCE,
    script:
        "../scripts/figure_parameter_sweep.py"


rule paper_generated:
    """The config's numbers as macros and one file per section group listing exactly the
    figures and tables the pipeline writes for the config."""
    input:
        sources=sources_of("paper_generated.py"),
    output:
        macros="paper/macros_config.tex",
        groups=expand("paper/generated/{group}.tex", group=PAPER_GROUPS),
    log:
        "results/logs/paper_generated.log",
    benchmark:
        "results/benchmarks/paper_generated.tsv"
    localrule: True
    params:
        groups=lambda wc: {
            g: {"figures": [[f, ""] if isinstance(f, str) else list(f) for f in figs], "tables": list(tabs)}
            for g, (figs, tabs) in paper_groups().items()
        },
        config_file=CONFIG_FILE,
        config_hash=CONFIG_HASH,
    script:
        "../scripts/paper_generated.py"


rule report_tables_runs:
    """The results as browsable HTML tables for the report: the run summary and the method table."""
    input:
        runs="results/runs.parquet",
        sources=sources_of("report_tables.py", *ALGORITHM_MODULES),
    output:
        summary=report(
            "results/report/runs_summary.html",
            caption="../report/runs_summary.rst",
            category="Results tables",
            subcategory="Scheduling runs",
            labels={"table": "runs summary"},
        ),
        methods=report(
            "results/report/methods.html",
            caption="../report/methods.rst",
            category="Results tables",
            subcategory="Scheduling runs",
            labels={"table": "methods"},
        ),
    log:
        "results/logs/report_tables_runs.log",
    benchmark:
        "results/benchmarks/report_tables_runs.tsv"
    localrule: True
    params:
        wing="scheduling",
        provenance=PROVENANCE,
    script:
        "../scripts/report_tables.py"


rule paper_reproducibility:
    """Versions, commit and config hash (from the results table's provenance), the machine, and
    the wall time per stage from the benchmark files of every job of this config."""
    input:
        runs="results/runs.parquet",
        done=lambda wc: sorted(
            set(t for t in paper_targets() if not t.startswith("paper/generated/")) | set(paper_files())
        ),
        sources=sources_of("paper_reproducibility.py"),
    output:
        "paper/generated/reproducibility.tex",
    log:
        "results/logs/paper_reproducibility.log",
    benchmark:
        # under a key no experiment has: the stage table it writes never lists its own old time
        "results/benchmarks/paper_reproducibility/paper.tsv"
    localrule: True
    params:
        bench_root="results/benchmarks",
        # job benchmark files are <rule>/<key>[-...].tsv: those of another config's experiments are left out
        bench_keys=EXPERIMENTS
        + wing_bench_keys(config)
        + SCHED_PROBLEMS
        + SEARCH_TASKS
        + PRACTICE_FAMILIES
        + sorted(sweep_series(EPS_SWEEP)),
        config_file=CONFIG_FILE,
        config_hash=CONFIG_HASH,
    script:
        "../scripts/paper_reproducibility.py"


rule paper_pdf:
    """paper/main.pdf with latexmk + pdflatex; without LaTeX it fails alone (keep-going finishes
    every other output) naming the Debian packages to install."""
    input:
        tex="paper/main.tex",
        references="paper/references.tex",
        sections=sorted(_glob.glob("paper/sections/*.tex")),
        generated=expand("paper/generated/{group}.tex", group=PAPER_GROUPS) + ["paper/generated/reproducibility.tex"],
        files=lambda wc: paper_files(),
        macros=["paper/macros.tex", "paper/macros_config.tex", "paper/macros_findings.tex", "paper/tables/methods.tex"]
        + wing_pdf_inputs(config),
        sources=sources_of("paper_pdf.py"),
    output:
        "paper/main.pdf",
    log:
        "results/logs/paper_pdf.log",
    localrule: True
    params:
        packages=LATEX_PACKAGES,
        build="results/latex",
    script:
        "../scripts/paper_pdf.py"
