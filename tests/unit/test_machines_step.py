"""The machine core as the engine's step path drives it (``machines.StepMachines``): a FIFO
machine's order under appends, moves to the front, full reorders, removals and completions, against
a plain list per machine; the record grows past its first capacity."""

from __future__ import annotations

import numpy as np

from schedbench.scheduling.machines import StepMachines


def test_the_linked_orders_follow_a_list_model_through_random_decisions():
    rng = np.random.default_rng(7)
    m = 3
    core, model = StepMachines(m, 1.0, capacity=4), [[] for _ in range(m)]
    for _ in range(400):
        op = rng.integers(4)
        if op == 0 or core.n < 3:  # a new job on a machine (the record grows from 4 jobs)
            i = int(rng.integers(m))
            j = core.add(int(rng.integers(1, 5)))
            core.dispatch(j, i, 0.0)
            model[i].append(j)
        else:
            i = int(rng.integers(m))
            if not model[i]:
                continue
            j = model[i][int(rng.integers(len(model[i])))]
            assert core.holds(i, j) and not core.holds((i + 1) % m, j)
            if op == 1:
                core.to_front(j)
                model[i].remove(j)
                model[i].insert(0, j)
            elif op == 2:
                core.remove(j, 0.0)
                model[i].remove(j)
                assert not core.holds(i, j)
            else:
                order = [int(x) for x in rng.permutation(model[i])]
                core.set_order(i, order)
                model[i] = order
        for i in range(m):
            assert core.queue(i) == model[i]
            assert core.qlen[i] == len(model[i])
    assert core.n > 4


def test_processing_completes_the_head_first_and_drains_every_machine():
    core = StepMachines(1, 1.0)
    for size in (2, 3, 1):
        core.dispatch(core.add(size), 0, 0.0)
    core.to_front(2)  # order 2, 0, 1
    assert core.next_completion_slot(0) == 1
    core.advance_to(0, 1.5)
    assert core.done(2) and core.queue(0) == [0, 1] and core.rem[0] == 1.5
    core.drain()
    assert not core.busy() and core.completion.tolist()[:3] == [3.0, 6.0, 1.0]
    machine, job, start, end, work = core.trace()
    assert job.tolist() == [2, 0, 1] and start.tolist() == [0.0, 1.0, 3.0] and work.tolist() == [1.0, 2.0, 3.0]


def test_moves_and_removals_after_completions_keep_the_order():
    # a completion leaves the new head's backward link stale: moves and removals must not use it
    core = StepMachines(1, 1.0)
    for size in (1, 1, 1, 1):
        core.dispatch(core.add(size), 0, 0.0)
    core.advance_to(0, 1.0)  # job 0 done; 1 is the head
    assert core.done(0) and not core.holds(0, 0) and core.holds(0, 1)
    core.remove(1, 1.0)
    assert core.queue(0) == [2, 3] and not core.holds(0, 1)
    core.advance_to(0, 2.0)  # job 2 done; 3 is the head
    core.dispatch(core.add(1), 0, 2.0)
    core.to_front(4)
    assert core.queue(0) == [4, 3]
    core.remove(3, 2.0)
    assert core.queue(0) == [4] and core.qlen[0] == 1
    core.drain()
    assert core.completion.tolist()[:5][4] == 3.0 and not core.busy()
