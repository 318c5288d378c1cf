# Thin: simulate one chunk of loss-system points -> parquet rows.
import joblib
import pandas as pd

from schedbench.pipeline.io import write_parquet
from schedbench.pipeline.logs import logged
from schedbench.queueing.loss.experiments import point_seed, run_point

with logged(snakemake.log[0], "loss_points") as log:
    settings = snakemake.params.settings
    points = snakemake.params.points
    rows = joblib.Parallel(n_jobs=snakemake.threads)(
        joblib.delayed(run_point)(p, settings, point_seed(int(settings["seed"]), p)) for p in points
    )
    table = pd.DataFrame(rows)
    log.info("%d points, %d events in %.1f s", len(table), table["events"].sum(), table["seconds"].sum())
    write_parquet(table, snakemake.output[0])
