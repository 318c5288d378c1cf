"""Start-up of the command line: ``schedbench --help``, ``list`` and ``describe greedy`` in fresh
processes, best of five wall-clock times each (not a test; the figures go to
benchmarks/README.md). The heavy modules (pandas for archive/diff, the solvers, the registry's
compiled rules) are imported only by the commands that use them.

Run:  .venv/bin/python benchmarks/bench_cli.py
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

COMMANDS = [["--help"], ["list"], ["describe", "greedy"]]


def main() -> None:
    exe = str(Path(sys.executable).with_name("schedbench"))
    for args in COMMANDS:
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            subprocess.run([exe, *args], check=True, capture_output=True)
            best = min(best, time.perf_counter() - t0)
        print(f"schedbench {' '.join(args):<16} {best:.2f} s")


if __name__ == "__main__":
    main()
