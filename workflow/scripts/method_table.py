# Thin: the registry -> paper/tables/methods.tex (the paper's method table, never kept by hand)
from schedbench.hall.io import atomic_write_text
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.methods import method_table_tex

with logged(snakemake.log[0], "method_table"):
    atomic_write_text(snakemake.output[0], method_table_tex())
