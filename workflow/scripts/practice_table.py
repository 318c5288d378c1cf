# Thin: the practice families' runs -> results/practice_{runs,pairs}.parquet, paper/tables/practice.tex,
# paper/figures/practice.pdf (+ .png)
import pandas as pd

from schedbench.hall.figure_style import save_figure
from schedbench.hall.io import atomic_write_text, write_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.practice_report import (
    instance_ratios,
    paired_table,
    practice_figure,
    practice_table_tex,
)

with logged(snakemake.log[0], "practice_table") as log:
    runs = pd.concat([pd.read_parquet(p) for p in snakemake.input.families], ignore_index=True)
    pairs = paired_table(
        runs,
        n_boot=int(snakemake.params.n_boot),
        min_budget_used=float(snakemake.params.min_budget_used),
        seed=int(snakemake.params.seed),
    )
    write_parquet(runs, snakemake.output.runs)
    write_parquet(pairs, snakemake.output.pairs)
    titles = dict(snakemake.params.titles)
    atomic_write_text(snakemake.output.tex, practice_table_tex(pairs, titles))
    save_figure(practice_figure(pairs, titles, instance_ratios(runs)), snakemake.output.figure)
    log.info("%d runs, %d pairs, %d in the headline", len(runs), len(pairs), int(pairs["headline"].sum()))
