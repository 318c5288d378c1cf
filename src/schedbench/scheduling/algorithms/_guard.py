"""The budget guard of the compiled immediate-reject kernels (``greedy-cap``, ``lb-unit-reject``,
``lb-general-reject``; the parameter :data:`~schedbench.scheduling.algorithms.base.GUARD`): a
rejection the rule wants goes ahead unless the guard is on and the budget does not allow it,
in which case the job is kept and the refusal counted as a guard fire."""

from __future__ import annotations

from schedbench.hall.jit import compiled
from schedbench.scheduling.budget import allows_nb


@compiled(inline="always")
def guarded_reject(guard, rejected, fires, pos, eps):
    """The guard's decision on one rejection at arrival position ``pos`` (``pos + 1`` arrivals,
    ``rejected`` rejections so far, budget weight 1 each): (whether it goes ahead, rejected,
    guard fires) — the count that grows is the one of the outcome."""
    if not guard or allows_nb(rejected, 1, pos + 1, eps):
        return True, rejected + 1, fires
    return False, rejected, fires + 1
