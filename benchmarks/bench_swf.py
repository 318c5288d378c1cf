"""SWF parser: records, parse time and peak memory per bundled trace (benchmarks/README.md;
not a test).

Every log is parsed in a fresh Python process (so nothing is cached and the numbers of one log
do not depend on another): the best wall time and CPU time of ``--repeat`` parses, and the peak
of the memory that Python and numpy allocate during one parse (tracemalloc; numpy reports its
arrays to it), per record. The parser's floor is 152 bytes per record: the result itself
(144 bytes for the 18 fields, 8 for the line number). The maximum resident set size growth
(ru_maxrss after the parse minus before it) is shown too.

Run: .venv/bin/python benchmarks/bench_swf.py [--repeat 3] [--json]   (after `make bench` has built .venv)
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, time, tracemalloc
from schedbench.scheduling.instances._swf import parse_swf
from schedbench.scheduling.instances.swf_trace import TRACES, trace_path
path, repeat = trace_path(TRACES[sys.argv[1]]), int(sys.argv[2])
rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
log = parse_swf(path)  # the first parse: resident memory growth
rss = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss0) * 1024
n = len(log)
del log
wall = cpu = float("inf")
for _ in range(repeat):
    w, c = time.perf_counter(), time.process_time()
    parse_swf(path)
    wall, cpu = min(wall, time.perf_counter() - w), min(cpu, time.process_time() - c)
tracemalloc.start()
parse_swf(path)
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(json.dumps({"records": n, "wall": wall, "cpu": cpu, "peak": peak, "rss": rss}))
"""


def measure(name: str, repeat: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, name, str(repeat)], capture_output=True, text=True, check=True, cwd=ROOT
    )
    row = json.loads(out.stdout.strip().splitlines()[-1])
    row["trace"] = name
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="timed parses per log (best is shown); default 3")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON instead of a table")
    args = ap.parse_args()
    from schedbench.scheduling.instances.swf_trace import TRACES

    rows = [measure(name, args.repeat) for name in TRACES]
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"# {platform.python_version()}, {platform.machine()}; best of {args.repeat} parses")
    print(
        "| trace | records | parse s (wall) | parse s (CPU) | peak bytes/record (tracemalloc) | RSS growth bytes/record |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| `{r['trace']}` | {r['records']:,} | {r['wall']:.2f} | {r['cpu']:.2f} | "
            f"{r['peak'] / r['records']:.0f} | {r['rss'] / r['records']:.0f} |"
        )


if __name__ == "__main__":
    main()
