"""Solver helpers shared by the offline optima and the queueing bounds."""

from __future__ import annotations

import os
import sys

import highspy

__all__ = ["quiet_highs"]


def quiet_highs() -> highspy.Highs:
    """A HiGHS instance with output off, without the banner it prints to fd 1 on creation."""
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
    return h
