"""SSF-EDF per machine: a **proxy** of baseline B10 of ``docs/models/rejection-model.md`` §7
(the delay-factor algorithm of Chekuri–Moseley SODA 2009 / Chekuri–Im–Moseley ToC 2012), speed 1+ε.

This is NOT the paper's algorithm: its exact rule was never recovered (docs/models/rejection-model.md §7 "B10", §10.15).
It is the spec's implementable proxy [R], made per machine for restricted assignment:

* dispatch as B7 (:mod:`~schedbench.scheduling.algorithms.edf`): least remaining work among the
  eligible machines, ties to the lowest index;
* each machine runs preemptively by (slack class ⌊log_c S_j⌋ ascending, d_j ascending, r_j,
  id), where S_j = d_j − r_j = T/w_j (w_j the problem's flow weight) and d_j = r_j + S_j —
  smallest slack class first, EDF inside a class;
* nothing is rejected; the engine applies speed 1+ε.

``c`` (default 2, must be > 1) is the geometric ratio of the slack classes; ``oracle`` as for
``edf`` (T = T* or T = 1). For MaxFlowTime every S_j = T, so all jobs share one class and the
rule is EDF = FIFO by release, whatever c and T.
"""

from __future__ import annotations

import math

import numpy as np

from schedbench.hall.params import Param, ParameterError
from schedbench.scheduling.algorithms.base import JobView
from schedbench.scheduling.algorithms.edf import Edf
from schedbench.scheduling.registry import register_algorithm


def slack_class(S: float, c: float) -> int:
    """⌊log_c S⌋, exact at powers of c (1e-9 slack against floating point)."""
    return math.floor(math.log(S) / math.log(c) + 1e-9)


@register_algorithm
class SsfEdf(Edf):
    """B10 proxy: B7 dispatch; per machine, smallest slack class first, EDF inside a class."""

    name = "ssf-edf"
    rule_label = "R"
    parameters = {
        **Edf.parameters,
        "c": Param(2.0, None, "slack classes ⌊log_c S_j⌋, S_j = T/w_j; a number > 1"),
    }
    summary = "least remaining work; per machine smallest slack class, EDF inside"
    bound = "O(1/ε) for the real rule (this is a proxy)"
    cites = "cm"
    section = ""
    reference = (
        "proxy of Chekuri–Moseley SODA 2009 / Chekuri–Im–Moseley ToC 8 (2012) SSF-EDF; "
        "docs/models/rejection-model.md §7 B10 (implementable proxy [R])"
    )

    @classmethod
    def check_params(cls, params):
        cls._positive_number(params, "c")
        if not params["c"] > 1:
            raise ParameterError(f"algorithm {cls.name!r}: parameter 'c' must be a number > 1, got {params['c']!r}")

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.c = float(self.params["c"])

    def order_key(self, job: JobView) -> tuple:
        S = self.slack(job)
        return (slack_class(S, self.c), job.release + S, job.release, job.id)

    def static_keys(self, inst, order):
        S = self.slacks(inst, order)
        values, where = np.unique(S, return_inverse=True)
        classes = np.array([slack_class(float(v), self.c) for v in values], dtype=np.int64)[where]
        release = inst.release[order]
        return (classes, release + S, release)
