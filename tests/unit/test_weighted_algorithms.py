"""Weighted max-flow algorithms with rejection (``docs/models/rejection-model.md`` §4–§5,
§6.5, §7 B5): wmft-A, wmft-B, gwmft, class-ll-srpt.

* hand-checked event logs on tiny instances;
* the event-driven implementations against a per-slot reference written from the spec's
  pseudo-code (every machine re-decided in every slot);
* wmft-B / gwmft: every completed job has F_j < c·T/w_j + 1 (w_j F_j < c·T + w_j), T = exact OPT;
* wmft-A: the weighted budget at every prefix when T ≥ OPT (brute-force recount);
* the Section-4 example (§6.5);
* parameter errors name the parameter.
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedbench.scheduling.algorithms._classes import job_class, pow2_at_least, size_class, weight_class
from schedbench.scheduling.algorithms.base import ParameterError
from schedbench.scheduling.model import REJECT, Instance
from schedbench.scheduling.offline import solve_opt
from schedbench.scheduling.play import execute
from schedbench.scheduling.problems import get_problem
from schedbench.scheduling.registry import get_algorithm

A, B, G, S = (get_algorithm(n) for n in ("wmft-A", "wmft-B", "gwmft", "class-ll-srpt"))
C_EXP = {"1/eps": 1, "1/eps2": 2, "1/eps4": 4, "1/eps6": 6}


# ----------------------------------------------------------------------------- per-slot reference
def reference(
    inst: Instance,
    problem: str,
    eps: float,
    T: float | None,
    rule: str,
    alpha=None,
    D=None,
    c="1/eps4",
    density="flow",
    hopeless=False,
):
    """Spec §4.2/§4.3/§5/§7 B5 slot by slot. ``rule``: "A", "srpt" or "B". T None: prefix-lb.
    Returns (machine, reject_slot, completion) per job (instance order; −1 / nan when none)."""
    prob = get_problem(problem)
    n, m = inst.n, inst.m
    alpha = 1 / eps if alpha is None else alpha
    D = 1 / eps if D is None else D
    cval = eps ** -C_EXP[c] if isinstance(c, str) else c
    prefix = T is None
    lb = 0.0
    order = inst.arrival_order().tolist()
    machine = [-1] * n
    reject_slot = [-1] * n
    completion = [math.nan] * n
    cls, wf, tie = {}, {}, {}
    aq = [dict() for _ in range(m)]  # A: class -> FIFO list
    arem = {}
    balive = [[] for _ in range(m)]  # B (or the algorithm itself for A / srpt)
    brem = {}
    last = [-1] * m  # the job B ran in the previous slot
    pos, t = 0, 0

    def dens(j):
        a, b, e = cls[j]
        return 2.0 ** ((e if density == "reject" else b) - a)

    def timeout(j):  # first slot s with s − r ≥ c·T/w
        x = cval * T / wf[j]
        return int(inst.release[j]) + max(0, math.ceil(x - 1e-9 * max(1.0, x)))

    while pos < n or any(aq[i] for i in range(m)) or any(balive):
        while pos < n and inst.release[order[pos]] == t:
            j = order[pos]
            pos += 1
            p = int(inst.size[j])
            wf[j] = prob.flow_weight_of(p, float(inst.w_flow[j]))
            if prefix:
                lb = max(lb, wf[j] * p)
                T = 2.0 ** math.ceil(math.log2(lb) - 1e-12) if lb > 0 else 1.0
            c_j = cls[j] = job_class(p, wf[j], prob.budget_weight_of(float(inst.w_flow[j]), float(inst.w_reject[j])))
            loads = [sum(arem[k] for k in aq[i].get(c_j, [])) for i in inst.eligible(j).tolist()]
            k = int(np.argmin(loads))
            i = int(inst.eligible(j)[k])
            if loads[k] + p > alpha * T / 2.0 ** c_j[1]:
                reject_slot[j] = t
                continue
            machine[j] = i
            aq[i].setdefault(c_j, []).append(j)
            arem[j] = brem[j] = p
            balive[i].append(j)
            tie[j] = inst.release[j] + cval * T / wf[j]
        if rule == "B":
            for i in range(m):
                for j in list(balive[i]):
                    if t >= timeout(j):
                        balive[i].remove(j)
                        reject_slot[j] = t
        for i in range(m):
            # A's pick (also the schedule itself for rule A)
            ja = -1
            if rule == "srpt":
                if balive[i]:
                    ja = min(balive[i], key=lambda k: (brem[k], inst.release[k], k))
            elif aq[i]:
                best = max(
                    aq[i],
                    key=lambda cc: (sum(arem[k] for k in aq[i][cc]) * 2.0 ** (cc[1] - cc[0]), cc[1], -cc[0], cc[2]),
                )
                ja = aq[i][best][0]
            if rule in ("A", "srpt"):
                pick = ja
            else:
                alive = balive[i]
                top = max(alive, key=lambda k: (dens(k), -tie[k], -k)) if alive else -1
                if ja >= 0 and top >= 0 and dens(top) < D * dens(ja) * (1 - 1e-12) and ja in alive:
                    pick = ja
                else:
                    pick = top
                cur = last[i]
                if (
                    hopeless
                    and cur >= 0
                    and cur in alive
                    and pick != cur
                    and pick >= 0
                    and brem[cur] < inst.size[cur]
                    and t + brem[pick] > timeout(pick)
                ):
                    pick = cur
            # process one unit
            if rule == "B" and ja >= 0:
                arem[ja] -= 1
                if arem[ja] == 0:
                    cc = cls[ja]
                    aq[i][cc].pop(0)
                    if not aq[i][cc]:
                        del aq[i][cc]
            last[i] = pick
            if pick >= 0:
                brem[pick] -= 1
                if rule != "B":
                    arem[pick] -= 1
                if brem[pick] == 0:
                    completion[pick] = t + 1
                    balive[i].remove(pick)
                    if rule == "A":
                        cc = cls[pick]
                        aq[i][cc].pop(0)
                        if not aq[i][cc]:
                            del aq[i][cc]
                    if rule == "srpt":
                        del arem[pick]
        if rule == "srpt":  # the class queues of srpt are its own alive jobs
            for i in range(m):
                aq[i] = {}
                for k in balive[i]:
                    aq[i].setdefault(cls[k], []).append(k)
        t += 1
        if t > 100_000:
            raise RuntimeError("reference did not finish")
    return machine, reject_slot, completion


def same(res, ref):
    """The engine's outcome equals the reference's (machines, rejection slots, completions)."""
    rmach, rrej, rcomp = ref
    out = res.outcome
    rej = [int(out.step_time[s]) if s >= 0 else -1 for s in out.reject_step.tolist()]
    assert rej == rrej
    assert out.machine.tolist() == [mm if mm >= 0 else REJECT for mm in rmach]
    np.testing.assert_array_equal(out.completion, np.asarray(rcomp, dtype=float))


# ----------------------------------------------------------------------------- instances
@st.composite
def weighted_instances(draw, max_m=3, max_n=10, max_release=6, max_size=6, weights=(0.5, 1, 1.5, 2, 3, 4, 8)):
    m = draw(st.integers(1, max_m))
    n = draw(st.integers(1, max_n))
    release = sorted(draw(st.lists(st.integers(0, max_release), min_size=n, max_size=n)))
    size = draw(st.lists(st.integers(1, max_size), min_size=n, max_size=n))
    elig = [sorted(draw(st.sets(st.integers(0, m - 1), min_size=1, max_size=m))) for _ in range(n)]
    wf = draw(st.lists(st.sampled_from(weights), min_size=n, max_size=n))
    wr = draw(st.lists(st.sampled_from(weights), min_size=n, max_size=n))
    return Instance.from_lists(m, release, size, elig, w_flow=wf, w_reject=wr)


def run(cls, inst, eps, T, problem=None, **params):
    oracle = None if params.get("oracle") == "prefix-lb" else T
    return execute(cls, inst, eps=eps, params=params, oracle=oracle, problem=problem)


# ----------------------------------------------------------------------------- classes
def test_class_rounding_is_exact():
    assert [size_class(p) for p in (1, 2, 3, 4, 5, 8, 9)] == [0, 1, 2, 2, 3, 3, 4]
    assert [weight_class(w) for w in (1, 1.5, 2, 3, 4, 0.5, 0.3, 1 / 3, 0.25)] == [0, 0, 1, 1, 2, -1, -2, -2, -2]
    assert [pow2_at_least(x) for x in (1, 1.5, 2, 3, 0.3, 0.25)] == [1, 2, 2, 4, 0.5, 0.25]
    assert job_class(3, 1 / 3, 1.0) == (2, -2, 0)  # stretch: b = −a


# ----------------------------------------------------------------------------- hand-checked logs
def test_wmft_a_event_log_by_hand():
    # one machine, eps = 1/2 (α = 2), T = 4, all at slot 0, in this order:
    #   j0: p 1, w 1 -> class (0, 0), limit 2·4/1 = 8, load 0 -> queued
    #   j1: p 2, w 1 -> class (1, 0), limit 8 -> queued
    #   j2: p 2, w 1 -> class (1, 0), load 2 + 2 = 4 <= 8 -> queued
    #   j3: p 4, w 2 -> class (2, 1), limit 2·4/2 = 4, 0 + 4 <= 4 -> queued
    #   j4: p 1, w 2 -> class (0, 1), limit 4 -> queued;  j5: p 4, w 2, class (2, 1): 4 + 4 > 4 -> rejected
    # priorities load·2^b/2^a at slot 0: (0,0): 1; (1,0): 4/2 = 2; (2,1): 4·2/4 = 2; (0,1): 1·2 = 2
    #   tie at 2 between (1,0), (2,1), (0,1): larger b first -> (2,1) vs (0,1): smaller a -> (0,1): j4 [0,1)
    # slot 1: (1,0): 2, (2,1): 2 -> larger b: (2,1) j3 runs; its priority falls by 2/4 per slot:
    #   slot 2: (2,1) = 3·2/4 = 1.5 < 2 -> (1,0) j1 [2,4) (slot 3: (1,0) = 1 vs (2,1) 1.5 -> j3!)
    #   slot 3: (1,0) load 3 -> 1.5, tie with (2,1) 1.5 -> larger b: j3 [3,4)
    #   slot 4: (1,0) 1.5 vs (2,1) 2·2/4 = 1 -> j1 [4,5) completes at 5
    #   slot 5: (1,0) 2/2 = 1 (j2), (2,1) 1, (0,0) 1: larger b -> j3 [5,6); slot 6: (2,1) 0.5 -> (1,0) vs (0,0)
    #   both 1, same b, smaller a -> (0,0) j0 [6,7) C=7; slot 7: (1,0) 1 vs (2,1) .5 -> j2 [7,8);
    #   slot 8: (1,0) .5 vs (2,1) .5 -> larger b: j3 [8,9) C=9; slot 9: j2 [9,10) C=10
    inst = Instance.from_lists(1, [0] * 6, [1, 2, 2, 4, 1, 4], [[0]] * 6, w_flow=[1, 1, 1, 2, 2, 2])
    res = run(A, inst, 0.5, 4.0)
    assert res.outcome.machine.tolist() == [0, 0, 0, 0, 0, REJECT]
    np.testing.assert_array_equal(res.outcome.completion, [7, 5, 10, 9, 1, math.nan])
    tr = res.outcome
    runs = [(int(j), float(s), float(e)) for j, s, e in zip(tr.trace_job, tr.trace_start, tr.trace_end)]
    assert runs == [
        (4, 0, 1),
        (3, 1, 2),
        (1, 2, 3),
        (3, 3, 4),
        (1, 4, 5),
        (3, 5, 6),
        (0, 6, 7),
        (2, 7, 8),
        (3, 8, 9),
        (2, 9, 10),
    ]
    assert res.validation.status == "ok"
    # rejected weight 2 of 9 arrived <= 1/2
    assert res.counters["a_rejections"] == 1


def test_wmft_a_dispatch_by_own_class_load():
    # two machines; j0 (p 2) -> m0; j1 (p 1, another class) -> m0 (its class is empty everywhere: tie -> m0);
    # j2 (p 2) -> m1 (own class: m0 has 2, m1 has 0) although m0's own... total load is irrelevant
    inst = Instance.from_lists(2, [0, 0, 0, 0], [2, 1, 2, 2], [[0, 1]] * 4)
    res = run(A, inst, 0.25, 2.0)
    assert res.outcome.machine.tolist()[:3] == [0, 0, 1]
    # j3 (p 2) at slot 0: loads m0 2, m1 2 -> tie -> m0
    assert res.outcome.machine.tolist()[3] == 0


def test_wmft_b_event_log_by_hand():
    # one machine, eps = 1/2: α = 2, D = 2, c = 1/eps = 2, T = 4 (limits 2·4/2^b, timeouts r + 8/w).
    #   j0, j1: p 4, w 1, r 0: class (2, 0) (density 1/4), load 8 <= 8; j2: p 1, w 1, r 1: class (0, 0) (density 1)
    # A: slot 0 (2,0) prio 8/4 = 2 -> j0; slot 1 (2,0) 7/4 > (0,0) 1 -> j0; ... slot 4: (2,0) 4/4 = 1 ties
    #    (0,0) 1 -> smaller a: j2 [4,5); then j1 [5,9). A completes j0 at 4.
    # B: slot 0 j0; slot 1 j2 is 4x denser than A's j0 (>= D = 2) -> j2 [1,2), C = 2; slots 2, 3 j0 (= A's);
    #    slot 4: A's j2 is done in B -> densest alive, j0/j1 tie on density and on r + cT/w = 8 -> id: j0,
    #    C = 5; slot 5.. j1 (= A's); timeout of j1 at slot 8 (8 − 0 >= 2·4/1): rejected after 3 units.
    inst = Instance.from_lists(1, [0, 0, 1], [4, 4, 1], [[0]] * 3)
    res = run(B, inst, 0.5, 4.0, c="1/eps")
    out = res.outcome
    assert out.machine.tolist() == [0, 0, 0]
    np.testing.assert_array_equal(out.completion, [5, math.nan, 2])
    assert out.step_time[out.reject_step[1]] == 8 and out.reject_step[[0, 2]].tolist() == [-1, -1]
    runs = [(int(j), float(s), float(e)) for j, s, e in zip(out.trace_job, out.trace_start, out.trace_end)]
    assert runs == [(0, 0, 1), (2, 1, 2), (0, 2, 5), (1, 5, 8)]
    assert res.validation.status == "ok" and res.validation.wasted_work == 3  # 1 of 3 jobs <= 1/2
    assert res.validation.objective == 5 and res.counters == {"a_rejections": 0, "timeouts": 1}
    same(res, reference(inst, "wtdmaxflow", 0.5, 4.0, "B", c="1/eps"))
    # "much higher density" is dens >= D·dens(j_A): D = 4 still preempts j0 for j2 (exactly 4x), D = 4.5 not
    # (then B follows A: j0 [0,4), j2 [4,5), j1 [5,8) timed out at 8)
    res = run(B, inst, 0.5, 4.0, c="1/eps", D=4)
    np.testing.assert_array_equal(res.outcome.completion, [5, math.nan, 2])
    res = run(B, inst, 0.5, 4.0, c="1/eps", D=4.5)
    np.testing.assert_array_equal(res.outcome.completion, [4, math.nan, 5])


# ----------------------------------------------------------------------------- event-driven == per-slot
@settings(max_examples=150, deadline=None)
@given(
    inst=weighted_instances(),
    eps=st.sampled_from([0.5, 0.3, 0.2]),
    T=st.sampled_from([1.0, 2.0, 3.0, 6.0, None]),
    problem=st.sampled_from(["wtdmaxflow", "maxflow"]),
    alpha=st.sampled_from([None, 1.0, 0.7]),
)
def test_a_and_class_ll_srpt_equal_the_per_slot_reference(inst, eps, T, problem, alpha):
    params = {"alpha": alpha, "oracle": "prefix-lb" if T is None else "opt"}
    for cls, rule in ((A, "A"), (S, "srpt")):
        res = run(cls, inst, eps, T, problem=problem, **params)
        assert res.validation.status != "invalid", res.validation.errors
        same(res, reference(inst, problem, eps, T, rule, alpha=alpha))


@settings(max_examples=150, deadline=None)
@given(
    inst=weighted_instances(),
    eps=st.sampled_from([0.5, 0.3, 0.2]),
    T=st.sampled_from([1.0, 2.0, 3.0, 6.0, None]),
    problem=st.sampled_from(["wtdmaxflow", "maxflow"]),
    c=st.sampled_from(["1/eps", "1/eps2", 0.7, 1.5]),
    D=st.sampled_from([None, 1.0, 3.0]),
)
def test_b_equals_the_per_slot_reference(inst, eps, T, problem, c, D):
    res = run(B, inst, eps, T, problem=problem, c=c, D=D, oracle="prefix-lb" if T is None else "opt")
    assert res.validation.status != "invalid", res.validation.errors
    same(res, reference(inst, problem, eps, T, "B", c=c, D=D))


@settings(max_examples=150, deadline=None)
@given(
    inst=weighted_instances(),
    eps=st.sampled_from([0.5, 0.3]),
    T=st.sampled_from([0.5, 1.0, 2.0, 5.0, None]),
    problem=st.sampled_from(["genwtd", "stretch"]),
    c=st.sampled_from(["1/eps", 0.5, 1.5, 4.0]),
    density=st.sampled_from(["flow", "reject"]),
    hopeless=st.booleans(),
)
def test_gwmft_equals_the_per_slot_reference(inst, eps, T, problem, c, density, hopeless):
    res = run(
        G,
        inst,
        eps,
        T,
        problem=problem,
        c=c,
        density=density,
        no_hopeless_preemption=hopeless,
        oracle="prefix-lb" if T is None else "opt",
    )
    assert res.validation.status != "invalid", res.validation.errors
    same(res, reference(inst, problem, eps, T, "B", c=c, density=density, hopeless=hopeless))


@pytest.mark.parametrize("seed", range(4))
def test_event_driven_equals_reference_on_longer_random_instances(seed):
    # longer queues and many class crossings than the hypothesis instances: m = 3, n = 80, sizes 1..16
    rng = np.random.default_rng(seed)
    n, m = 80, 3
    inst = Instance.from_lists(
        m,
        np.sort(rng.integers(0, 120, n)).tolist(),
        rng.integers(1, 17, n).tolist(),
        [sorted(rng.choice(m, rng.integers(1, m + 1), replace=False).tolist()) for _ in range(n)],
        w_flow=rng.choice([0.25, 1, 2, 3, 8], n).tolist(),
        w_reject=rng.choice([1, 2, 5], n).tolist(),
    )
    for T in (8.0, 40.0, None):
        oracle = "prefix-lb" if T is None else "opt"
        same(run(A, inst, 0.25, T, oracle=oracle), reference(inst, "wtdmaxflow", 0.25, T, "A"))
        same(run(S, inst, 0.25, T, oracle=oracle), reference(inst, "wtdmaxflow", 0.25, T, "srpt"))
        same(run(B, inst, 0.25, T, oracle=oracle, c="1/eps"), reference(inst, "wtdmaxflow", 0.25, T, "B", c="1/eps"))
        for problem in ("genwtd", "stretch"):
            same(
                run(G, inst, 0.25, T, problem=problem, oracle=oracle, c=2.0, no_hopeless_preemption=True),
                reference(inst, problem, 0.25, T, "B", c=2.0, hopeless=True),
            )


# ----------------------------------------------------------------------------- the Section-4 example (§6.5)
def section4_instance(horizon: int) -> Instance:
    """ε = 1/4, T* = 2, 8 machines: at t = 0 four size-2 jobs on all machines, a size-2 job on
    {m1, m2}, one on {m3, m4}, one on {m1}, a size-1 job on all; then a size-1 job on all at
    t = 1..horizon and a size-2 job on {m1} at t = 2, 4, .., horizon (machines 0-based here)."""
    every = list(range(8))
    release, size, elig = [0] * 8, [2] * 7 + [1], [every] * 4 + [[0, 1], [2, 3], [0], every]
    for t in range(1, horizon + 1):
        release.append(t), size.append(1), elig.append(every)
        if t % 2 == 0:
            release.append(t), size.append(2), elig.append([0])
    return Instance.from_lists(8, release, size, elig)


@pytest.mark.parametrize("problem", ["maxflow", "wtdmaxflow"])
def test_section4_example(problem):
    horizon = 400
    inst = section4_instance(horizon)
    n_two = horizon // 2  # size-2 jobs after t = 0
    srpt = run(S, inst, 0.25, 2.0, problem=problem)
    # the t = 0 dispatch of §6.5: m1..m4, m1, m3, m1, and the size-1 job to m1
    assert srpt.outcome.machine.tolist()[:8] == [0, 1, 2, 3, 0, 2, 0, 0]
    # m1 runs every size-1 job at once (SRPT), its size-2 queue (6 at t = 0) grows by 2 per 2 slots:
    # every size-2 job released at t = 4, 6, .., 400 is rejected, nothing else
    rejected = np.flatnonzero(srpt.outcome.rejected)
    assert inst.release[rejected].tolist() == list(range(4, horizon + 1, 2))
    assert (inst.size[rejected] == 2).all()
    n = 8 + horizon + n_two
    assert srpt.validation.rejected_frac == pytest.approx((n_two - 1) / n)  # 199/608 = 0.3273 (spec 0.327)
    assert srpt.validation.rejected_volume_frac == pytest.approx(
        2 * (n_two - 1) / (15 + horizon + 2 * n_two)
    )  # 398/815 = 0.4883 (spec 0.488)
    assert round(srpt.validation.rejected_frac, 3) == 0.327 and round(srpt.validation.rejected_volume_frac, 3) == 0.488
    assert srpt.validation.status == "budget_violated"  # 1/3 > ε = 1/4
    a = run(A, inst, 0.25, 2.0, problem=problem)
    assert a.validation.rejected_frac == 0 and a.validation.status == "ok"
    assert a.outcome.machine.tolist()[:8] == [0, 1, 2, 3, 0, 2, 0, 0]
    # A's load/size rule keeps m1 on its size-2 queue (priority >= 2/2 = 1, and it never empties), which
    # starves m1's size-1 job of t = 0 (job 7); on m2 the size-1 jobs (priority 1, ties to the smaller
    # size) starve its size-2 job (job 1): A itself has no flow bound, B's timeouts give one
    flow = a.outcome.completion - inst.release
    assert flow[7] == horizon + 5 and flow[1] == horizon + 2 and a.validation.objective == horizon + 5
    assert np.delete(flow, [1, 7]).max() <= 7
    b = run(B, inst, 0.25, 2.0, problem=problem, c="1/eps")  # timeout 1/ε·T/w = 8
    assert np.flatnonzero(b.outcome.rejected).tolist() == [1, 7]
    assert b.outcome.step_time[b.outcome.reject_step[[1, 7]]].tolist() == [8, 8]
    assert b.validation.status == "ok" and b.validation.objective == 6 and b.validation.wasted_work == 1


# ----------------------------------------------------------------------------- exact OPT, by brute force
def _single_machine_opt(jobs: tuple) -> float:
    """min over preemptive speed-1 schedules of one machine of max w·F; jobs (r, p, w)."""
    if not jobs:
        return 0.0
    horizon = max(r for r, _, _ in jobs) + sum(p for _, p, _ in jobs)
    cands = sorted({w * (k - r) for r, p, w in jobs for k in range(r + p, horizon + 1)})

    def feasible(T):  # preemptive EDF with deadlines r + ⌊T/w⌋ (integer slots)
        dl = [r + math.floor(T / w + 1e-9) for r, _, w in jobs]
        rem = [p for _, p, _ in jobs]
        for t in range(horizon):
            ready = [k for k, (r, _, _) in enumerate(jobs) if r <= t and rem[k] > 0]
            if ready:
                k = min(ready, key=lambda k: dl[k])
                rem[k] -= 1
                if rem[k] == 0 and t + 1 > dl[k]:
                    return False
        return True

    lo, hi = 0, len(cands) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if feasible(cands[mid]):
            hi = mid
        else:
            lo = mid + 1
    return cands[lo]


def brute_opt(inst: Instance, problem: str) -> float:
    """Exact non-migratory OPT of a tiny instance (every assignment, EDF per machine)."""
    prob = get_problem(problem)
    w = prob.flow_weights(inst)
    jobs = [(int(inst.release[j]), int(inst.size[j]), float(w[j])) for j in range(inst.n)]
    one = lru_cache(maxsize=None)(lambda ids: _single_machine_opt(tuple(jobs[k] for k in ids)))
    best = math.inf
    for assign in itertools.product(*[inst.eligible(j).tolist() for j in range(inst.n)]):
        val = max(one(tuple(k for k in range(inst.n) if assign[k] == i)) for i in set(assign))
        best = min(best, val)
    return best


def exact_opt(inst: Instance, problem: str) -> float:
    """The offline solver's OPT when it is proven, else the brute force."""
    res = solve_opt(inst, problem)
    return float(res.value) if res.status == "optimal" else brute_opt(inst, problem)


