# Thin: the config -> paper/macros_config.tex and paper/generated/<group>.tex (one per section group)
from pathlib import Path

from schedbench.hall.io import atomic_write_text
from schedbench.hall.logs import logged
from schedbench.hall.paper import config_macros_tex, group_tex

with logged(snakemake.log[0], "paper_generated") as log:
    atomic_write_text(
        snakemake.output.macros,
        config_macros_tex(snakemake.config, snakemake.params.config_file, snakemake.params.config_hash),
    )
    for path in snakemake.output.groups:
        group = Path(path).stem
        spec = snakemake.params.groups[group]
        figures = [tuple(f) if len(f) == 3 else f[0] if not f[1] else tuple(f) for f in spec["figures"]]
        atomic_write_text(path, group_tex(group, figures, spec["tables"]))
        log.info("%s: %d figures, %d tables", group, len(figures), len(spec["tables"]))
