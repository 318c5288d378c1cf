"""Progress lines for long pipeline jobs: what is done, the rate and the time left.

A chunk of queueing points may simulate 10⁹ events and a solver call may run to its time limit; without this a
job's log stays empty until it ends. Each job that works through a list of items (points,
groups, instances) logs, as items finish, one line such as::

    progress: 3/8 points (37 %), 2.1e+08 events at 4.3e+07/s, elapsed 0:00:05, ETA 0:00:09

at most every ``every`` seconds (and always for the first and the last item). The ETA scales
the elapsed time by the work left, where each item's expected work is known (``weights``: a queueing
point's arrivals), else by the items left. Results are returned in input order, so a job's
output does not depend on how the items were spread over its workers.
``schedbench status`` shows the last such line of every running job.

Lines logged *inside* an item (a long HiGHS MIP, the searches) reach the job's log when the job
runs its items in-process (``threads: 1``, what both profiles set); with more threads the items
run in joblib worker processes, whose logging is not the job's: only the per-item lines remain.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import joblib

__all__ = ["Progress", "progress_map", "PREFIX", "clock_text"]

PREFIX = "progress: "


def clock_text(seconds: float) -> str:
    """Seconds as H:MM:SS ('?' when unknown)."""
    if not math.isfinite(seconds):
        return "?"
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


class Progress:
    """Counts finished items (and optional work units such as events) and formats the line."""

    def __init__(
        self,
        total: int,
        what: str = "items",
        weights: Sequence[float] | None = None,
        unit: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        if weights is not None and len(weights) != total:
            raise ValueError(f"weights: {len(weights)} values for {total} items")
        if weights is not None and any(not math.isfinite(w) or w < 0 for w in weights):
            raise ValueError("weights: must be finite and >= 0")
        self.total, self.what, self.unit = int(total), what, unit
        self.weights = list(weights) if weights is not None else None
        self.clock = clock
        self.start = clock()
        self.done = 0
        self.work = 0.0
        self.weight_done = 0.0

    def advance(self, work: float = 0.0) -> None:
        """One more item finished (the next in input order), having done ``work`` units."""
        if self.weights is not None:
            self.weight_done += self.weights[self.done]
        self.done += 1
        self.work += float(work)

    def fraction(self) -> float:
        """Share of the job done: by expected work when known, else by items."""
        if self.weights is not None and sum(self.weights) > 0:
            return self.weight_done / sum(self.weights)
        return self.done / self.total if self.total else 1.0

    def line(self) -> str:
        elapsed = self.clock() - self.start
        frac = self.fraction()
        eta = elapsed * (1 - frac) / frac if frac > 0 else math.inf
        text = f"{PREFIX}{self.done}/{self.total} {self.what} ({100 * self.done / max(self.total, 1):.0f} %)"
        if self.unit:
            rate = self.work / elapsed if elapsed > 0 else math.inf
            text += f", {self.work:.2g} {self.unit} at {rate:.2g}/s"
        return text + f", elapsed {clock_text(elapsed)}, ETA {clock_text(eta)}"


def progress_map(
    fn: Callable[[Any], Any],
    items: Iterable[Any],
    log: logging.Logger,
    what: str,
    n_jobs: int = 1,
    weights: Sequence[float] | None = None,
    work: Callable[[Any], float] | None = None,
    unit: str | None = None,
    every: float = 10.0,
    clock: Callable[[], float] = time.monotonic,
) -> list[Any]:
    """``[fn(x) for x in items]`` on ``n_jobs`` joblib workers, logging progress lines (see the
    module docstring); ``work(result)`` counts the units an item did (e.g. its events)."""
    items = list(items)
    progress = Progress(len(items), what, weights, unit if work is not None else None, clock)
    log.info("%sstarting %d %s on %d worker(s)", PREFIX, len(items), what, n_jobs)
    results = []
    last = -math.inf
    outputs = joblib.Parallel(n_jobs=n_jobs, return_as="generator")(joblib.delayed(fn)(x) for x in items)
    for result in outputs:
        results.append(result)
        progress.advance(work(result) if work is not None else 0.0)
        now = clock()
        if progress.done in (1, len(items)) or now - last >= every:
            log.info("%s", progress.line())
            last = now
    return results