def test_brute_opt_by_hand_and_against_the_solver_when_it_is_exact():
    # one machine: j0 (r 0, p 2, w 1), j1 (r 0, p 1, w 4): j1 first -> max(4·1, 1·3) = 4 (j0 first: 4·3)
    inst = Instance.from_lists(1, [0, 0], [2, 1], [[0], [0]], w_flow=[1, 4])
    assert brute_opt(inst, "wtdmaxflow") == 4 and brute_opt(inst, "maxflow") == 3
    assert brute_opt(inst, "stretch") == 1.5  # j1 first: F/p = 1, 3/2
    rng = np.random.default_rng(1)
    for _ in range(10):
        n, m = 5, 2
        inst = Instance.from_lists(
            m,
            sorted(rng.integers(0, 4, n).tolist()),
            rng.integers(1, 4, n).tolist(),
            [sorted(rng.choice(m, rng.integers(1, m + 1), replace=False).tolist()) for _ in range(n)],
            w_flow=rng.choice([0.5, 1, 2, 3], n).tolist(),
        )
        for problem in ("wtdmaxflow", "maxflow"):
            res = solve_opt(inst, problem)
            if res.status == "optimal":
                assert res.value == pytest.approx(brute_opt(inst, problem))
            else:
                assert res.lower_bound <= brute_opt(inst, problem) + 1e-9


