"""The run planner's hall: what a stage of a config is expected to cost, the calibration of the
cost model to this machine, the table ``schedbench plan`` prints, and the gate a config passes
before any job (docs/run-planner.md).

Each wing estimates its own stages (:attr:`.wing.Wing.plan`, its ``stage/plan.py``) as
:class:`StageEstimate` rows: jobs, runs, work (jobs × events of the runs), CPU seconds on the
reference machine and the peak memory of one job. :func:`calibration` scales the seconds to this
machine by a fixed probe timed here against its time on the reference machine (2 cores, Python
3.11; the machine of ``benchmarks/README.md``). :func:`check_cost` refuses a config whose
estimate is past :data:`MAX_CPU_HOURS` or whose largest job would not fit in this machine's
memory, unless the config says ``accept_cost: true``.
"""

from __future__ import annotations

import json
import math
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from schedbench.hall.config import ConfigError, balanced_chunks

__all__ = [
    "StageEstimate",
    "chunked_stage",
    "experiment_stages",
    "Plan",
    "calibration",
    "machine_memory_bytes",
    "check_cost",
    "format_plan",
    "subtotals",
    "MAX_CPU_HOURS",
    "JOB_STARTUP_SECONDS",
    "BASE_BYTES",
]

#: Past this many estimated CPU hours a config is refused unless it says ``accept_cost: true``.
MAX_CPU_HOURS = 24.0
#: What a Snakemake job costs before its first run (interpreter, imports, compiled-code caches;
#: measured on the reference machine).
JOB_STARTUP_SECONDS = 2.0
#: Bytes of a job before its data: an interpreter with numpy, numba, pandas and the solvers.
BASE_BYTES = 300e6

#: The probe's time on the reference machine (seconds; :func:`calibration`).
REFERENCE_PROBE_SECONDS = 0.06  # measured 0.051–0.072 s on the quiet reference machine


@dataclass(frozen=True)
class StageEstimate:
    """One stage of one experiment (or of a section): what it is expected to cost."""

    section: str  # e.g. "experiments.random_unit", "search.tasks.greedy_anr_m4"
    stage: str  # e.g. "make_instances", "solve_offline", "run_online", "adversary", "search"
    jobs: int
    runs: int  # instances, solves, runs or games
    work: float  # job-events: Σ over runs of the jobs each run handles
    cpu_seconds: float  # on the reference machine, job start-up included
    peak_bytes: float  # of the largest job of the stage
    note: str = ""


def chunked_stage(
    section: str, stage: str, items: list, per_job: int, work: float, seconds_per_work: float, unit: str
) -> StageEstimate:
    """The estimate of a stage running ``items`` (a wing's points or groups) in balanced chunks of
    ``per_job`` a job (:func:`~.config.balanced_chunks`), ``work`` units of ``unit`` in all at
    ``seconds_per_work`` each, with each job's start-up."""
    jobs = len(balanced_chunks(items, per_job, key=lambda item: 0))
    return StageEstimate(
        section,
        stage,
        jobs,
        len(items),
        float(work),
        jobs * JOB_STARTUP_SECONDS + work * seconds_per_work,
        BASE_BYTES,
        f"{work:.3g} {unit}",
    )


def experiment_stages(
    wing: str,
    section: dict | None,
    stage: str,
    per_job: str,
    split: Callable[[str, dict], tuple[list, float]],
    seconds_per_work: float,
    unit: str,
) -> list[StageEstimate]:
    """One :func:`chunked_stage` of the rule ``stage`` per experiment of a wing's checked
    ``section`` (none without it), by name: ``split(name, experiment)`` gives its items and their
    work, run ``section[per_job]`` items a job."""
    section = section or {}
    out = []
    for name in sorted(section.get("experiments") or {}):
        items, work = split(name, section["experiments"][name])
        out.append(
            chunked_stage(
                f"{wing}.experiments.{name}", stage, items, int(section[per_job]), work, seconds_per_work, unit
            )
        )
    return out


#: The machine the output rules' costs were measured on (:func:`output_stages`) calibrates at
#: this many reference seconds per second: a measured second is worth 1/this reference seconds.
OUTPUTS_MEASURED_ON = 1.86


