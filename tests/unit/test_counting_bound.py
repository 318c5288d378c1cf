"""The counting (volume) lower bound of the flow problems (offline/maxflow.py): equal to a brute
force over every weight class, eligible set and release window on small instances, never above
a proven OPT (hypothesis), its witness re-derivable by hand, and recorded in the runs table with
the gap of every bounded OPT."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedbench.scheduling.model import Instance
from schedbench.scheduling.offline import opt_max_flow
from schedbench.scheduling.offline.maxflow import _Deadlines, _lower_bound, counting_witness
from tests.strategies import instances

OBJECTIVES = ("flow", "weighted", "stretch")


def _brute(inst: Instance, objective: str) -> float:
    """max over θ among the weights (all jobs for 'flow'), over the machine set of every eligible
    set that occurs (and all m machines), over release windows [a, b] of
    θ·⌈(V − |S|·(b − a))/|S|⌉, V the work of the jobs with w ≥ θ whose set is that set
    (all jobs for all m machines) released in [a, b]; and max_j w_j·p_j."""
    w = {"flow": np.ones(inst.n), "weighted": inst.w_flow, "stretch": 1.0 / inst.size}[objective]
    best = float(np.max(w * inst.size))
    sets = [tuple(inst.eligible(j).tolist()) for j in range(inst.n)]
    groups = [(None, inst.m)] + [(s, len(s)) for s in sorted(set(sets))]
    thetas = [1.0] if objective == "flow" else sorted(set(w.tolist()))
    times = sorted(set(inst.release.tolist()))
    for theta in thetas:
        for group, cap in groups:
            for a in times:
                for b in times:
                    if b < a:
                        continue
                    V = sum(
                        int(inst.size[j])
                        for j in range(inst.n)
                        if w[j] >= theta and a <= inst.release[j] <= b and (group is None or sets[j] == group)
                    )
                    if V:
                        best = max(best, theta * math.ceil((V - cap * (b - a)) / cap))
    return best


def _weighted(inst: Instance, weights) -> Instance:
    return Instance(
        inst.m, inst.release, inst.size, inst.indptr, inst.indices, np.asarray(weights, float), inst.w_reject
    )


@settings(max_examples=60, deadline=None)
@given(
    inst=instances(max_m=3, max_n=7, unit=False),
    objective=st.sampled_from(OBJECTIVES),
    ws=st.lists(st.sampled_from([1.0, 2.0, 3.0]), min_size=7, max_size=7),
)
def test_the_counting_bound_is_the_brute_force_and_never_above_a_proven_opt(inst, objective, ws):
    if objective == "weighted":
        inst = _weighted(inst, ws[: inst.n])
    lb = _lower_bound(inst, _Deadlines(inst, objective))
    assert lb == pytest.approx(_brute(inst, objective), rel=1e-12)
    opt = opt_max_flow(inst, objective, time_limit=60.0, work_limit=None)
    assert opt.status == "optimal" and opt.value >= lb - 1e-9 * max(1.0, lb)


def test_the_witness_is_re_derivable_from_its_numbers():
    # two machines; the jobs of size <= 2 are confined to machine 0 and arrive together
    inst = Instance.from_lists(2, [0, 0, 0, 0, 5], [2, 2, 1, 2, 8], [[0], [0], [0], [0], [0, 1]])
    value, text = counting_witness(inst, "stretch")
    got = re.search(
        r"work (\d+): their max flow ≥ ⌈\((\d+) − (\d+)·(\d+)\)/(\d+)⌉ = (\d+), so T ≥ (\d+)/([\d.]+)", text
    )
    assert got, text
    work, work2, cap, span, cap2, bound, bound2, size = got.groups()
    assert work == work2 and cap == cap2 == "1" and bound == bound2
    assert int(bound) == math.ceil((int(work) - int(cap) * int(span)) / int(cap))
    assert value == pytest.approx(int(bound) / float(size))
    assert "machines {0}" in text and "the jobs of size ≤ 2" in text
    assert value == pytest.approx(_lower_bound(inst, _Deadlines(inst, "stretch")))
    assert value <= opt_max_flow(inst, "stretch", time_limit=60.0).value + 1e-9


def test_a_bounded_opt_carries_its_witness_and_gap_into_the_runs_table():
    import pandas as pd

    from schedbench.scheduling.offline.maxflow import with_witness
    from schedbench.scheduling.offline.result import OptResult
    from schedbench.scheduling.stage.results import join_opt

    inst = Instance.from_lists(2, [0, 0, 0, 0, 5], [2, 2, 1, 2, 8], [[0], [0], [0], [0], [0, 1]])
    res = with_witness(OptResult(10.0, "bound", 3.5, "lazy-cpsat (stopped)", 1.0), inst, "stretch")
    assert res.witness.startswith("counting:") and res.gap == pytest.approx(0.65)
    stronger = with_witness(OptResult(10.0, "timeout", 9.0, "lazy-cpsat (stopped)", 1.0), inst, "stretch")
    assert stronger.witness.startswith("stronger than counting:") and "(lazy-cpsat (stopped))" in stronger.witness
    assert stronger.witness.endswith("exclude every value below 9")
    assert with_witness(OptResult(4.0, "optimal", 4.0, "x", 1.0), inst, "stretch").witness == ""
    runs = pd.DataFrame({"instance": ["a", "b"], "objective": [12.0, 5.0]})
    opts = pd.DataFrame(
        [
            {"instance": "a", **{k: v for k, v in res.as_dict().items() if k != "witness"}, "opt_witness": res.witness},
            {
                "instance": "b",
                "value": 5.0,
                "status": "optimal",
                "lower_bound": 5.0,
                "solver": "x",
                "seconds": 0.1,
                "opt_witness": "",
            },
        ]
    ).rename(
        columns={
            "value": "opt",
            "status": "opt_status",
            "lower_bound": "opt_lower_bound",
            "solver": "opt_solver",
            "seconds": "opt_seconds",
        }
    )
    opts["opt_is_trivial"] = False
    out = join_opt(runs, opts)
    assert out["opt_gap"].tolist() == pytest.approx([0.65, 0.0])
    assert out["opt_witness"].iloc[0] == res.witness and out["opt_witness"].iloc[1] == ""
    assert out["ratio"].tolist() == pytest.approx([12.0 / 3.5, 1.0])
