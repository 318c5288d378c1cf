"""The machine core without reference counting: a rule's event loop compiled ``_nrt=False``
reads and writes the :class:`~schedbench.scheduling.machines.Machines` record and runs the
core's inlined functions (arrive, dispatch, advance, the trace growing past its first room) with
the same outcome as the same loop with reference counting on; writing an array field there is
refused."""

from __future__ import annotations

import numpy as np
import pytest
from numba.core.errors import NumbaError

from schedbench.hall.jit import compiled
from schedbench.scheduling import machines as mc
from schedbench.scheduling.model import Instance


@compiled(inline="always")
def _loop(machines):
    """Each arrival to its eligible machine with the least work; every 3rd arrival's job, once
    dispatched, goes to the front of its machine (a preemption: more trace rows than jobs)."""
    for pos in range(machines.n):
        mc.arrive(machines, pos)
        i = mc.least_work(machines, mc.eligible(machines, pos))
        mc.dispatch(machines, pos, i)
        if pos % 3 == 0:
            mc.to_front(machines, pos)
        machines.last_row[i] = machines.last_row[i]  # a scalar write through the record


@compiled
def _counted(machines):
    _loop(machines)


@compiled(_nrt=False)
def _uncounted(machines):
    _loop(machines)


@compiled
def _rule_counted(machines):
    _counted(machines)


@compiled
def _rule_uncounted(machines):
    _uncounted(machines)


@compiled(_nrt=False)
def _swap(machines):
    machines.rem = machines.size


@compiled
def _rule_swapping(machines):
    _swap(machines)


def _instance(seed: int) -> Instance:
    rng = np.random.default_rng(seed)
    n, m = 3000, 5
    release = np.sort(rng.integers(0, 1500, n)).tolist()
    size = rng.integers(1, 9, n).tolist()
    eligible = [sorted(rng.choice(m, 2, replace=False).tolist()) for _ in range(n)]
    return Instance.from_lists(m, release, size, eligible)


@pytest.mark.parametrize("speed", [1.0, 1.25])
def test_a_loop_without_reference_counting_runs_as_with_it(speed):
    inst = _instance(5)
    order = inst.arrival_order()
    a = mc.run(_rule_counted, inst, order, speed)
    b = mc.run(_rule_uncounted, inst, order, speed)
    assert a.trace_int.shape[0] > inst.n + 16  # the trace grew past its first room
    for x, y in zip(
        (a.machine, a.completion, a.trace_int, a.trace_float), (b.machine, b.completion, b.trace_int, b.trace_float)
    ):
        np.testing.assert_array_equal(x, y)


def test_an_array_field_is_not_written_without_reference_counting():
    inst = _instance(1)
    with pytest.raises((NumbaError, TypeError), match="reference counting"):
        mc.run(_rule_swapping, inst, inst.arrival_order(), 1.0)
