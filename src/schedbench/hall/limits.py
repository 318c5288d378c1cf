"""A wall-clock limit around code the suite does not own (a plug-in's import, its runs in
``schedbench check``, ``compare`` and the pipeline): :func:`wall_limit`.

The limit is a ``SIGALRM`` timer: when it fires, the code running in the main thread gets the
given exception at its next Python bytecode — a plug-in looping forever in Python ends with one
error naming it instead of a command that never returns. Outside the main thread (no signals)
or where the platform has no ``setitimer`` the code runs without a limit. A loop inside compiled
code (numba) is not interrupted until it returns to Python: for plug-in runs,
:func:`hard_limit` backs the timer with a process-ending one (``faulthandler``'s watchdog, a C
thread that needs neither the GIL nor the interpreter), :data:`HARD_GRACE_SECONDS` later.
"""

from __future__ import annotations

import faulthandler
import signal
import sys
import threading
from contextlib import contextmanager
from typing import Callable, Iterator

__all__ = ["wall_limit", "hard_limit", "PLUGIN_RUN_SECONDS", "HARD_GRACE_SECONDS"]

#: The wall-clock seconds a run involving a plug-in (an out-of-tree algorithm or adversary) may
#: take by default (a run's ``run_seconds``, ``compare
#: --plugin-time-limit``, the config's ``plugin_time_limit``). Built-in runs are not limited:
#: their cost is planned. A loop inside numba code is not interrupted until it returns.
PLUGIN_RUN_SECONDS = 600.0

#: How long past its limit a plug-in's run may stay inside compiled code (numba: the SIGALRM limit
#: cannot interrupt it, nor can Ctrl-C) before :func:`hard_limit` ends the process. Past the limit
#: the run has failed anyway; the grace only lets a compiled call that is about to return do so.
HARD_GRACE_SECONDS = 30.0


@contextmanager
def wall_limit(seconds: float, error: Callable[[], BaseException]) -> Iterator[None]:
    """Run the block with at most ``seconds`` of wall-clock time; past it, ``error()`` is raised
    inside the block. Nested limits: the one that ends first fires (an inner limit ending later
    than its enclosing one is not armed); the outer one is restored after an inner one."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    enclosing = signal.getitimer(signal.ITIMER_REAL)[0] if usable else 0.0
    if not usable or seconds <= 0 or 0 < enclosing <= seconds:
        yield
        return

    def fire(signum, frame):
        raise error()

    previous = signal.signal(signal.SIGALRM, fire)
    outer = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer[0] > 0:  # an enclosing limit: what was left of it
            signal.setitimer(signal.ITIMER_REAL, outer[0])


@contextmanager
def hard_limit(seconds: float) -> Iterator[None]:
    """The backstop of :func:`wall_limit` for a plug-in's run: if the block is still running
    ``seconds + HARD_GRACE_SECONDS`` after it began — stuck where no Python signal
    handler runs, a loop inside numba-compiled code — the process ends with exit status 1, its
    stderr (in a pipeline job: the job's log) showing ``Timeout (H:MM:SS)!`` and where each thread
    was, most recent call first: the innermost Python frame is the plug-in's own (its file and
    line, e.g. the ``compiled_run`` that called the looping kernel). A watchdog of
    ``faulthandler.dump_traceback_later``: a C thread that needs neither the GIL nor the
    interpreter; a thread started and joined per block (tens of µs), entered by plug-in runs only.
    Not armed for ``seconds <= 0``; one armed by others (pytest's ``faulthandler_timeout``) is
    replaced for the block."""
    out = _fd_file() if seconds > 0 else None  # a built-in's run (0): nothing at all
    if out is None:
        yield
        return
    faulthandler.dump_traceback_later(seconds + HARD_GRACE_SECONDS, exit=True, file=out)
    try:
        yield
    finally:
        faulthandler.cancel_dump_traceback_later()


def _fd_file():
    """A stream with a real descriptor for the watchdog's dump: ``sys.stderr`` when it has one (a
    pipeline job's log, the terminal), else the process's own stderr (a test's captured stream
    has none); None if neither has one."""
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None and stream.fileno() >= 0:
                return stream
        except (AttributeError, ValueError, OSError):
            continue
    return None
