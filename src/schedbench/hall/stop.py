"""A SIGTERM ends a pipeline run within :data:`STOP_SECONDS` (docs/hostile-input.md, "Pipeline runs").

Snakemake's own answer to SIGTERM is to wait for the running jobs to finish ("Will exit after
finishing currently running jobs"): minutes for a local simulation chunk, hours for a cluster job, and
forever when the SLURM controller is gone. The Snakefile's ``onstart`` hook calls
:func:`stop_on_sigterm` instead, so that a SIGTERM to the Snakemake process

1. sends SIGTERM to its descendant processes (the local jobs and their workers);
2. raises KeyboardInterrupt in its main thread: Snakemake's Ctrl-C path, which cancels its jobs
   (the SLURM executor runs ``scancel``) and exits;
3. once its main thread has returned, cancels the timers Snakemake's scheduler left (its rate
   limit re-wakes it every minute, and the interpreter would wait for them);
4. arms a deadline: whatever is left then (a ``scancel`` waiting on a controller that is gone, a
   job ignoring SIGTERM) — descendants get SIGKILL and the process ends (status 143).

Nothing is half-written: every output is written to a temporary file and renamed, a directory
output left unfinished is marked incomplete by Snakemake, and the profiles' ``rerun-incomplete``
recomputes it when the same command is run again; the run lock is released by the kernel.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

__all__ = ["STOP_SECONDS", "stop_on_sigterm", "descendants"]

#: A run that receives SIGTERM has ended by then (seconds): the deadline below, plus the exit.
STOP_SECONDS = 60.0
#: The deadline after SIGTERM at which whatever is left is killed (a margin under STOP_SECONDS).
_DEADLINE = 45.0


def descendants(pid: int) -> list[int]:
    """The PIDs of every live descendant of ``pid`` (from ``/proc``; none where there is no /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _signal_all(pids: list[int], signum: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signum)
        except OSError:  # ended meanwhile
            pass


def _cancel_timers_after_main() -> None:
    """When the main thread has returned, cancel every pending ``threading.Timer`` (non-daemon
    threads the interpreter would otherwise wait for before exiting)."""
    while threading.main_thread().is_alive():
        time.sleep(0.2)
    for thread in threading.enumerate():
        if isinstance(thread, threading.Timer):
            thread.cancel()


def stop_on_sigterm(deadline: float = _DEADLINE) -> None:
    """Install the SIGTERM handler described above (in the main thread; a second SIGTERM while
    stopping is ignored)."""
    stopping = threading.Event()

    def at_deadline() -> None:
        _signal_all(descendants(os.getpid()), signal.SIGKILL)
        print(
            f"schedbench: stopped on SIGTERM ({deadline:g} s deadline); rerun the same command to resume",
            file=sys.stderr,
            flush=True,
        )
        os._exit(128 + signal.SIGTERM)

    def on_sigterm(signum, frame) -> None:
        if stopping.is_set():
            return
        stopping.set()
        timer = threading.Timer(deadline, at_deadline)
        timer.daemon = True
        timer.start()
        threading.Thread(target=_cancel_timers_after_main, daemon=True).start()
        print(
            "schedbench: SIGTERM: stopping the running jobs; rerun the same command to resume",
            file=sys.stderr,
            flush=True,
        )
        _signal_all(descendants(os.getpid()), signal.SIGTERM)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_sigterm)