def output_stages(
    jobs: dict[str, dict[str, int]], measured: dict[str, float], notes: dict | None = None
) -> list[StageEstimate]:
    """One estimate per rule that builds a table, a figure or the paper: ``jobs`` by section
    (``tables``, ``figures``, ``paper``) and rule, each job costing its ``measured`` seconds —
    the ``cpu_time`` of the rule's benchmark file (``results/benchmarks/*.tsv``) in the default
    config's run on the project machine, start-up included — in reference seconds
    (/:data:`OUTPUTS_MEASURED_ON`). Their inputs are the small results tables, so a smaller
    config costs about the same. A rule with no jobs is left out."""
    notes = notes or {}
    return [
        StageEstimate(
            section, rule, n, n, 0.0, n * (measured[rule] / OUTPUTS_MEASURED_ON), BASE_BYTES, notes.get(rule, "")
        )
        for section, rules in jobs.items()
        for rule, n in rules.items()
        if n
    ]


@dataclass(frozen=True)
class Plan:
    """Every stage of a config, with the machine's speed factor and memory."""

    stages: list[StageEstimate]
    speed: float  # this machine's seconds per reference second (> 1: slower)
    memory: float  # bytes this machine has

    @property
    def cpu_hours(self) -> float:
        return sum(s.cpu_seconds for s in self.stages) * self.speed / 3600

    @property
    def jobs(self) -> int:
        return sum(s.jobs for s in self.stages)

    @property
    def peak_bytes(self) -> float:
        return max((s.peak_bytes for s in self.stages), default=0.0)

    def summary(self) -> str:
        """One line for ``check-config``."""
        return (
            f"estimated cost: {self.jobs} jobs, "
            f"{_hours(self.cpu_hours)} of CPU on this machine "
            f"({_hours(self.cpu_hours / max(1, os.cpu_count() or 1))} on {os.cpu_count() or 1} cores), "
            f"largest job {_bytes(self.peak_bytes)} of {_bytes(self.memory)} memory"
        )


def _probe() -> float:
    """A fixed piece of work (sorting 2^20 doubles, twice), timed: its best of five (~0.3 s)."""
    data = np.random.default_rng(0).random(2**20)
    best = math.inf
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(2):
            np.sort(data, kind="quicksort")
        best = min(best, time.perf_counter() - t0)
    return best


_SPEED: list[float] = []


#: Where the probe's result is recorded, per machine: the first estimate on a machine probes it,
#: every later one (any process) reads it, so a config's estimate does not move with the load.
CALIBRATION_FILE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "schedbench" / "calibration.json"


def _machine_key() -> str:
    return f"{platform.node()}|{platform.machine()}|{platform.processor()}|{os.cpu_count()}"


def calibration() -> float:
    """This machine's seconds per second of the reference machine (the probe's ratio, clamped to
    [0.1, 20]): ``SCHEDBENCH_CALIBRATION`` if set, else the value recorded for this machine in
    :data:`CALIBRATION_FILE`, else probed now and recorded (a file that cannot be written leaves
    the value for this process only)."""
    if not _SPEED:
        given = os.environ.get("SCHEDBENCH_CALIBRATION")
        if given:
            try:
                value = float(given)
            except ValueError:
                raise ConfigError(f"SCHEDBENCH_CALIBRATION={given!r}: not a number") from None
            if not (math.isfinite(value) and 0.1 <= value <= 20):
                raise ConfigError(f"SCHEDBENCH_CALIBRATION={given!r}: must be in [0.1, 20]")
            _SPEED.append(value)
            return value
        recorded = _recorded()
        if recorded is None:
            recorded = min(20.0, max(0.1, _probe() / REFERENCE_PROBE_SECONDS))
            _record(recorded)
        _SPEED.append(recorded)
    return _SPEED[0]


def _recorded() -> float | None:
    try:
        value = json.loads(CALIBRATION_FILE.read_text()).get(_machine_key())
    except (OSError, ValueError, AttributeError):
        return None
    return float(value) if isinstance(value, (int, float)) and 0.1 <= value <= 20 else None


def _record(value: float) -> None:
    try:
        CALIBRATION_FILE.parent.mkdir(parents=True, exist_ok=True)
        try:
            table = json.loads(CALIBRATION_FILE.read_text())
            table = table if isinstance(table, dict) else {}
        except (OSError, ValueError):
            table = {}
        table[_machine_key()] = value
        tmp = CALIBRATION_FILE.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(table, indent=1))
        os.replace(tmp, CALIBRATION_FILE)
    except OSError:
        pass  # a read-only home: this process keeps its probe


