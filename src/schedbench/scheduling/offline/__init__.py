"""Offline optima and lower bounds: the denominators of every competitive ratio.

:func:`solve_opt` picks the solver from the problem's objective and flow weight (the problem
table), so no caller branches on a problem's name: max load → :func:`opt_makespan` (§8.1);
every max (weighted) flow time problem → :func:`opt_max_flow` (§8.2, §8.3), with the objective
that its flow weight names (``FLOW_OBJECTIVE``: 1 → "flow", w_flow → "weighted", 1/p_j →
"stretch"). :func:`flow_lower_bound` stays as the trivial bound max_j w_j·p_j.
"""

from schedbench.scheduling.offline.flow_bound import flow_lower_bound
from schedbench.scheduling.offline.makespan import makespan_lower_bound, opt_makespan, trivial_bound
from schedbench.scheduling.offline.maxflow import FLOW_OBJECTIVE, max_flow_lower_bound, opt_max_flow
from schedbench.scheduling.offline.result import OptResult
from schedbench.hall.params import Param, ParameterError, check_value
from schedbench.hall.effort import DEFAULT_TIME_LIMIT, DEFAULT_WORK_LIMIT
from schedbench.scheduling.model import Instance
from schedbench.scheduling.problems import get_problem

__all__ = [
    "OptResult",
    "opt_makespan",
    "makespan_lower_bound",
    "trivial_bound",
    "flow_lower_bound",
    "opt_max_flow",
    "max_flow_lower_bound",
    "solve_opt",
    "is_trivial",
]


def solve_opt(
    inst: Instance,
    problem: str,
    time_limit: float = DEFAULT_TIME_LIMIT,
    seed: int = 0,
    work_limit: float | None = DEFAULT_WORK_LIMIT,
) -> OptResult:
    """OPT (or a bound, see ``status``) of ``inst`` for ``problem``. ``work_limit`` is the
    deterministic limit (units of :class:`schedbench.hall.effort.Effort`; ``None`` for none):
    the same instance, seed and limit give the same result on any machine; ``time_limit``
    (seconds) is a wall-clock safety net, and a result it stopped has ``status="timeout"``
    (docs/offline-optimum.md). Arguments are checked first (an Instance, a known problem, a
    finite time limit > 0, a finite work limit > 0 or None, a seed >= 0), each error naming its
    argument."""
    if not isinstance(inst, Instance):
        raise ParameterError(f"solve_opt: inst must be a schedbench Instance, got {type(inst).__name__}")
    time_limit = check_value(
        "solve_opt", "time_limit", Param(type=float, min=0, min_open=True, nullable=False), time_limit, ParameterError
    )
    work_limit = check_value(
        "solve_opt", "work_limit", Param(type=float, min=0, min_open=True, nullable=True), work_limit, ParameterError
    )
    seed = check_value("solve_opt", "seed", Param(type=int, min=0, nullable=False), seed, ParameterError)
    prob = get_problem(problem)
    if prob.objective == "max_load":
        return opt_makespan(inst, time_limit=time_limit, seed=seed, work_limit=work_limit)
    return opt_max_flow(
        inst, objective=FLOW_OBJECTIVE[prob.flow_weight], time_limit=time_limit, seed=seed, work_limit=work_limit
    )


def is_trivial(inst: Instance, problem: str, res: OptResult) -> bool:
    """Whether a proven OPT equals its trivial bound (such instances do not test OPT)."""
    if get_problem(problem).objective != "max_load":
        return False
    return res.status == "optimal" and res.value == trivial_bound(inst)
