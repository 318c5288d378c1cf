# Thin: the registry -> paper/tables/methods.tex (the paper's method table, never kept by hand)
from schedbench.pipeline.io import atomic_write_text
from schedbench.pipeline.logs import logged
from schedbench.pipeline.methods import method_table_tex

with logged(snakemake.log[0], "method_table"):
    atomic_write_text(snakemake.output[0], method_table_tex())
