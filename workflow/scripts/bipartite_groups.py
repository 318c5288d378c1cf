# Thin: simulate one chunk of bipartite groups (every policy on each group's graph) -> rows.
import pandas as pd

from schedbench.hall.io import write_parquet
from schedbench.hall.logs import logged
from schedbench.hall.progress import progress_map
from schedbench.bipartite.stage.experiments import run_group

with logged(snakemake.log[0], "bipartite_groups") as log:
    settings = snakemake.params.settings

    def one(group, exp_cfg=snakemake.params.exp_cfg, settings=settings):  # bound: workers get no `snakemake`
        return run_group(group, exp_cfg, settings, int(settings["seed"]))

    parts = progress_map(
        one,
        snakemake.params.groups,
        log,
        "groups",
        n_jobs=snakemake.threads,
        work=lambda rows: sum(r["events"] for r in rows),
        unit="events",
    )
    table = pd.DataFrame([row for part in parts for row in part])
    log.info(
        "%d rows, %d events in %.1f s; status %s",
        len(table),
        table["events"].sum(),
        table["seconds"].sum(),
        table["status"].value_counts().to_dict(),
    )
    write_parquet(table, snakemake.output[0])
