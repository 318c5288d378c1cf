"""Send a pipeline step's output (and any traceback) to its log file."""

from __future__ import annotations

import contextlib
import logging
import sys
import traceback
from pathlib import Path


@contextlib.contextmanager
def logged(path: str, name: str):
    """Log to ``path``; on an exception, write the traceback there too and re-raise."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh, contextlib.redirect_stdout(fh), contextlib.redirect_stderr(fh):
        logging.basicConfig(stream=fh, level=logging.INFO, force=True, format="%(asctime)s %(levelname)s %(message)s")
        log = logging.getLogger(name)
        try:
            yield log
        except BaseException:
            traceback.print_exc(file=fh)
            fh.flush()
            traceback.print_exc(file=sys.__stderr__)
            raise
