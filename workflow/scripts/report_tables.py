# Thin: results tables -> browsable HTML tables for the report: the wing named by params.wing
# gives its views (hall.wing.Wing.report_views), one HTML table per output
from schedbench.hall.io import atomic_write_text, read_parquet
from schedbench.hall.logs import logged
from schedbench.hall.paper import html_table
from schedbench.hall.wing import wing_named

note = f"Produced by {snakemake.params.provenance}."
with logged(snakemake.log[0], "report_tables"):
    tables = {name: read_parquet(path) for name, path in snakemake.input.items() if str(path).endswith(".parquet")}
    for output, (view, title) in wing_named(snakemake.params.wing).report_views(tables).items():
        atomic_write_text(getattr(snakemake.output, output), html_table(view, title, note))
