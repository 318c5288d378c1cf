"""The pipeline record: one JSON file per pipeline run (``results/pipeline_record.json``) saying what ran
and how: the command, the config and its hash, the commit, package versions and plug-in hashes,
the machine, start and end, and per rule the wall time, CPU time and peak memory of its jobs
(Snakemake's ``benchmark:`` files). The site shows it; ``schedbench diff`` compares two."""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import re
from pathlib import Path
from typing import Any


from schedbench.hall.io import atomic_write_text, provenance, read_benchmark

__all__ = [
    "RECORD",
    "STARTED_ENV",
    "COMMAND_ENV",
    "benchmark_jobs",
    "rule_times",
    "pipeline_record",
    "write_record",
    "read_record",
    "compare_records",
    "record_lines",
]

#: where a run directory (or an archive) keeps its record
RECORD = "results/pipeline_record.json"
#: set by the workflow's main process (workflow/rules/common.smk): the run's start (Unix seconds)
#: and command line; environment variables, not params, so that a new run reruns no job
STARTED_ENV = "SCHEDBENCH_RUN_STARTED"
COMMAND_ENV = "SCHEDBENCH_RUN_COMMAND"
_VERSION = 1


def _float(x: Any) -> float | None:
    try:
        x = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def _matcher(pattern: str) -> re.Pattern:
    """A benchmark file pattern as a regex: ``{name}`` is any text within one path segment,
    ``{name,constraint}`` its constraint (which may hold braces itself: ``[0-9a-f]{12}``)."""
    out, i = [], 0
    while i < len(pattern):
        if pattern[i] != "{":
            j = pattern.find("{", i)
            j = len(pattern) if j < 0 else j
            out.append(re.escape(pattern[i:j]))
            i = j
            continue
        depth, j = 0, i
        while True:  # the closing brace of this wildcard
            depth += {"{": 1, "}": -1}.get(pattern[j], 0)
            if depth == 0:
                break
            j += 1
        _, _, constraint = pattern[i + 1 : j].partition(",")
        out.append(f"(?:{constraint})" if constraint else "[^/]+")
        i = j + 1
    return re.compile("".join(out) + r"\Z")


def benchmark_jobs(
    root: str | os.PathLike, since: float | None = None, patterns: dict[str, str] | None = None
) -> list[dict]:
    """One entry per Snakemake benchmark file under ``root``: rule, job (the file's path under
    ``root`` without ``.tsv``), wall seconds, CPU seconds, peak resident memory (MB), and whether
    it was written at or after ``since`` (this run). ``patterns`` (rule -> its ``benchmark:``
    pattern relative to ``root``) name each file's rule, and leave out a file no rule of the
    workflow writes; without them the rule is the file's folder, or its name at the top. A file
    that is not a readable benchmark file (or not a regular file) is skipped."""
    root = Path(root)
    matchers = sorted(((rule, _matcher(p)) for rule, p in (patterns or {}).items()), key=lambda m: -len(m[1].pattern))
    jobs = []
    for f in sorted(root.rglob("*.tsv")) if root.is_dir() else []:
        rel = f.relative_to(root)
        if patterns is None:
            rule = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        else:
            rule = next((r for r, m in matchers if m.match(rel.as_posix())), None)
        if rule is None or not f.is_file():  # a FIFO would block the read
            continue
        times = read_benchmark(f)
        try:
            mtime = f.stat().st_mtime
        except OSError:
            continue
        if times is not None:
            jobs.append(
                {
                    "rule": rule,
                    "job": rel.with_suffix("").as_posix(),
                    **times,
                    "this_run": since is None or mtime >= since - 1,
                }
            )
    return jobs


def rule_times(jobs: list[dict]) -> list[dict]:
    """Per rule: jobs, those written this run, total wall and CPU seconds, the longest job and
    the largest peak memory; the slowest rule first."""
    rules: dict[str, dict] = {}
    for j in jobs:
        r = rules.setdefault(
            j["rule"],
            {
                "rule": j["rule"],
                "jobs": 0,
                "ran_this_run": 0,
                "wall_s": 0.0,
                "cpu_s": 0.0,
                "max_job_s": 0.0,
                "max_rss_mb": None,
            },
        )
        r["jobs"] += 1
        r["ran_this_run"] += bool(j["this_run"])
        r["wall_s"] += j["wall_s"] or 0.0
        r["cpu_s"] += j["cpu_s"] or 0.0
        r["max_job_s"] = max(r["max_job_s"], j["wall_s"] or 0.0)
        if j["max_rss_mb"] is not None:
            r["max_rss_mb"] = max(r["max_rss_mb"] or 0.0, j["max_rss_mb"])
    for r in rules.values():
        for k in ("wall_s", "cpu_s", "max_job_s"):
            r[k] = round(r[k], 3)
    return sorted(rules.values(), key=lambda r: (-r["wall_s"], r["rule"]))


def _iso(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, tz=dt.timezone.utc).isoformat(timespec="seconds")


