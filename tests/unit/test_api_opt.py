"""``schedbench.run`` treats every problem alike about OPT: without an ``opt`` it solves the
instance (flow problems as load balancing) within small limits the caller can set, and
``res.opt`` holds the value with its status. The optimum is checked against a brute force over
every assignment and every non-idling preemptive schedule of a tiny instance."""

from __future__ import annotations

import itertools
import math

import pytest

import schedbench
from schedbench import api

# m = 2; jobs 0 and 2 are pinned, 1 and 3 may go anywhere; sizes, weights and releases differ so
# that the four flow objectives have different optima
INST = schedbench.Instance.from_lists(
    2, [0, 0, 1, 2], [2, 1, 2, 1], [[0], [0, 1], [1], [0, 1]], w_flow=[1.0, 3.0, 2.0, 1.0], w_reject=[1.0] * 4
)


def _weights(problem: str) -> list[float]:
    if problem == "maxflow":
        return [1.0] * INST.n
    if problem == "stretch":
        return [1.0 / float(p) for p in INST.size]
    return [float(w) for w in INST.w_flow]  # wtdmaxflow, genwtd: OPT rejects nothing, w^f only


def _best_on_one_machine(jobs: list[int], weight: list[float]) -> float:
    """Least max w_j·F_j of ``jobs`` on one machine: every schedule that runs one unit of an
    available unfinished job in each slot (idling while a job waits never helps)."""
    release = [int(INST.release[j]) for j in jobs]
    left0 = tuple(int(INST.size[j]) for j in jobs)

    def go(t: int, left: tuple[int, ...], worst: float) -> float:
        if not any(left):
            return worst
        ready = [k for k, r in enumerate(release) if r <= t and left[k]]
        if not ready:
            return go(min(r for k, r in enumerate(release) if left[k]), left, worst)
        best = math.inf
        for k in ready:
            nxt = list(left)
            nxt[k] -= 1
            done = weight[jobs[k]] * (t + 1 - release[k]) if nxt[k] == 0 else 0.0
            best = min(best, go(t + 1, tuple(nxt), max(worst, done)))
        return best

    return go(0, left0, 0.0) if jobs else 0.0


def brute_force_opt(problem: str) -> float:
    weight = _weights(problem)
    best = math.inf
    for machines in itertools.product(*(list(INST.eligible(j)) for j in range(INST.n))):
        per = [_best_on_one_machine([j for j in range(INST.n) if machines[j] == i], weight) for i in range(2)]
        best = min(best, max(per))
    return best


@pytest.mark.parametrize("problem", ["maxflow", "wtdmaxflow", "genwtd", "stretch"])
def test_run_fills_in_the_proven_opt_of_a_flow_problem(problem):
    res = schedbench.run("random-two-flow", INST, problem=problem)
    assert res.opt is not None and res.opt.status == "optimal"
    assert res.opt.value == pytest.approx(brute_force_opt(problem), rel=1e-12)
    assert res.ratio == res.objective / res.opt.value and res.ratio >= 1 - 1e-12


def test_the_optima_differ_between_the_objectives():
    # the instance tells the objectives apart (so the test above checks each objective's weights)
    assert len({round(brute_force_opt(p), 9) for p in ("maxflow", "wtdmaxflow", "stretch")}) == 3


def test_load_balancing_is_filled_in_alike_and_solve_false_skips_it():
    # greedy does not assume T*: OPT used to be filled in only for algorithms that do
    res = schedbench.run("greedy", INST)
    assert res.opt.status == "optimal" and res.ratio == res.objective / res.opt.value
    assert schedbench.run("random-two-flow", INST, solve=False).opt is None
    # an algorithm that assumes T* solves it all the same
    assert schedbench.run(
        "lb-unit-reject", schedbench.Instance.from_lists(1, [0], [1], [[0]]), eps=0.5, solve=False
    ).opt


def test_the_solve_uses_small_default_limits_the_caller_can_set(monkeypatch):
    seen = []
    real = api.solve_opt

    def spy(inst, problem, **limits):
        seen.append(limits)
        return real(inst, problem, **limits)

    monkeypatch.setattr(api, "solve_opt", spy)
    schedbench.run("random-two-flow", INST)
    schedbench.run("random-two-flow", INST, work_limit=3, time_limit=7)
    assert seen == [
        {"time_limit": api.RUN_TIME_LIMIT, "work_limit": api.RUN_WORK_LIMIT},
        {"time_limit": 7.0, "work_limit": 3.0},
    ]
    assert api.RUN_WORK_LIMIT <= 10 and api.RUN_TIME_LIMIT <= 60
