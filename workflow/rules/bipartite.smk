# Bipartite load balancing with heterogeneous servers: B1-B5 and the exact checks T2. The
# bipartite wing's own rules, included by the Snakefile through the registry
# (schedbench.bipartite.stage.WING.rules); what the paper, the report and the explorer take of
# them is the wing's too (its targets, figures...).
include: "bipartite_common.smk"


rule bipartite_groups:
    """Simulate every policy on one chunk of (N, load, graph) groups of an experiment."""
    input:
        sources=sources_of("bipartite_groups.py"),
    output:
        "results/bipartite/{experiment}/chunk-{chunk}.parquet",
    log:
        "results/logs/bipartite_groups/{experiment}-{chunk}.log",
    benchmark:
        "results/benchmarks/bipartite_groups/{experiment}-{chunk}.tsv"
    params:
        groups=lambda wc: bip_chunks(wc.experiment)[int(wc.chunk)],
        exp_cfg=lambda wc: BIP["experiments"][wc.experiment],
        settings={k: v for k, v in BIP.items() if k != "experiments"},
    script:
        "../scripts/bipartite_groups.py"


rule bipartite_collect:
    input:
        parts=[f"results/bipartite/{e}/chunk-{i}.parquet" for e in BIP_EXPERIMENTS for i in range(len(bip_chunks(e)))],
        schema="workflow/schemas/bipartite.schema.yaml",
        sources=sources_of("bipartite_collect.py"),
    output:
        "results/bipartite.parquet",
    log:
        "results/logs/bipartite_collect.log",
    benchmark:
        "results/benchmarks/bipartite_collect.tsv"
    localrule: True
    params:
        config_hash=CONFIG_HASH,
    script:
        "../scripts/bipartite_collect.py"


rule bipartite_checks:
    """Table T2: the simulator against exact values (3 SE) and limits (spec tolerance)."""
    input:
        sources=sources_of("bipartite_checks.py"),
    output:
        "results/bipartite_checks.parquet",
    log:
        "results/logs/bipartite_checks.log",
    benchmark:
        "results/benchmarks/bipartite_checks.tsv"
    params:
        seed=BIP.get("seed"),  # required with the section; absent (no bipartite experiments), this rule never runs
        arrivals=BIP["check_arrivals"],
    script:
        "../scripts/bipartite_checks.py"


rule bipartite_figures:
    """Every bipartite figure (B1-B5, as the experiments ask) in one job."""
    input:
        "results/bipartite.parquet",
        sources=sources_of("bipartite_figures.py"),
    output:
        pdf=[f"paper/figures/bipartite_{e}_{f}.pdf" for e, f in bip_figures()],
        png=[
            report(
                f"paper/figures/bipartite_{e}_{f}.png",
                caption="../report/bipartite.rst",
                category="Bipartite load balancing",
                subcategory="Figures",
                labels={"figure": f, "experiment": e},
            )
            for e, f in bip_figures()
        ],
    log:
        "results/logs/bipartite_figures.log",
    benchmark:
        "results/benchmarks/bipartite_figures.tsv"
    localrule: True
    params:
        figures=[[e, f] for e, f in bip_figures()],
        provenance=PROVENANCE,
    script:
        "../scripts/bipartite_figures.py"


rule bipartite_tables:
    input:
        table="results/bipartite.parquet",
        checks="results/bipartite_checks.parquet",
        sources=sources_of("bipartite_tables.py"),
    output:
        checks="paper/tables/bipartite_checks.tex",
        rates="paper/tables/bipartite_rates.tex",
    log:
        "results/logs/bipartite_tables.log",
    benchmark:
        "results/benchmarks/bipartite_tables.tsv"
    localrule: True
    script:
        "../scripts/bipartite_tables.py"


rule report_tables_bipartite:
    input:
        table="results/bipartite.parquet",
        checks="results/bipartite_checks.parquet",
        sources=sources_of("report_tables.py"),
    output:
        table=report(
            "results/report/bipartite.html",
            caption="../report/bipartite_tables.rst",
            category="Results tables",
            subcategory="Bipartite",
            labels={"table": "bipartite groups"},
        ),
        checks=report(
            "results/report/bipartite_checks.html",
            caption="../report/bipartite_tables.rst",
            category="Results tables",
            subcategory="Bipartite",
            labels={"table": "bipartite checks"},
        ),
    log:
        "results/logs/report_tables_bipartite.log",
    benchmark:
        "results/benchmarks/report_tables_bipartite.tsv"
    localrule: True
    params:
        wing="bipartite",
        provenance=PROVENANCE,
    script:
        "../scripts/report_tables.py"
