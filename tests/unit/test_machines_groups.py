"""The machine core's job groups (``machines.run(..., groups=...)``): each machine's work left
per group, ``group_work``, equals the remaining work of its unfinished jobs of that group after
every arrival, at speed 1 and at a fractional speed, on FIFO and SRPT machines."""

from __future__ import annotations

import numpy as np
import pytest

from schedbench.hall.jit import compiled
from schedbench.scheduling import machines as mc
from schedbench.scheduling.model import Instance


@compiled
def _round_robin_checking_groups(machines, worst):
    """Arrival pos to its first eligible machine when pos is even, else its last; after each
    arrival, ``worst[0]`` the largest gap between ``group_work`` and the unfinished jobs'
    remaining work per (machine, group)."""
    G = machines.group_work.shape[1]
    for pos in range(machines.n):
        t = mc.arrive(machines, pos)
        el = mc.eligible(machines, pos)
        mc.dispatch(machines, pos, el[0] if pos % 2 == 0 else el[el.shape[0] - 1])
        for i in range(machines.m):
            mc.advance(machines, i, t)
        want = np.zeros((machines.m, G))
        for j in range(pos + 1):
            if np.isnan(machines.completion[j]):
                want[machines.machine[j], machines.group[j]] += machines.rem[j]
        worst[0] = max(worst[0], np.abs(want - machines.group_work).max())


@pytest.mark.parametrize("order_rule", [mc.FIFO, mc.SRPT])
@pytest.mark.parametrize("speed", [1.0, 1.25])
def test_group_work_is_the_unfinished_work_of_each_group(order_rule, speed):
    rng = np.random.default_rng(3)
    n, m = 200, 4
    release = np.sort(rng.integers(0, 80, n)).tolist()
    size = rng.integers(1, 9, n).tolist()
    eligible = [sorted(rng.choice(m, 2, replace=False).tolist()) for _ in range(n)]
    inst = Instance.from_lists(m, release, size, eligible)
    groups = rng.integers(0, 5, n)
    worst = np.zeros(1)
    run = mc.run(_round_robin_checking_groups, inst, np.arange(n), speed, worst, order_rule=order_rule, groups=groups)
    assert worst[0] <= 1e-9 * 8 * n
    assert np.isfinite(run.completion).all()
    if speed == 1.0:  # integer work: the loads are exact
        assert worst[0] == 0.0


def test_groups_are_one_per_job():
    inst = Instance.from_lists(1, [0, 0], [1, 1], [[0], [0]])
    with pytest.raises(ValueError, match="one group per job"):
        mc.run(_round_robin_checking_groups, inst, np.arange(2), 1.0, np.zeros(1), groups=np.zeros(3, np.int64))
