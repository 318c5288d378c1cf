"""Where a plug-in's code meets the suite, for what runs before any engine exists: naming the
plug-in file and line an exception came from (:func:`in_plugin`, also used by
:func:`schedbench.scheduling.play.user_code` for algorithms and adversaries) and generating an
out-of-tree family's instance under a time limit (:func:`family_code`). Kept out of
:mod:`~schedbench.scheduling.play`, which imports the engine and the machine core: the instance
jobs of the pipeline import this module, and the sources a job imports are its inputs (editing
how machines process must not rerun the instances)."""

from __future__ import annotations

import traceback
from contextlib import contextmanager
from pathlib import Path

from schedbench.hall.limits import PLUGIN_RUN_SECONDS, hard_limit, wall_limit
from schedbench.scheduling.registry import is_builtin, origin

__all__ = ["in_plugin", "family_code"]


def in_plugin(exc: BaseException, files: dict[str, str]) -> str | None:
    """``plug-in FILE:LINE: algorithm 'x'`` for the deepest frame of ``exc``'s traceback in one of
    the run's plug-in ``files``; None when no plug-in code raised it (a built-in's bug)."""
    hit = None
    for frame in traceback.extract_tb(exc.__traceback__):
        path = str(Path(frame.filename).resolve()) if frame.filename else ""
        if path in files:
            hit = f"plug-in {path}:{frame.lineno}: {files[path]}"
    return hit


@contextmanager
def family_code(family, index: int, run_seconds: float | None, error: type[Exception]):
    """Generate instance ``index`` of an out-of-tree family (a plug-in's ``register_family``)
    under the same rules as :func:`user_code` for an algorithm: ``run_seconds`` (default
    :data:`PLUGIN_RUN_SECONDS`) of wall-clock time, then an ``error`` (the caller's
    :class:`~schedbench.scheduling.instances.base.FamilyError`: this module sits below the
    families) naming the plug-in file, the family and the limit; an exception raised in the
    plug-in's file, ``sys.exit`` or a MemoryError: an ``error`` naming the file and line. A built-in family runs unguarded (its cost is planned;
    its own bug keeps its exception)."""
    try:
        path = None if is_builtin("family", family.name) else str(Path(origin("family", family.name)).resolve())
    except KeyError:  # a family object given to the API without registering it
        path = None
    if path is None:
        yield
        return
    seconds = PLUGIN_RUN_SECONDS if run_seconds is None else float(run_seconds)
    what = f"family {family.name!r}: instance {int(index)}"

    def too_long() -> Exception:
        return error(
            f"plug-in {path}: {what}: not generated within the run time limit of {seconds:g} s (a generator "
            "that never returns? the limit: compare --plugin-time-limit, the config's plugin_time_limit)"
        )

    try:
        with hard_limit(seconds), wall_limit(seconds, too_long):
            yield
    except error:
        raise
    except SystemExit as exc:
        raise error(f"plug-in {path}: {what}: called sys.exit({exc.code!r}) while generating") from None
    except MemoryError:
        raise error(f"plug-in {path}: {what}: ran out of memory while generating") from None
    except Exception as exc:
        where = in_plugin(exc, {path: what})
        if where is None:  # not raised in the plug-in's file (e.g. Instance's own checks of what it built)
            raise
        raise error(f"{where}: raised {type(exc).__name__}: {exc}") from exc
