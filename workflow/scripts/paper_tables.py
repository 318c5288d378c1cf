# Thin: runs.parquet -> results/tables/ratios.tex, paper/tables/adversaries.tex, rejections.tex and paper/macros.tex
from schedbench.hall.io import atomic_write_text, read_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.tables import adversary_table_tex, macros_tex, ratio_table_tex, rejection_table_tex

with logged(snakemake.log[0], "paper_tables"):
    runs = read_parquet(snakemake.input[0])
    atomic_write_text(snakemake.output.table, ratio_table_tex(runs))
    atomic_write_text(snakemake.output.adversaries, adversary_table_tex(runs))
    atomic_write_text(snakemake.output.rejections, rejection_table_tex(runs))
    atomic_write_text(snakemake.output.macros, macros_tex(runs))
