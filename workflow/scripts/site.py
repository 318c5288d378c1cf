# Thin: the results tables + the registry's algorithm facts + the run record -> results/site/
import inspect
import json
from pathlib import Path

from schedbench.hall.io import read_parquet
from schedbench.hall.logs import logged
from schedbench.hall.site import build_site
from schedbench.scheduling.registry import get_algorithm
from schedbench.scheduling.stage.methods import method_rows

with logged(snakemake.log[0], "site") as log:
    tables = {name: read_parquet(path) for name, path in snakemake.input.items() if path.endswith(".parquet")}
    root = Path.cwd().resolve()
    algorithms = {}
    for row in method_rows():  # what only the scheduling wing knows: rule, bound, source
        source = Path(inspect.getsourcefile(get_algorithm(row["algorithm"]))).resolve()
        row["source"] = source.relative_to(root).as_posix() if source.is_relative_to(root) else str(source)
        algorithms[row["algorithm"]] = row
    record = json.loads(Path(snakemake.input.record).read_text())
    index = build_site(snakemake.output[0], tables, {"algorithms": algorithms}, record)
    size = sum(f.stat().st_size for f in index.parent.iterdir())
    log.info("%s: %d tables, %.2f MB", index, len(tables), size / 1e6)