def machine_memory_bytes() -> float:
    """Physical memory of this machine (bytes; inf where the platform does not say)."""
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return math.inf


def check_cost(plan: Plan, accept: bool) -> str | None:
    """None if the plan is within the limits (or ``accept``), else why not, in plain words and
    with the way to accept it."""
    if accept:
        return None
    problems = []
    if plan.cpu_hours > MAX_CPU_HOURS:
        worst = max(plan.stages, key=lambda s: s.cpu_seconds)
        problems.append(
            f"it is estimated at {_hours(plan.cpu_hours)} of CPU on this machine, more than "
            f"{MAX_CPU_HOURS:g} h (largest: {worst.section} {worst.stage}, {_hours(worst.cpu_seconds * plan.speed / 3600)})"
        )
    if plan.peak_bytes > 0.8 * plan.memory:
        worst = max(plan.stages, key=lambda s: s.peak_bytes)
        problems.append(
            f"its largest job ({worst.section} {worst.stage}) needs about {_bytes(worst.peak_bytes)}, "
            f"more than 80 % of this machine's memory ({_bytes(plan.memory)})"
        )
    if not problems:
        return None
    return (
        "; ".join(problems)
        + ". See the estimate with `schedbench plan CONFIG`; to run it anyway set `accept_cost: true` "
        "in the config (or `--config accept_cost=True`)"
    )


#: the sections whose stages are subtotalled together (one rule each), not stage by stage
OUTPUT_SECTIONS = ("tables", "figures", "paper")


def subtotals(plan: Plan) -> list[tuple[str, int, float]]:
    """(stage, jobs, CPU seconds on this machine) per stage, in order of first appearance; the
    tables, figures and paper each as one stage (:data:`OUTPUT_SECTIONS`)."""
    out: dict[str, list[float]] = {}
    for s in plan.stages:
        key = s.section if s.section in OUTPUT_SECTIONS else s.stage
        total = out.setdefault(key, [0, 0.0])
        total[0] += s.jobs
        total[1] += s.cpu_seconds * plan.speed
    return [(k, int(jobs), seconds) for k, (jobs, seconds) in out.items()]


def format_plan(plan: Plan) -> str:
    """The table ``schedbench plan`` prints: one row per stage (no name cut short), a subtotal
    per stage, then the totals."""
    width = max([len("section"), *(len(s.section) for s in plan.stages)])
    stage_width = max([len("stage"), *(len(s.stage) for s in plan.stages)])
    head = (
        f"{'section':<{width}} {'stage':<{stage_width}} {'jobs':>6} {'runs':>9} {'work':>10} {'CPU':>9} "
        f"{'peak/job':>9}  note"
    )
    lines = [head, "-" * len(head)]
    for s in plan.stages:
        lines.append(
            f"{s.section:<{width}} {s.stage:<{stage_width}} {s.jobs:>6} {s.runs:>9} {_count(s.work):>10} "
            f"{_hours(s.cpu_seconds * plan.speed / 3600):>9} {_bytes(s.peak_bytes):>9}  {s.note}"
        )
    lines.append("-" * len(head))
    for stage, jobs, seconds in subtotals(plan):
        lines.append(
            f"{'subtotal':<{width}} {stage:<{stage_width}} {jobs:>6} {'':>9} {'':>10} {_hours(seconds / 3600):>9}"
        )
    lines.append("-" * len(head))
    lines.append(plan.summary())
    lines.append(
        f"(this machine runs {plan.speed:.2f} s per second of the reference machine; estimates are "
        "upper-leaning: solver stages count their work limit; docs/run-planner.md)"
    )
    return "\n".join(lines)


def _hours(h: float) -> str:
    if h < 1 / 60:
        return f"{h * 3600:.0f} s"
    if h < 1:
        return f"{h * 60:.0f} min"
    if h < 48:
        return f"{h:.1f} h"
    return f"{h / 24:.0f} d"


def _bytes(b: float) -> str:
    if not math.isfinite(b):
        return "?"
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if b < 1024 or unit == "TB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024
    return f"{b:.1f} TB"


def _count(x: float) -> str:
    return f"{x:.3g}" if x >= 1000 else f"{x:.0f}"
