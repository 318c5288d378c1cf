# Thin: paper/main.tex + every generated input -> paper/main.pdf (latexmk; fails alone without LaTeX)
from schedbench.hall.latex import build_pdf
from schedbench.hall.logs import logged

with logged(snakemake.log[0], "paper_pdf") as log:
    warnings = build_pdf(snakemake.input.tex, snakemake.output[0], snakemake.params.build, snakemake.params.packages)
    for w in warnings:
        log.warning("%s", w)
    log.info("paper/main.pdf written (%d LaTeX warnings)", len(warnings))
