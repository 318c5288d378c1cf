# Thin: the tasks' worst cases -> results/worst_cases.parquet, paper/tables/worst_cases.tex, paper/figures/worst_cases.pdf
from schedbench.hall.io import atomic_write_text, read_parquet, write_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.search import collect_search, search_table_tex
from schedbench.scheduling.stage.search_figures import plot_worst_cases

with logged(snakemake.log[0], "worst_case_table") as log:
    table = collect_search(list(snakemake.input.tasks))
    write_parquet(table, snakemake.output.table)
    atomic_write_text(snakemake.output.tex, search_table_tex(table, read_parquet(snakemake.input.runs)))
    plot_worst_cases(table, snakemake.output.figure)
    log.info("%d tasks, %d proved", len(table), int(table["proved"].sum()) if len(table) else 0)
