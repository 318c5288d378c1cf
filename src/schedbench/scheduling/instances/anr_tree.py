"""The Azar–Naor–Rom tree against lowest-index greedy, static form (docs/models/rejection-model.md §6.6).

m = 2^K machines. Round r = 1..K pairs the survivors (a, a + 2^(r-1)) for a multiple of 2^r
and releases one unit job restricted to each pair; greedy with lowest-index ties puts it on a,
which survives. An optional final job is restricted to machine 0. All jobs are released at
time 0, round by round. OPT = 1 (each pair's job goes to the non-survivor, the final job to
machine 0), while lowest-index greedy reaches load K (+1 with the final job).
The instance is adversarial only for lowest-index least-loaded rules; it does not use the seed.
Size, exact: 2^K − 1 pair jobs (+1 final), m = 2^K, 2·(2^K − 1) (+1) eligibility entries.
"""

from __future__ import annotations

import numpy as np

from schedbench.scheduling.model import Instance
from schedbench.scheduling.registry import register_family
from schedbench.hall.params import Param
from schedbench.scheduling.instances.base import Family


def _size(p: dict) -> tuple[int, int, int]:
    """Exact: 2^K − 1 pair jobs of two machines each, plus the final job of one machine."""
    m, final = 2 ** p["K"], int(p["final_job"])
    return m - 1 + final, m, 2 * (m - 1) + final


def _generate(rng: np.random.Generator, K: int, final_job: bool) -> Instance:
    m = 2**K
    eligible: list[list[int]] = []
    for r in range(1, K + 1):
        half = 2 ** (r - 1)
        eligible.extend([a, a + half] for a in range(0, m, 2**r))
    if final_job:
        eligible.append([0])
    n = len(eligible)
    return Instance.from_lists(m, [0] * n, [1] * n, eligible)


FAMILY = register_family(
    Family(
        name="anr-tree",
        parameters={
            # K ≤ 22: 2^22 machines and 2^22 − 1 jobs built in Python lists (K = 40 exhausted memory)
            "K": Param(type=int, min=1, max=22, required=True, doc="rounds; m = 2^K machines"),
            "final_job": Param(type=bool, default=True, doc="add the final job restricted to machine 0"),
        },
        generator=_generate,
        sized=lambda p: False,
        size=_size,
        doc=__doc__.split("\n\n")[0],
    )
)
