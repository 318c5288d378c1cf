"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from schedbench.scheduling.model import Instance

settings.register_profile("ci", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=30, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def brute_force_makespan(inst: Instance) -> int:
    """Optimal restricted-assignment makespan by enumerating every assignment (tiny n only)."""
    best = None
    for choice in itertools.product(*(inst.eligible(j).tolist() for j in range(inst.n))):
        load = np.zeros(inst.m, dtype=np.int64)
        np.add.at(load, np.asarray(choice), inst.size)
        value = int(load.max())
        best = value if best is None else min(best, value)
    return best


@pytest.fixture
def tiny_instance() -> Instance:
    # OPT = 2: job 0 only on machine 0, job 2 only on machine 1, job 1 anywhere.
    return Instance.from_lists(2, [0, 0, 1], [1, 1, 1], [[0], [0, 1], [1]])
