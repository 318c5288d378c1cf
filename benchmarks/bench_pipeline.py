"""Pipeline scale: how long Snakemake takes to build the DAG of each shipped config (a dry run,
``snakemake -n``) and how many jobs it has. Target: the cluster-scale config
``config/large.yaml`` builds its DAG in seconds.

    .venv/bin/python benchmarks/bench_pipeline.py     # prints the table of benchmarks/README.md
"""

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ["config/smoke.yaml", "config/config.yaml", "config/large.yaml"]


def dry_run(config: str, work: Path) -> tuple[float, int]:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--configfile", config],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
    )
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{config}: dry run failed\n{proc.stderr[-2000:]}")
    jobs = int(re.findall(r"^total\s+(\d+)", proc.stdout, re.M)[-1])
    return seconds, jobs


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:  # a fresh copy: nothing computed yet, every job in the DAG
        work = Path(tmp)
        shutil.copy(ROOT / "Snakefile", work)
        for d in ("workflow", "config", "profiles", "paper/sections"):
            shutil.copytree(ROOT / d, work / d)
        shutil.copy(ROOT / "paper/main.tex", work / "paper")
        print("| config | jobs | `snakemake -n` seconds |")
        print("|---|---|---|")
        for config in CONFIGS:
            seconds, jobs = dry_run(config, work)
            print(f"| `{config}` | {jobs} | {seconds:.1f} |")


if __name__ == "__main__":
    main()
