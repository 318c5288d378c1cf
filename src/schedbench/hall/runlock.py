"""One pipeline run per working directory, without stale locks.

Snakemake's own lock survives a SIGKILL (the next run then stops with LockException and
needs ``--unlock``). The workflow profile turns it off (``nolock``) and the Snakefile takes
this lock instead: an exclusive ``flock`` on ``.snakemake/schedbench-run.lock``, which the
kernel releases when the process ends, however it ends. A second run started while one is
active is refused with a message naming the running one.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import IO

__all__ = ["RunLockError", "hold_run_lock", "run_active", "RUN_LOCK"]

#: the run lock of a working directory, relative to it
RUN_LOCK = ".snakemake/schedbench-run.lock"


class RunLockError(RuntimeError):
    """Another pipeline run holds the lock of this working directory."""


def hold_run_lock(path: str | os.PathLike = RUN_LOCK) -> IO:
    """Take the run lock (non-blocking) and return the open file: keep it referenced for the
    lifetime of the run (closing it, or the process ending, releases the lock)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise RunLockError(
            f"another pipeline run ({holder}) is working in {Path.cwd()}; wait for it to "
            f"finish or stop it (its lock {path} is released when it ends)"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}\n")
    handle.flush()
    return handle


def run_active(root: str | os.PathLike) -> bool:
    """Whether a pipeline holds the run lock of the working directory ``root`` (probed with a
    shared lock, released at once; no lock file: none)."""
    lock = Path(root) / RUN_LOCK
    if not lock.is_file():
        return False
    with open(lock) as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
    return False
