"""Send a pipeline step's output (and any traceback) to its log file."""

from __future__ import annotations

import contextlib
import logging
import sys
import traceback
from pathlib import Path


@contextlib.contextmanager
def logged(path: str, name: str, one_line: tuple[type[BaseException], ...] = ()):
    """Log to ``path``; on an exception, write the traceback there too and re-raise. An exception
    of a ``one_line`` type (a user's error, e.g. a plug-in past its time limit) is written as one
    line ``error: ...`` to the log and to stderr, and the step exits with status 1, no traceback."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    before = (list(root.handlers), root.level)  # restored on the way out: the log file closes then
    with open(path, "w") as fh, contextlib.redirect_stdout(fh), contextlib.redirect_stderr(fh):
        logging.basicConfig(stream=fh, level=logging.INFO, force=True, format="%(asctime)s %(levelname)s %(message)s")
        log = logging.getLogger(name)
        try:
            yield log
        except one_line as exc:
            line = f"error: {name}: " + " ".join(str(exc).split())
            print(line, file=fh, flush=True)
            print(line, file=sys.__stderr__, flush=True)
            raise SystemExit(1) from None
        except BaseException:
            traceback.print_exc(file=fh)
            fh.flush()
            traceback.print_exc(file=sys.__stderr__)
            raise
        finally:  # a later log line in this process must not go to the closed file ("Logging error")
            for handler in root.handlers:
                handler.close()
            root.handlers[:] = before[0]
            root.setLevel(before[1])
