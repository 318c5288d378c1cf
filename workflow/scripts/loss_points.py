# Thin: simulate one chunk of loss-system points -> parquet rows (progress lines in the log).
import pandas as pd

from schedbench.hall.io import write_parquet
from schedbench.hall.logs import logged
from schedbench.hall.progress import progress_map
from schedbench.loss.stage.experiments import point_arrivals, point_seed, run_point

with logged(snakemake.log[0], "loss_points") as log:
    settings = snakemake.params.settings
    points = snakemake.params.points

    def one(point, settings=settings):  # bound here: the worker gets the settings, not `snakemake`
        return run_point(point, settings, point_seed(int(settings["seed"]), point))

    rows = progress_map(
        one,
        points,
        log,
        "points",
        n_jobs=snakemake.threads,
        weights=[point_arrivals(p, settings) for p in points],
        work=lambda row: row["events"],
        unit="events",
    )
    table = pd.DataFrame(rows)
    log.info("%d points, %d events in %.1f s", len(table), table["events"].sum(), table["seconds"].sum())
    write_parquet(table, snakemake.output[0])
