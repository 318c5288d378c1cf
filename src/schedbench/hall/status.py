"""``schedbench status`` / ``make status``: a running or finished pipeline at a glance.

Read-only, from what the run leaves in its working directory:

- Snakemake's own log of the latest run (``.snakemake/log/*.snakemake.log``): jobs started
  (``rule``/``localrule`` blocks, also inside group jobs), ``Finished jobid``, ``Error in rule``,
  the ``N of M steps`` counter and, on a cluster, the SLURM job ids;
- the run lock (``.snakemake/schedbench-run.lock``, see :mod:`schedbench.hall.runlock`): the
  run is active while the PID written there is a live process;
- each running job's own log: its last ``progress:`` line (:mod:`schedbench.hall.progress`);
- the benchmark files (``results/benchmarks/**.tsv``): the slowest rules and jobs.

An entry that is not a readable file (a dangling symlink, a directory or a FIFO in the place of
a log, a symlink or a logged path leading out of the working directory) is skipped with a note
that says so, never a traceback, a hang or a read outside the directory.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from schedbench.hall.archive_checks import leads_outside
from schedbench.hall.io import read_benchmark
from schedbench.hall.progress import PREFIX

__all__ = ["RunStatus", "read_status", "format_status"]

_RULE = re.compile(r"^\s*(?:local)?rule (\w+):\s*$")
_JOBID = re.compile(r"^\s*jobid: (\d+)\s*$")
_LOG = re.compile(r"^\s*log: (\S+?)(?:,|\s|$)")
_FINISHED = re.compile(r"Finished jobid: (\d+)")
_ERROR = re.compile(r"^\s*Error in rule (\w+):")  # indented inside an "Error in group" block
_STEPS = re.compile(r"(\d+) of (\d+) steps")
_TOTAL = re.compile(r"^total\s+(\d+)\s*$")
_SLURM = re.compile(r"Job (\S+) has been submitted with SLURM jobid (\d+)")


@dataclass
class Job:
    rule: str
    jobid: int
    log: str | None = None


@dataclass
class RunStatus:
    workdir: Path
    log_file: Path | None = None
    active_pid: int | None = None
    total: int | None = None
    done: int = 0
    jobs: dict[int, Job] = field(default_factory=dict)
    finished: set[int] = field(default_factory=set)
    failed: dict[int, str] = field(default_factory=dict)
    slurm_jobs: int = 0
    ended: str | None = None
    progress: dict[int, str] = field(default_factory=dict)
    slowest_rules: pd.DataFrame | None = None
    slowest_jobs: pd.DataFrame | None = None
    notes: list[str] = field(default_factory=list)  # entries skipped, and why

    @property
    def running(self) -> list[Job]:
        if self.active_pid is None:
            return []
        return [j for i, j in sorted(self.jobs.items()) if i not in self.finished and i not in self.failed]


def _active_pid(workdir: Path) -> int | None:
    """The PID of the run holding this directory's run lock, if that process is alive (read
    only: taking the lock to test it could refuse a run starting at that moment)."""
    text = _read(workdir, workdir / ".snakemake/schedbench-run.lock", [], "run lock")
    m = re.match(r"pid (\d+)", text or "")
    if not m:
        return None
    pid = int(m.group(1))
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, IndexError):
        return None
    return pid if stat not in ("Z", "X") and b"snakemake" in cmdline else None


def _parse_log(status: RunStatus, text: str) -> None:
    current: Job | None = None
    error_rule: str | None = None
    for line in text.splitlines():
        if m := _RULE.match(line):
            current, error_rule = Job(m.group(1), -1), None
            continue
        if m := _ERROR.match(line):
            error_rule, current = m.group(1), None
            continue
        if m := _JOBID.match(line):
            jobid = int(m.group(1))
            if current is not None and current.jobid < 0:
                current.jobid = jobid
                status.jobs[jobid] = current
            elif error_rule is not None:
                status.failed[jobid] = error_rule
                error_rule = None
            continue
        if (m := _LOG.match(line)) and current is not None and current.log is None:
            current.log = m.group(1)
            continue
        if m := _FINISHED.search(line):
            status.finished.add(int(m.group(1)))
        elif m := _STEPS.search(line):
            status.done, status.total = int(m.group(1)), int(m.group(2))
        elif (m := _TOTAL.match(line)) and status.total is None:
            status.total = int(m.group(1))
        elif _SLURM.search(line):
            status.slurm_jobs += 1
        elif "Nothing to be done" in line:
            status.ended = "nothing to be done"
        elif line.startswith("Complete log(s)") and status.ended is None:
            status.ended = "finished" if not status.failed else "finished with failed jobs"
        elif "Exiting because a job execution failed" in line:
            status.ended = "stopped: a job failed"


def _not_a_file(workdir: Path, path: Path) -> str | None:
    """Why ``path`` cannot be read as a file of ``workdir``, in plain words; None for a file
    inside it (or nothing yet)."""
    try:
        if (target := leads_outside(workdir, path)) is not None:
            return f"leads outside {workdir} (to {target})"
        if path.is_symlink() and not path.exists():
            return f"a symlink to {os.readlink(path)} that leads to no file"
        if path.is_dir():
            return "a directory, not a file"
        if path.exists() and not path.is_file():
            return "not a regular file"
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    return None


def _read(workdir: Path, path: Path, notes: list[str], what: str) -> str | None:
    """The text of ``path`` (a file of ``workdir``), or None with a note saying why it was
    skipped (none if it does not exist)."""
    if why := _not_a_file(workdir, path):
        notes.append(f"{what} {path}: {why}; skipped")
        return None
    try:
        return path.read_text(errors="replace")
    except FileNotFoundError:
        return None
    except OSError as exc:
        notes.append(f"{what} {path}: unreadable ({exc.strerror or exc}); skipped")
        return None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _last_progress(workdir: Path, path: Path, notes: list[str]) -> str | None:
    text = _read(workdir, path, notes, "job log")
    if text is None:
        return None
    lines = text.splitlines()
    for line in reversed(lines):
        if PREFIX in line:
            return line[line.index(PREFIX) + len(PREFIX) :]
    return None


def _benchmarks(workdir: Path, top: int, notes: list[str]) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    root = workdir / "results/benchmarks"
    rows = []
    for f in sorted(root.rglob("*.tsv")):
        if why := _not_a_file(workdir, f):
            notes.append(f"benchmark file {f}: {why}; skipped")
            continue
        times = read_benchmark(f)
        if times is None or times["wall_s"] is None:
            continue
        rel = f.relative_to(root)
        rows.append({"rule": rel.parts[0].removesuffix(".tsv"), "job": str(rel.with_suffix("")), "s": times["wall_s"]})
    if not rows:
        return None, None
    df = pd.DataFrame(rows)
    rules = (
        df.groupby("rule")["s"]
        .agg(jobs="count", total_s="sum", max_s="max")
        .sort_values("total_s", ascending=False)
        .head(top)
        .reset_index()
    )
    jobs = df.sort_values("s", ascending=False).head(top).reset_index(drop=True)
    return rules, jobs


def read_status(workdir: str | Path = ".", top: int = 5) -> RunStatus:
    """The state of the latest pipeline run in ``workdir``."""
    workdir = Path(workdir)
    status = RunStatus(workdir=workdir)
    notes: list[str] = []
    logs = sorted((workdir / ".snakemake/log").glob("*.snakemake.log"), key=_mtime)
    status.active_pid = _active_pid(workdir)
    # the newest log of a run that scheduled jobs: `--report`, `--unlock` or a run refused by the
    # run lock write logs too, without any job
    for log in reversed(logs):
        text = _read(workdir, log, notes, "Snakemake log")
        if text is None:
            continue
        candidate = RunStatus(workdir=workdir, active_pid=status.active_pid)
        _parse_log(candidate, text)
        if candidate.jobs or candidate.total is not None or candidate.ended is not None:
            status = candidate
            status.log_file = log
            break
    for job in status.running:
        if job.log and (line := _last_progress(workdir, workdir / job.log, notes)):
            status.progress[job.jobid] = line
    status.slowest_rules, status.slowest_jobs = _benchmarks(workdir, top, notes)
    status.notes = notes
    return status


def format_status(status: RunStatus) -> str:
    out = []
    if status.log_file is None:
        out.append(f"no pipeline run recorded in {status.workdir.resolve()} (no .snakemake/log)")
    else:
        state = (
            f"running (pid {status.active_pid})"
            if status.active_pid is not None
            else status.ended or "not running (ended without a summary: killed?)"
        )
        out.append(f"pipeline in {status.workdir.resolve()}: {state}")
        out.append(f"log: {status.log_file}")
        total = status.total if status.total is not None else "?"
        waiting = (
            f", {status.total - status.done - len(status.running) - len(status.failed)} waiting"
            if status.total is not None and status.active_pid is not None
            else ""
        )
        slurm = f"; {status.slurm_jobs} SLURM jobs submitted" if status.slurm_jobs else ""
        unfinished = [i for i in status.jobs if i not in status.finished and i not in status.failed]
        cut = (
            f", {len(unfinished)} started but never finished (rerun the same command to resume)"
            if status.active_pid is None and unfinished
            else ""
        )
        out.append(
            f"jobs: {status.done} of {total} done, {len(status.running)} running, "
            f"{len(status.failed)} failed{waiting}{cut}{slurm}"
        )
        if status.running:
            out.append("running (submitted to SLURM, perhaps still queued):" if status.slurm_jobs else "running:")
            for job in status.running:
                out.append(
                    f"  {job.rule} (jobid {job.jobid}"
                    + (f", log {job.log}" if job.log else "")
                    + ")"
                    + (f": {status.progress[job.jobid]}" if job.jobid in status.progress else "")
                )
        if status.failed:
            out.append("failed:")
            for jobid, rule in sorted(status.failed.items()):
                log = status.jobs[jobid].log if jobid in status.jobs else None
                out.append(f"  {rule} (jobid {jobid}" + (f", log {log}" if log else "") + ")")
    if status.slowest_rules is not None:
        out.append("slowest rules (wall seconds from results/benchmarks):")
        for r in status.slowest_rules.itertuples():
            out.append(f"  {r.rule:<26} {r.jobs:>5} jobs {r.total_s:>9.1f} s total {r.max_s:>8.1f} s max")
        out.append("slowest jobs:")
        for r in status.slowest_jobs.itertuples():
            out.append(f"  {r.job:<60} {r.s:>8.1f} s")
    if status.notes:
        out.append("skipped (not readable files):")
        out.extend(f"  {note}" for note in status.notes)
    return "\n".join(out)
