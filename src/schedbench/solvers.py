"""Solver helpers shared by the offline optima and the queueing bounds."""

from __future__ import annotations

import os
import sys

import highspy

__all__ = ["quiet_highs", "run_checked"]


def quiet_highs() -> highspy.Highs:
    """A HiGHS instance with output off, without the banner it prints to fd 1 on creation.

    Every instance runs single-threaded: HiGHS keeps one global thread pool per process, and a
    run asking for a different ``threads`` than the first run of the process fails (measured: the
    makespan MILP then returned an error status after a bipartite LP in the same process)."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 1)
            h = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    return h


def run_checked(h: highspy.Highs, what: str) -> highspy.HighsModelStatus:
    """Run ``h``; return its model status, or raise if HiGHS reports an error instead of a result."""
    status = h.run()
    if status == highspy.HighsStatus.kError:
        raise RuntimeError(f"{what}: HiGHS failed ({h.modelStatusToString(h.getModelStatus())})")
    return h.getModelStatus()