# ----------------------------------------------------------------------------- guarantees
tiny = weighted_instances(max_m=2, max_n=6, max_release=5, max_size=4)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    inst=tiny,
    eps=st.sampled_from([0.5, 0.3, 0.2]),
    c=st.sampled_from(["1/eps", "1/eps2", 0.5, 1.0, 2.0]),
    problem=st.sampled_from(["wtdmaxflow", "maxflow"]),
    oracle=st.sampled_from(["opt", "prefix-lb"]),
)
def test_wmft_b_completed_jobs_meet_the_timeout_bound(inst, eps, c, problem, oracle):
    opt = exact_opt(inst, problem)
    res = run(B, inst, eps, opt, problem=problem, c=c, oracle=oracle)
    assert res.validation.status != "invalid", res.validation.errors
    w = get_problem(problem).flow_weights(inst)
    cval = B.c_value(eps, res.params)
    T = opt if oracle == "opt" else pow2_at_least(float((w * inst.size).max()))
    done = ~np.isnan(res.outcome.completion)
    flow = res.outcome.completion[done] - inst.release[done]
    assert (w[done] * flow < cval * T + w[done] + 1e-9).all()  # F_j < c·T/w_j + 1
    assert res.validation.objective <= B.ratio_bound(eps, res.params, opt) * opt + 1e-9


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    inst=tiny,
    eps=st.sampled_from([0.5, 0.3]),
    c=st.sampled_from(["1/eps", 0.5, 2.0]),
    problem=st.sampled_from(["genwtd", "stretch"]),
    hopeless=st.booleans(),
)
def test_gwmft_completed_jobs_meet_the_timeout_bound(inst, eps, c, problem, hopeless):
    opt = brute_opt(inst, problem)
    res = run(G, inst, eps, opt, problem=problem, c=c, no_hopeless_preemption=hopeless)
    assert res.validation.status != "invalid", res.validation.errors
    w = get_problem(problem).flow_weights(inst)
    done = ~np.isnan(res.outcome.completion)
    flow = res.outcome.completion[done] - inst.release[done]
    assert (w[done] * flow < G.c_value(eps, res.params) * opt + w[done] + 1e-9).all()
    assert res.validation.objective <= G.ratio_bound(eps, res.params, opt) * opt + 1e-9


