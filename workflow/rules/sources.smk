rule source_manifest:
    """The package sources one or more jobs import (``sources_of`` in common.smk), as one file:
    a SHA-256 line per source. A job declares the manifest instead of its 40-70 source files; an
    edited source makes the manifest older than its inputs, so the manifest and every job that
    declares it rerun (docs/architecture.md, "Pipeline")."""
    input:
        source_set,
    output:
        "results/sources/{name}.sha256",
    log:
        "results/logs/source_manifest/{name}.log",
    benchmark:
        "results/benchmarks/source_manifest/{name}.tsv"
    wildcard_constraints:
        name=r"[A-Za-z0-9_]+-[0-9a-f]{12}",
    localrule: True
    shell:
        "sha256sum {input:q} > {output:q} 2> {log:q}"
