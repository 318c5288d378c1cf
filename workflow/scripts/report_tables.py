# Thin: results tables -> browsable HTML tables for the report (kind: runs, loss or bipartite)
from schedbench.hall.io import atomic_write_text, read_parquet
from schedbench.hall.logs import logged
from schedbench.hall.paper import html_table
from schedbench.scheduling.stage.report import methods_view, runs_summary
from schedbench.bipartite.stage.report import bipartite_views
from schedbench.loss.stage.report import loss_views

kind, note = snakemake.params.kind, f"Produced by {snakemake.params.provenance}."
with logged(snakemake.log[0], "report_tables"):
    if kind == "runs":
        atomic_write_text(
            snakemake.output.summary,
            html_table(
                runs_summary(read_parquet(snakemake.input.runs)), "Runs: ALG/OPT per experiment, algorithm and ε", note
            ),
        )
        atomic_write_text(snakemake.output.methods, html_table(methods_view(), "Registered algorithms", note))
    elif kind == "loss":
        points, slopes = loss_views(read_parquet(snakemake.input.points), read_parquet(snakemake.input.slopes))
        atomic_write_text(snakemake.output.points, html_table(points, "Loss system: simulated points", note))
        atomic_write_text(snakemake.output.slopes, html_table(slopes, "Loss system: fitted slopes", note))
    else:
        table, checks = bipartite_views(read_parquet(snakemake.input.table), read_parquet(snakemake.input.checks))
        atomic_write_text(snakemake.output.table, html_table(table, "Bipartite: groups and policies", note))
        atomic_write_text(snakemake.output.checks, html_table(checks, "Bipartite: exact checks (T2)", note))