def pipeline_record(
    config: dict,
    config_hash: str,
    config_files: list[str],
    bench_root: str | os.PathLike,
    plugins: list[str] | None = None,
    environ: dict | None = None,
    patterns: dict[str, str] | None = None,
) -> dict:
    """The record of the run that is ending: ``environ`` (default ``os.environ``) holds its start
    and command (:data:`STARTED_ENV`, :data:`COMMAND_ENV`); the benchmark files under
    ``bench_root`` its jobs' times (those written before the start: jobs of earlier runs whose
    outputs this run kept); ``patterns``, rule -> its ``benchmark:`` pattern (relative to the
    working directory, as the rules write it), name each file's rule (:func:`benchmark_jobs`)."""
    from schedbench.hall.paper import machine_info  # here: hall.paper imports the plotting stack

    env = os.environ if environ is None else environ
    started = _float(env.get(STARTED_ENV))
    prov = provenance(config_hash, plugins or [])
    commit = prov["git_commit"]
    if patterns is not None:
        patterns = {rule: os.path.relpath(p, bench_root) for rule, p in patterns.items()}
    jobs = benchmark_jobs(bench_root, started, patterns)
    return {
        "schedbench_pipeline_record": _VERSION,
        "command": env.get(COMMAND_ENV, ""),
        "started": _iso(started) if started is not None else None,
        "ended": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "config": {"files": list(config_files), "hash": config_hash, "resolved": config},
        "git": {"commit": commit.removesuffix("-dirty"), "dirty": commit.endswith("-dirty")},
        "schedbench_version": prov["schedbench_version"],
        "packages": json.loads(prov["packages"]),
        "platform": prov["platform"],
        "machine": machine_info(),
        "rules": rule_times(jobs),
        "jobs": jobs,
    }


def write_record(path: str | os.PathLike, record: dict) -> None:
    atomic_write_text(path, json.dumps(record, indent=1, default=str) + "\n")


def read_record(run_dir: str | os.PathLike) -> dict | None:
    """The record of a run directory or archive; None when it has none. A file that is not a
    record is a ValueError naming it."""
    f = Path(run_dir) / RECORD
    if not f.is_file():
        return None
    try:
        record = json.loads(f.read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{f}: not readable JSON ({exc})") from None
    if not isinstance(record, dict) or not isinstance(record.get("rules"), list):
        raise ValueError(f"{f}: not a pipeline record (no list 'rules')")
    return record


def compare_records(a: str | os.PathLike, b: str | os.PathLike) -> dict:
    """Two runs' records side by side: per rule the wall time of each (``rules``), the package
    versions that differ (``packages``), the commands; ``missing`` says which run has no
    readable record, and why."""
    records, missing = [], []
    for side, run in (("a", a), ("b", b)):
        try:
            record = read_record(run)
        except ValueError as exc:
            record, why = None, str(exc)
        else:
            why = f"no {RECORD} in {run}"
        records.append(record)
        if record is None:
            missing.append(f"{side}: {why}")
    if missing:
        return {"missing": missing}
    ra, rb = records

    def times(record: dict) -> dict[str, float | None]:
        return {str(r.get("rule")): _float(r.get("wall_s")) for r in record["rules"] if isinstance(r, dict)}

    ta, tb = times(ra), times(rb)
    pa, pb = (r.get("packages") if isinstance(r.get("packages"), dict) else {} for r in (ra, rb))
    return {
        "missing": [],
        "rules": [{"rule": k, "a_s": ta.get(k), "b_s": tb.get(k)} for k in sorted(ta.keys() | tb.keys())],
        "packages": {k: [pa.get(k), pb.get(k)] for k in sorted(pa.keys() | pb.keys()) if pa.get(k) != pb.get(k)},
        "commands": [ra.get("command", ""), rb.get("command", "")],
        "wall_s": [sum(v or 0.0 for v in ta.values()), sum(v or 0.0 for v in tb.values())],
    }


def record_lines(cmp: dict) -> list[str]:
    """The run-record section of ``schedbench diff``'s text."""
    if len(cmp.get("missing", [])) == 2:  # runs from before the record: nothing to say
        return []
    if cmp.get("missing"):
        return [f"pipeline record: not compared ({'; '.join(cmp['missing'])})"]
    wa, wb = cmp["wall_s"]
    lines = [f"pipeline record: rule wall time {wa:.1f} s → {wb:.1f} s (summed over jobs)"]
    for r in cmp["rules"]:
        a, b = r["a_s"], r["b_s"]
        if a is None or b is None:
            lines.append(f"  {r['rule']:<28} {'only in b' if a is None else 'only in a'}")
        elif abs(b - a) > max(1.0, 0.2 * a):  # a rule's time moved by more than 20 % and 1 s
            lines.append(f"  {r['rule']:<28} {a:.1f} s → {b:.1f} s")
    for name, (va, vb) in cmp["packages"].items():
        lines.append(f"  {name}: {va} → {vb}")
    return lines
