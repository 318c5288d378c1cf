# Thin: the results tables + the registry's algorithm facts + the pipeline record + the wings'
# views of their tables -> results/site/
import inspect
import json
import os
from pathlib import Path

import schedbench
from schedbench.hall.io import read_parquet
from schedbench.hall.logs import logged
from schedbench.hall.site import build_site
from schedbench.hall.wing import wing_site_views
from schedbench.scheduling.registry import get_algorithm
from schedbench.scheduling.stage.methods import method_rows

with logged(snakemake.log[0], "site") as log:
    tables = {
        name: read_parquet(path)
        for name, path in snakemake.input.items()
        if isinstance(path, str) and path.endswith(".parquet")
    }
    checkout = Path(schedbench.__file__).resolve().parents[2]
    algorithms = {}
    for row in method_rows():  # what only the scheduling wing knows: rule, bound, source file
        source = Path(inspect.getsourcefile(get_algorithm(row["algorithm"]))).resolve()
        row["source"] = source.relative_to(checkout).as_posix() if source.is_relative_to(checkout) else str(source)
        row["source_href"] = Path(os.path.relpath(source, Path(snakemake.output[0]).resolve())).as_posix()
        algorithms[row["algorithm"]] = row
    record = json.loads(Path(snakemake.input.record).read_text())
    index = build_site(snakemake.output[0], tables, {"algorithms": algorithms}, record, wing_site_views())
    size = sum(f.stat().st_size for f in index.parent.iterdir())
    log.info("%s: %d tables, %.2f MB", index, len(tables), size / 1e6)
