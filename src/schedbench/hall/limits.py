"""A wall-clock limit around code the suite does not own (a plug-in's import, its runs in
``schedbench check``, ``compare`` and the pipeline): :func:`wall_limit`.

The limit is a ``SIGALRM`` timer: when it fires, the code running in the main thread gets the
given exception at its next Python bytecode — a plug-in looping forever in Python ends with one
error naming it instead of a command that never returns. Outside the main thread (no signals)
or where the platform has no ``setitimer`` the code runs without a limit. A loop inside compiled
code (numba) is not interrupted until it returns to Python.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Callable, Iterator

__all__ = ["wall_limit", "PLUGIN_RUN_SECONDS"]

#: The wall-clock seconds a run involving a plug-in (an out-of-tree algorithm or adversary) may
#: take by default (``schedbench.scheduling.play.execute(run_seconds=...)``, ``compare
#: --plugin-time-limit``, the config's ``plugin_time_limit``). Built-in runs are not limited:
#: their cost is planned. A loop inside numba code is not interrupted until it returns.
PLUGIN_RUN_SECONDS = 600.0


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
