# Loss system with adaptive multiserver jobs: experiments A1-A5. The loss wing's own rules,
# included by the Snakefile through the registry (schedbench.loss.stage.WING.rules); what the
# paper, the report and the explorer take of them is the wing's too (its targets, figures...).
include: "loss_common.smk"


rule loss_points:
    """Simulate one chunk of points of a loss experiment (joblib over points)."""
    input:
        sources=sources_of("loss_points.py"),
    output:
        "results/loss/{experiment}/chunk-{chunk}.parquet",
    log:
        "results/logs/loss_points/{experiment}-{chunk}.log",
    benchmark:
        "results/benchmarks/loss_points/{experiment}-{chunk}.tsv"
    params:
        points=lambda wc: loss_chunks(wc.experiment)[int(wc.chunk)],
        settings={k: v for k, v in LOSS.items() if k != "experiments"},
    script:
        "../scripts/loss_points.py"


rule loss_collect:
    """The tidy loss table and the fitted log-log slopes."""
    input:
        parts=[f"results/loss/{e}/chunk-{i}.parquet" for e in LOSS_EXPERIMENTS for i in range(len(loss_chunks(e)))],
        schema="workflow/schemas/loss.schema.yaml",
        sources=sources_of("loss_collect.py"),
    output:
        table="results/loss.parquet",
        slopes="results/loss_slopes.parquet",
    log:
        "results/logs/loss_collect.log",
    benchmark:
        "results/benchmarks/loss_collect.tsv"
    localrule: True
    params:
        config_hash=CONFIG_HASH,
        fit_min_n=LOSS["fit_min_n"],
    script:
        "../scripts/loss_collect.py"


rule loss_figures:
    """Every loss figure (A1-A5, one per experiment) in one job."""
    input:
        "results/loss.parquet",
        sources=sources_of("loss_figures.py"),
    output:
        pdf=[f"paper/figures/loss_{e}.pdf" for e in LOSS_EXPERIMENTS],
        png=[
            report(
                f"paper/figures/loss_{e}.png",
                caption="../report/loss.rst",
                category="Loss system",
                subcategory="Figures",
                labels={"figure": e},
            )
            for e in LOSS_EXPERIMENTS
        ],
    log:
        "results/logs/loss_figures.log",
    benchmark:
        "results/benchmarks/loss_figures.tsv"
    localrule: True
    params:
        figures={e: LOSS["experiments"][e]["figure"] for e in LOSS_EXPERIMENTS},
        provenance=PROVENANCE,
    script:
        "../scripts/loss_figures.py"


rule loss_tables:
    input:
        "results/loss_slopes.parquet",
        sources=sources_of("loss_tables.py"),
    output:
        table="paper/tables/loss_slopes.tex",
        macros="paper/macros_loss.tex",
    log:
        "results/logs/loss_tables.log",
    benchmark:
        "results/benchmarks/loss_tables.tsv"
    localrule: True
    script:
        "../scripts/loss_tables.py"


rule report_tables_loss:
    input:
        points="results/loss.parquet",
        slopes="results/loss_slopes.parquet",
        sources=sources_of("report_tables.py"),
    output:
        points=report(
            "results/report/loss_points.html",
            caption="../report/loss_tables.rst",
            category="Results tables",
            subcategory="Loss system",
            labels={"table": "loss points"},
        ),
        slopes=report(
            "results/report/loss_slopes.html",
            caption="../report/loss_tables.rst",
            category="Results tables",
            subcategory="Loss system",
            labels={"table": "loss slopes"},
        ),
    log:
        "results/logs/report_tables_loss.log",
    benchmark:
        "results/benchmarks/report_tables_loss.tsv"
    localrule: True
    params:
        wing="loss",
        provenance=PROVENANCE,
    script:
        "../scripts/report_tables.py"
