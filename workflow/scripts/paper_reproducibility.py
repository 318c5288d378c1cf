# Thin: runs.parquet provenance + machine + results/benchmarks/** -> paper/generated/reproducibility.tex
from pathlib import Path

from schedbench.hall.io import atomic_write_text, read_parquet
from schedbench.hall.logs import logged
from schedbench.hall.paper import machine_info, reproducibility_tex, stage_times

with logged(snakemake.log[0], "paper_reproducibility") as log:
    runs = read_parquet(snakemake.input.runs)
    cols = ["git_commit", "schedbench_version", "packages", "platform"]
    prov = {c: str(runs[c].iloc[0]) for c in cols if c in runs.columns and len(runs)}
    root = Path(snakemake.params.bench_root)
    keys = set(snakemake.params.bench_keys)

    def current(f: Path) -> bool:
        # <root>/<rule>.tsv, or <root>/<rule>/<key>[-<...>].tsv or <root>/<rule>/<key>/... with key
        # an experiment, problem, practice family or sweep series of this config
        rel = f.relative_to(root)
        return len(rel.parts) == 1 or Path(rel.parts[1]).stem.split("-")[0] in keys

    files = sorted(f for f in root.rglob("*.tsv") if current(f))
    stages = stage_times(files, root)
    log.info("%d benchmark files, %d stages", len(files), len(stages))
    atomic_write_text(
        snakemake.output[0],
        reproducibility_tex(prov, stages, machine_info(), snakemake.params.config_file, snakemake.params.config_hash),
    )
