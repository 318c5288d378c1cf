# Thin: the registry -> paper/tables/methods.tex (the paper's method table, never kept by hand)
from pathlib import Path

from schedbench.hall.io import atomic_write_text
from schedbench.hall.latex import bib_keys
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.methods import method_table_tex

with logged(snakemake.log[0], "method_table"):
    keys = bib_keys(Path(snakemake.input.references).read_text())
    atomic_write_text(snakemake.output[0], method_table_tex(keys))
