# Thin: fitted slopes -> paper/tables/loss_slopes.tex and paper/macros_loss.tex
from schedbench.hall.io import atomic_write_text, read_parquet
from schedbench.hall.logs import logged
from schedbench.loss.stage.tables import loss_macros_tex, loss_slopes_tex

with logged(snakemake.log[0], "loss_tables"):
    slopes = read_parquet(snakemake.input[0])
    atomic_write_text(snakemake.output.table, loss_slopes_tex(slopes))
    atomic_write_text(snakemake.output.macros, loss_macros_tex(slopes))