def prefix_budget_ok(inst, res, problem, eps) -> bool:
    """Brute-force recount: at every arrival, rejected budget weight <= ε·arrived budget weight."""
    bw = get_problem(problem).budget_weights(inst)
    order = inst.arrival_order()
    rejected = res.outcome.rejected[order]
    arrived = np.cumsum(bw[order])
    lost = np.cumsum(np.where(rejected, bw[order], 0.0))
    return bool((lost <= eps * arrived + 1e-9).all())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    inst=tiny,
    eps=st.sampled_from([0.5, 0.3, 0.2, 0.1]),
    scale=st.sampled_from([1.0, 1.5, 2.0]),
    problem=st.sampled_from(["wtdmaxflow", "maxflow"]),
)
def test_wmft_a_budget_at_every_prefix_when_T_at_least_opt(inst, eps, scale, problem):
    T = scale * exact_opt(inst, problem)
    res = run(A, inst, eps, T, problem=problem)
    assert prefix_budget_ok(inst, res, problem, eps), (inst, eps, T)
    assert res.validation.budget_violations == 0


# ----------------------------------------------------------------------------- parameters and declarations
@pytest.mark.parametrize(
    "cls, params, name",
    [
        (A, {"alpha": 0}, "alpha"),
        (A, {"alpha": "big"}, "alpha"),
        (A, {"oracle": "lp"}, "oracle"),
        (A, {"D": 2}, "D"),
        (S, {"alpha": -1.0}, "alpha"),
        (B, {"D": 0.0}, "D"),
        (B, {"c": "1/eps6"}, "c"),
        (B, {"c": -2}, "c"),
        (B, {"c": math.inf}, "c"),
        (B, {"c_rule": "1/eps"}, "c_rule"),
        (G, {"density": "size"}, "density"),
        (G, {"no_hopeless_preemption": "yes"}, "no_hopeless_preemption"),
        (G, {"c": "1/eps3"}, "c"),
    ],
)
def test_parameter_errors_name_the_parameter(cls, params, name):
    with pytest.raises(ParameterError, match=f"'{name}'"):
        cls(2, eps=0.25, opt=2.0, **params)


