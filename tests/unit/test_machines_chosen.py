"""The machine core's CHOSEN machines (``machines.choose``): a machine runs the job its rule
names, alone, until it completes, then idles until the rule chooses again; a late rejection of
that job idles it too; an untraced record (``machines.record(..., traced=False)``) processes the
same without a trace. Checked against a hand-worked schedule and against FIFO machines."""

from __future__ import annotations

import numpy as np
import pytest

from schedbench.hall.jit import compiled
from schedbench.scheduling import machines as mc
from schedbench.scheduling.model import Instance


@compiled
def _preempt_then_resume(machines, seen):
    """One machine: job 0 from 0; job 1 at 1 preempts it; at 3 (job 1 done) job 0 resumes.
    ``seen``: job 0's remaining work at 4 if nothing is chosen at 3 (the machine idles)."""
    mc.dispatch(machines, 0, 0)
    mc.choose(machines, 0, 0)
    mc.advance(machines, 0, 1.0)
    mc.dispatch(machines, 1, 0)
    mc.choose(machines, 0, 1)
    mc.advance(machines, 0, 4.0)  # job 1 completes at 3; nothing chosen: idle until 4
    seen[0] = machines.rem[0]
    seen[1] = machines.t_last[0]
    mc.choose(machines, 0, 0)
    mc.advance(machines, 0, 10.0)


def test_a_chosen_job_runs_alone_and_the_machine_idles_after_it_completes():
    inst = Instance.from_lists(1, [0, 1], [3, 2], [[0], [0]])
    seen = np.zeros(2)
    run = mc.run(_preempt_then_resume, inst, np.arange(2), 1.0, seen, order_rule=mc.CHOSEN)
    assert seen.tolist() == [2.0, 4.0]  # idle from 3 to 4: job 0 kept its 2 units
    assert run.completion.tolist() == [6.0, 3.0]
    rows = np.column_stack([run.trace_int, run.trace_float]).tolist()
    assert rows == [[0, 0, 0.0, 1.0, 1.0], [0, 1, 1.0, 3.0, 2.0], [0, 0, 4.0, 6.0, 2.0]]


@compiled
def _reject_the_running_job(machines):
    mc.dispatch(machines, 0, 0)
    mc.dispatch(machines, 1, 0)
    mc.choose(machines, 0, 0)
    mc.advance(machines, 0, 2.0)
    mc.remove(machines, 0)  # a late rejection of the job running: the machine idles
    mc.advance(machines, 0, 3.0)
    mc.choose(machines, 0, 1)
    mc.advance(machines, 0, 9.0)


def test_a_late_rejection_of_the_chosen_job_idles_its_machine():
    inst = Instance.from_lists(1, [0, 0], [5, 1], [[0], [0]])
    run = mc.run(_reject_the_running_job, inst, np.arange(2), 1.0, order_rule=mc.CHOSEN)
    assert np.isnan(run.completion[0]) and run.completion[1] == 4.0
    rows = np.column_stack([run.trace_int, run.trace_float]).tolist()
    assert rows == [[0, 0, 0.0, 2.0, 2.0], [0, 1, 3.0, 4.0, 1.0]]


@compiled
def _first_come_first_served(machines):
    """Least-work dispatch; each machine runs its earliest unfinished job (chosen at every
    arrival and every completion, which the rule finds by bringing machines up to each instant
    in small steps: the same schedule FIFO machines give)."""
    n = machines.n
    for pos in range(n):
        t = mc.arrive(machines, pos)
        i = mc.least_work(machines, mc.eligible(machines, pos))
        mc.dispatch(machines, pos, i)
        _choose_earliest(machines, i, pos + 1)
        if pos + 1 < n and machines.release[pos + 1] > t:  # run to the next release, choosing at completions
            _run_until(machines, float(machines.release[pos + 1]), pos + 1)
    _run_until(machines, np.inf, n)


@compiled
def _choose_earliest(machines, i, upto):
    for j in range(upto):
        if machines.machine[j] == i and np.isnan(machines.completion[j]):
            mc.choose(machines, i, j)
            return
    mc.choose(machines, i, -1)


@compiled
def _run_until(machines, t, upto):
    for i in range(machines.m):
        while machines.run_job[i] >= 0:
            j = machines.run_job[i]
            mc.advance(machines, i, min(t, machines.t_last[i] + machines.rem[j] / machines.speed))
            if machines.run_job[i] >= 0:  # still running at t
                break
            _choose_earliest(machines, i, upto)  # completed (at most at t): the next job


@compiled
def _fifo_least_work(machines):
    for pos in range(machines.n):
        mc.arrive(machines, pos)
        mc.dispatch(machines, pos, mc.least_work(machines, mc.eligible(machines, pos)))


@compiled
def _state(machines):
    return machines.machine, machines.completion, machines.run_job, machines.rows


@pytest.mark.parametrize("speed", [1.0, 1.25])
@pytest.mark.parametrize("traced", [True, False])
def test_chosen_machines_choosing_the_earliest_job_are_fifo_machines(speed, traced):
    rng = np.random.default_rng(11)
    n, m = 300, 5
    release = np.sort(rng.integers(0, 120, n)).tolist()
    size = rng.integers(1, 9, n).tolist()
    eligible = [sorted(rng.choice(m, 2, replace=False).tolist()) for _ in range(n)]
    inst = Instance.from_lists(m, release, size, eligible)
    fifo = mc.run(_fifo_least_work, inst, np.arange(n), speed)
    chosen = mc.record(inst, np.arange(n), speed, mc.CHOSEN, traced=traced)
    _first_come_first_served(chosen)
    machine, completion, run_job, rows = _state(chosen)
    assert (run_job < 0).all()  # every machine idle at the end
    np.testing.assert_array_equal(machine, fifo.machine)
    np.testing.assert_allclose(completion, fifo.completion, rtol=1e-12)
    assert np.isfinite(fifo.completion).all()
    assert rows == (fifo.trace_int.shape[0] if traced else 0)


def test_an_order_rule_outside_the_four_is_refused():
    inst = Instance.from_lists(1, [0], [1], [[0]])
    with pytest.raises(ValueError, match="order_rule: FIFO, BY_KEY, SRPT or CHOSEN"):
        mc.record(inst, np.arange(1), 1.0, 7)
