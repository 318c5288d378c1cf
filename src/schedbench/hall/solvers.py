"""Solver helpers shared by the offline optima and the queueing bounds (the limits of a solve:
:mod:`schedbench.hall.effort`)."""

from __future__ import annotations

import logging
import math
import os
import sys
import time

import highspy

from schedbench.hall.progress import PREFIX, clock_text

__all__ = ["quiet_highs", "run_checked", "MIP_REPORT_EVERY"]

_log = logging.getLogger(__name__)
MIP_REPORT_EVERY = 30.0  # seconds: a MIP solve running longer logs its state this often


def quiet_highs() -> highspy.Highs:
    """A HiGHS instance with output off, without the banner it prints to fd 1 on creation.

    Every instance runs single-threaded: HiGHS keeps one global thread pool per process, and a
    run asking for a different ``threads`` than the first run of the process fails (measured: the
    makespan MILP then returned an error status after a max-flow LP in the same process)."""
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
    """Run ``h``; return its model status, or raise if HiGHS reports an error instead of a result.

    A MIP that runs longer than ``MIP_REPORT_EVERY`` seconds logs a progress line that often
    (incumbent, bound, gap, nodes, elapsed: a solve may run to its time limit); quick solves log
    nothing. The callback only reads HiGHS's state."""
    start = time.monotonic()
    due = [start + MIP_REPORT_EVERY]

    def report(event) -> None:
        now = time.monotonic()
        if now < due[0]:
            return
        due[0] = now + MIP_REPORT_EVERY
        out = event.data_out
        inc = out.mip_primal_bound
        gap = f"{100 * out.mip_gap:.1f} %" if math.isfinite(out.mip_gap) else "?"
        _log.info(
            "%sHiGHS %s: incumbent %s, bound %.6g, gap %s, %d nodes, elapsed %s",
            PREFIX,
            what,
            f"{inc:.6g}" if math.isfinite(inc) else "none yet",
            out.mip_dual_bound,
            gap,
            int(out.mip_node_count),
            clock_text(now - start),
        )

    h.cbMipInterrupt.subscribe(report)
    try:
        status = h.run()
    finally:
        h.cbMipInterrupt.unsubscribe(report)
    if status == highspy.HighsStatus.kError:
        raise RuntimeError(f"{what}: HiGHS failed ({h.modelStatusToString(h.getModelStatus())})")
    return h.getModelStatus()