def test_oracle_and_problem_errors():
    with pytest.raises(ParameterError, match="T\\*"):
        B(2, eps=0.25)  # oracle "opt" needs T*
    with pytest.raises(ParameterError, match="'opt' does not apply"):
        A(2, eps=0.25, opt=2.0, oracle="prefix-lb")
    with pytest.raises(ParameterError, match="eps"):
        A(2, eps=1.5, opt=2.0)
    with pytest.raises(ParameterError, match="'problem'"):
        G(2, eps=0.25, opt=2.0, problem="wtdmaxflow")
    assert A.solved_problems() == ("wtdmaxflow", "maxflow") and G.solved_problems() == ("genwtd", "stretch")
    assert B.late_reject and G.late_reject and not A.late_reject and not S.late_reject


def test_defaults_and_ratio_bounds():
    assert A.describe()["parameters"] == {"alpha": None, "oracle": "opt"}
    assert B.describe()["parameters"] == {"alpha": None, "D": None, "c": "1/eps4", "oracle": "opt"}
    assert G.describe()["parameters"]["c"] == "1/eps6"
    b = B(2, eps=0.5, opt=3.0)
    assert (b.alpha, b.D, b.c, b.dshift) == (2.0, 2.0, 16.0, 1)
    assert B(2, eps=0.3, opt=3.0, D=3.0, c=7).dshift == 2 and B(2, eps=0.3, opt=3.0, c=7).c == 7.0
    assert G(2, eps=0.5, opt=3.0).c == 64.0
    assert B.ratio_bound(0.5, B.resolve_params({})) == 17.0
    assert B.ratio_bound(0.5, B.resolve_params({"c": "1/eps", "oracle": "prefix-lb"}), opt=3.0) == 2 * 4 / 3 + 1
    assert G.ratio_bound(0.5, G.resolve_params({"c": 3})) == 4.0
    assert A.ratio_bound(0.5, A.resolve_params({})) is None and S.ratio_bound(0.5, S.resolve_params({})) is None


def test_prefix_lb_oracle_grows_limits():
    # one machine, eps = 1/2 (α = 2); prefix-lb: T = 2^⌈log₂ max w p⌉. j0 (p 1, class (0,0)): T = 1,
    # limit 2, queued; j1 (p 2, class (1,0)): T = 2, limit 4, queued; then the unit jobs j2..j5 see their
    # class's load 1, 2, 3, 4 at slot 0: 2, 3, 4 <= 4 queued, 5 > 4 rejected (with T = 1 it would be at j2)
    inst = Instance.from_lists(1, [0] * 6, [1, 2, 1, 1, 1, 1], [[0]] * 6)
    res = run(A, inst, 0.5, None, oracle="prefix-lb")
    assert res.outcome.machine.tolist() == [0, 0, 0, 0, 0, REJECT]
    assert res.validation.status == "ok"
