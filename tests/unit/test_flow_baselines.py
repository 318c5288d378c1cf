"""Speed-augmented MaxFlowTime baselines (spec §7 B6, B7, B9, B10 proxy, B10-LWF): hand-checked
event logs on tiny instances, the speed 1+ε, weighted variants as subclasses, parameter errors,
and the batch guarantees of anand-batch."""

import math

import numpy as np
import pytest

from schedbench.scheduling.algorithms.anand_batch import AnandBatch, batch_length
from schedbench.scheduling.algorithms.base import ParameterError, SlotPlan
from schedbench.scheduling.algorithms.edf import Edf
from schedbench.scheduling.algorithms.imd import Imd
from schedbench.scheduling.algorithms.lwf import Lwf
from schedbench.scheduling.algorithms.ssf_edf import SsfEdf, slack_class
from schedbench.scheduling.model import Instance
from schedbench.scheduling.play import execute
from schedbench.scheduling.registry import get_algorithm, get_family

FLOW = ["imd", "edf", "ssf-edf", "lwf", "anand-batch"]


def run(cls, inst, eps, params=None, oracle=None):
    p = execute(cls, inst, eps=eps, params=params or {}, oracle=oracle)
    assert p.validation.status == "ok", p.validation.errors
    return p


def random_instance(seed, sizes="pow2", m=4, n=40, rate=2.0, weights=False):
    extra = {"max_size_exp": 2} if sizes == "pow2" else {}
    inst = get_family("random-restricted").make(
        seed, 7, m=m, n=n, d=2, sizes=sizes, arrivals="poisson", rate=rate, **extra
    )
    if not weights:
        return inst
    w = np.random.default_rng(seed).choice([0.5, 1.0, 2.0, 4.0], size=inst.n)
    return Instance(inst.m, inst.release, inst.size, inst.indptr, inst.indices, w, inst.w_reject)


# ---------------------------------------------------------------------------------------- registry
@pytest.mark.parametrize("name", FLOW)
def test_declarations(name):
    cls = get_algorithm(name)
    assert cls.problem == "maxflow" and cls.model == "speed" and cls.rule_label == "R"
    assert cls.reference and cls.__doc__
    assert not cls.late_reject and cls.deferred_dispatch == (name == "anand-batch")


def test_proxy_and_known_bad_rules_say_so():
    import schedbench.scheduling.algorithms.lwf as lwf
    import schedbench.scheduling.algorithms.ssf_edf as ssf

    assert "proxy" in ssf.__doc__ and "proxy" in SsfEdf.reference
    assert "known-bad" in lwf.__doc__


# ---------------------------------------------------------------------------------------- IMD
def test_imd_srpt_preemption_log():
    # slot 0: j0 (rem 3).  slot 1: j1 (2 < 3) preempts.  slot 2: j2 (size 1) ties j1 (rem 1):
    # the older j1 keeps the machine and completes at 3.  slot 3: j2 (1 < 3).  slots 4-6: j0.
    inst = Instance.from_lists(1, [0, 1, 2], [4, 2, 1], [[0], [0], [0]])
    out = run(Imd, inst, eps=0.0).outcome
    assert out.slot_log() == [
        (0, 0, 0, 1.0),
        (1, 0, 1, 1.0),
        (2, 0, 1, 1.0),
        (3, 0, 2, 1.0),
        (4, 0, 0, 1.0),
        (5, 0, 0, 1.0),
        (6, 0, 0, 1.0),
    ]
    np.testing.assert_array_equal(out.completion, [7, 3, 4])


def test_imd_srpt_keeps_the_remaining_work_of_a_preempted_job():
    # j0 (size 4) runs slot 0 (3 left); j1 (size 2) preempts it at 1 (2 < 3) and runs slot 1
    # (1 left). At 2, j2 (size 3) ties the preempted j0 (3 left, not its size 4): j0 is older and
    # goes first. j1 completes at 3, j0 at 6, j2 at 9.
    inst = Instance.from_lists(1, [0, 1, 2], [4, 2, 3], [[0]] * 3)
    out = run(Imd, inst, eps=0.0).outcome
    np.testing.assert_array_equal(out.completion, [6, 3, 9])


def test_imd_dispatch_by_cumulative_class_volume():
    # classes: size 2, 3 -> 1; size 1 -> 0. j0 -> m0 (tie), j1 -> m1 (0 < 2), j2 (class 0) -> m0
    # (tie), j3 -> m0 (2 < 3). At t = 10 every machine is idle, but the volumes are cumulative:
    # j4 (class 1) -> m1 (3 < 4), j5 -> m0 (4 < 6).
    inst = Instance.from_lists(2, [0, 0, 0, 0, 10, 10], [2, 3, 1, 2, 3, 2], [[0, 1]] * 6)
    out = run(Imd, inst, eps=0.0).outcome
    np.testing.assert_array_equal(out.machine, [0, 1, 0, 0, 1, 0])


def test_imd_at_speed_one_and_a_half():
    inst = Instance.from_lists(1, [0, 0], [1, 1], [[0], [0]])
    p = run(Imd, inst, eps=0.5)
    assert p.outcome.speed == 1.5
    np.testing.assert_allclose(p.outcome.completion, [2 / 3, 4 / 3])
    assert p.validation.objective == pytest.approx(4 / 3)


# ---------------------------------------------------------------------------------------- EDF
def test_edf_is_fifo_for_maxflow_and_dispatches_to_least_remaining_work():
    # j0 -> m0 (tie); j1 -> m1 (0 < 3); at t = 1: m0 has 2 left, m1 0: j2 -> m1; j3: m0 2 > m1 1
    # -> m1; j4: m0 2 < m1 3 -> m0 (after j0, FIFO).
    inst = Instance.from_lists(2, [0, 0, 1, 1, 1], [3, 1, 1, 2, 1], [[0, 1]] * 5)
    for oracle_mode, opt in (("opt", 5.0), ("none", None)):
        out = run(Edf, inst, eps=0.0, params={"oracle": oracle_mode}, oracle=opt).outcome
        np.testing.assert_array_equal(out.machine, [0, 1, 1, 1, 0])
        np.testing.assert_array_equal(out.completion, [3, 1, 2, 4, 4])


def test_edf_fifo_order_on_one_machine_and_speed():
    inst = Instance.from_lists(1, [0, 1, 1, 2], [3, 1, 2, 1], [[0]] * 4)
    out = run(Edf, inst, eps=0.0, oracle=1.0).outcome
    assert [row[2] for row in out.slot_log()] == [0, 0, 0, 1, 2, 2, 3]
    np.testing.assert_array_equal(out.completion, [3, 4, 6, 7])
    fast = run(Edf, inst, eps=0.5, oracle=1.0).outcome
    np.testing.assert_allclose(fast.completion, [2, 2 + 2 / 3, 4, 4 + 2 / 3])


class ProbeEdf(Edf):
    """Edf whose own least-work choice is checked against the engine's view at every arrival."""

    name = "test-edf-probe"

    def on_arrival(self, job, view):
        i = super().on_arrival(job, view)
        work = [view.remaining_work(k) for k in job.eligible.tolist()]
        best = min(work)
        expected = min(k for k, w in zip(job.eligible.tolist(), work) if w <= best + 1e-9 * max(1, best))
        assert i == expected, (job.id, i, expected, work)
        return i


@pytest.mark.parametrize("eps", [0.0, 0.5, 0.3])
@pytest.mark.parametrize("seed", range(4))
def test_edf_tracked_remaining_work_matches_the_engine(eps, seed):
    run(ProbeEdf, random_instance(seed, rate=3.0), eps=eps, oracle=4.0)


class WtdEdf(Edf):
    name, problem = "test-wtd-edf", "wtdmaxflow"


def test_weighted_edf_subclass_orders_by_deadline_and_T_matters():
    # j0: r 0, p 3, w 1; j1: r 1, p 1, w 4. T = 4: d0 = 4 > d1 = 1 + 1 = 2: j1 preempts at 1.
    # T = 1 (oracle none): d0 = 1 < d1 = 1.25: FIFO.
    inst = Instance.from_lists(1, [0, 1], [3, 1], [[0], [0]], w_flow=[1.0, 4.0])
    out = run(WtdEdf, inst, eps=0.0, oracle=4.0).outcome
    np.testing.assert_array_equal(out.completion, [4, 2])
    out = run(WtdEdf, inst, eps=0.0, params={"oracle": "none"}).outcome
    np.testing.assert_array_equal(out.completion, [3, 4])


# ---------------------------------------------------------------------------------------- SSF-EDF
def test_slack_class():
    assert [slack_class(S, 2.0) for S in (1, 2, 3, 4, 7.99, 8, 0.5)] == [0, 1, 1, 2, 2, 3, -1]
    assert slack_class(27.0, 3.0) == 3 and slack_class(26.9, 3.0) == 2


class WtdSsfEdf(SsfEdf):
    name, problem = "test-wtd-ssf-edf", "wtdmaxflow"


def test_ssf_edf_prefers_the_smaller_slack_class_over_the_earlier_deadline():
    # T = 8. j0: r 0, p 8, w 1: S 8 (class 3), d 8. j1: r 5, p 1, w 2: S 4 (class 2), d 9.
    # SSF-EDF: j1 preempts j0 at 5 (smaller class); EDF keeps j0 (d 8 < 9).
    inst = Instance.from_lists(1, [0, 5], [8, 1], [[0], [0]], w_flow=[1.0, 2.0])
    out = run(WtdSsfEdf, inst, eps=0.0, oracle=8.0).outcome
    np.testing.assert_array_equal(out.completion, [9, 6])
    out = run(WtdEdf, inst, eps=0.0, oracle=8.0).outcome
    np.testing.assert_array_equal(out.completion, [8, 9])
    # with c = 4 both slacks share class 1: EDF inside the class
    out = run(WtdSsfEdf, inst, eps=0.0, params={"c": 4.0}, oracle=8.0).outcome
    np.testing.assert_array_equal(out.completion, [8, 9])


@pytest.mark.parametrize("seed", range(3))
def test_ssf_edf_edf_lwf_are_fifo_for_maxflow(seed):
    inst = random_instance(seed)
    outs = [run(get_algorithm(n), inst, eps=0.5, oracle=3.0).outcome for n in ("edf", "ssf-edf", "lwf")]
    for out in outs[1:]:
        np.testing.assert_array_equal(out.machine, outs[0].machine)
        np.testing.assert_array_equal(out.completion, outs[0].completion)
    # FIFO: on each machine, jobs complete in arrival order
    out = outs[0]
    for i in range(inst.m):
        jobs = np.flatnonzero(out.machine == i)
        assert np.all(np.diff(out.completion[jobs]) > 0)


# ---------------------------------------------------------------------------------------- LWF
class WtdLwf(Lwf):
    name, problem = "test-wtd-lwf", "wtdmaxflow"


def test_lwf_switches_when_a_delay_factor_overtakes_without_any_event():
    # T = 4: S0 = S1 = 4, S2 = 1. j0 (r 0, p 10) runs; j1 (r 2) never overtakes it (same S,
    # later release). j2 (r 3) grows 4x faster: equal to j0 at t = 4 (tie -> earlier release
    # j0), ahead at t = 5 — no arrival or completion then, only the wake-up LWF asked for.
    # j2 runs slot 5, then j0 (ratio 6/4 > j1's 4/4) to 11, then j1.
    inst = Instance.from_lists(1, [0, 2, 3], [10, 2, 1], [[0]] * 3, w_flow=[1.0, 1.0, 4.0])
    out = run(WtdLwf, inst, eps=0.0, oracle=4.0).outcome
    jobs = [row[2] for row in out.slot_log()]
    assert jobs == [0] * 5 + [2] + [0] * 5 + [1, 1]
    np.testing.assert_array_equal(out.completion, [11, 13, 6])


def test_lwf_maxflow_picks_the_longest_waiting():
    # one S for every job: the largest t - r is the earliest release (FIFO), ties by arrival
    inst = Instance.from_lists(1, [0, 0, 1, 3], [2, 2, 1, 1], [[0]] * 4)
    out = run(Lwf, inst, eps=0.0, oracle=2.0).outcome
    np.testing.assert_array_equal(out.completion, [2, 4, 5, 6])


class EverySlotLwf(WtdLwf):
    """Reference: re-sort every machine by delay factor in every slot."""

    name = "test-lwf-every-slot"

    def on_slot(self, view):
        t, plan = view.time, SlotPlan()
        for i in range(view.m):
            q = view.queue(i)
            order = sorted(q, key=lambda j: (-(t - self.rel[j]) / self.S[j], self.rel[j], j))
            if order != list(q):
                plan.priority[i] = order
        if any(view.queue(i) for i in range(view.m)):
            plan.wake_at = t + 1
        return plan


@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("seed", range(6))
def test_weighted_lwf_matches_resorting_every_slot(eps, seed):
    inst = random_instance(seed, sizes="pow2", m=3, n=40, rate=1.5, weights=True)
    a = run(WtdLwf, inst, eps=eps, oracle=4.0).outcome
    b = run(EverySlotLwf, inst, eps=eps, oracle=4.0).outcome
    np.testing.assert_array_equal(a.machine, b.machine)
    np.testing.assert_allclose(a.completion, b.completion, rtol=0, atol=1e-9)


# ---------------------------------------------------------------------------------------- anand-batch
def test_anand_batch_hand_checked_log():
    # Unit jobs, T = 1, eps = 0.5: L = ceil(T/eps) = 2. Batch [0, 2) = j0, j1, j2, dispatched
    # at 2 (forced by the eligible sets): m0 gets j0 then j2 (FIFO), m1 gets j1; speed 1.5.
    # Batch [2, 4) = j3, dispatched at 4.
    inst = Instance.from_lists(2, [0, 0, 1, 3], [1, 1, 1, 1], [[0], [1], [0], [0]])
    p = run(AnandBatch, inst, eps=0.5, oracle=1.0)
    out = p.outcome
    np.testing.assert_array_equal(out.dispatch_time, [2, 2, 2, 4])
    np.testing.assert_array_equal(out.machine, [0, 1, 0, 0])
    np.testing.assert_allclose(out.completion, [2 + 2 / 3, 2 + 2 / 3, 2 + 4 / 3, 4 + 2 / 3])
    assert out.slot_log() == [(2, 0, 0, 1.0), (2, 0, 2, 0.5), (2, 1, 1, 1.0), (3, 0, 2, 0.5), (4, 0, 3, 1.0)]
    assert p.counters["batch_length"] == 2 and p.counters["lp_solves"] == 2 and p.counters["doublings"] == 0


def test_anand_batch_lp_spreads_a_batch_within_capacity():
    # 6 unit jobs at 0 on 2 machines, T = 2, eps = 1: L = 2, capacity floor(L + T) = 4 per
    # machine: the LP must put at least 2 on each; all dispatched at 2; flow <= 2L.
    inst = Instance.from_lists(2, [0] * 6, [1] * 6, [[0, 1]] * 6)
    p = run(AnandBatch, inst, eps=1.0, oracle=2.0)
    counts = np.bincount(p.outcome.machine, minlength=2)
    assert counts.min() >= 2 and counts.max() <= 4
    np.testing.assert_array_equal(p.outcome.dispatch_time, [2] * 6)
    assert p.validation.objective <= 2 * 2


def test_anand_batch_unit_window_then_general_window():
    # j0 (unit) at 0; j1 (size 2) at 3. T = 2, eps = 1: unit L = 2 until a size-2 job is seen
    # in a batch; the window after its batch has L = ceil(2T/eps) = 4.
    inst = Instance.from_lists(1, [0, 3, 6], [1, 2, 1], [[0]] * 3)
    p = run(AnandBatch, inst, eps=1.0, oracle=2.0)
    # boundaries 2, 4 (j1 dispatched), then 4 + 4 = 8 (j2)
    np.testing.assert_array_equal(p.outcome.dispatch_time, [2, 4, 8])
    assert p.counters["batch_length"] == 4


@pytest.mark.parametrize("oracle_mode, opt", [("opt", 3.0), ("opt", 1.0), ("doubling", None)])
@pytest.mark.parametrize("eps", [0.25, 0.5, 1.0])
@pytest.mark.parametrize("sizes", ["unit", "pow2"])
def test_anand_batch_guarantees(oracle_mode, opt, eps, sizes):
    for seed in range(3):
        inst = random_instance(seed, sizes=sizes, m=4, n=60, rate=2.0)
        p = run(AnandBatch, inst, eps=eps, params={"oracle": oracle_mode}, oracle=opt)
        out, c = p.outcome, p.counters
        L = c["batch_length"]
        flow = out.completion - inst.release
        assert np.all(out.dispatch_time > inst.release)  # held to the next boundary
        assert np.all(out.dispatch_time - inst.release <= L)
        assert np.all(out.completion - out.dispatch_time <= L + 1e-9)  # done within the next window
        assert flow.max() <= 2 * L + 1e-9
        assert c["rounding_fallbacks"] == 0
        if sizes == "unit":
            assert c["fractional_jobs"] == 0  # the LP vertex is integral
        if oracle_mode == "opt" and opt == 1.0 and sizes == "pow2":
            assert c["doublings"] > 0  # sizes up to 4 > T = 1
        # each batch is dispatched all at once, at one boundary, and machines are empty then
        for i in range(inst.m):
            jobs = np.flatnonzero(out.machine == i)
            jobs = jobs[np.lexsort((jobs, out.dispatch_time[jobs]))]
            for a, b in zip(jobs[:-1], jobs[1:]):
                if out.dispatch_time[b] > out.dispatch_time[a]:
                    assert out.completion[a] <= out.dispatch_time[b] + 1e-9


def test_anand_batch_flow_within_2L_at_the_oracle():
    # one machine, unit jobs every slot: OPT = 1; T = 1, eps = 0.5: L = 2, flow <= 4 = 2/eps * T
    inst = Instance.from_lists(1, list(range(10)), [1] * 10, [[0]] * 10)
    p = run(AnandBatch, inst, eps=0.5, oracle=1.0)
    assert p.validation.objective <= 2 * batch_length(1.0, 0.5, True) == 4
    assert p.counters["doublings"] == 0


def test_anand_batch_eps_zero_and_parameters():
    inst = Instance.from_lists(1, [0], [1], [[0]])
    with pytest.raises(ParameterError, match="eps"):
        execute(AnandBatch, inst, eps=0.0, oracle=1.0)
    assert AnandBatch.eps_values([0.5, 0.0]) == [0.5]
    assert 0.0 in Edf.eps_values([0.5])  # the other baselines keep their speed-1 row
    with pytest.raises(ParameterError, match="'oracle'"):
        execute(AnandBatch, inst, eps=0.5, params={"oracle": "none"})
    with pytest.raises(ParameterError, match="opt"):
        execute(AnandBatch, inst, eps=0.5)  # oracle "opt" needs T*
    assert AnandBatch.ratio_bound(0.5, {"oracle": "opt"}, opt=3.0) == pytest.approx(2 * 12 / 3)
    assert AnandBatch.ratio_bound(0.5, {"oracle": "opt"}) == pytest.approx(8.0)  # 4/eps at OPT = 1
    assert AnandBatch.ratio_bound(0.5, {"oracle": "doubling"}, opt=2.0) == pytest.approx(2 * 16 / 2)
    assert batch_length(3.0, 0.5, False) == 12 and batch_length(3.0, 0.5, True) == 6
    assert batch_length(1.0, 0.3, True) == 4


# ---------------------------------------------------------------------------------------- parameters
def test_bad_parameters_are_named():
    inst = Instance.from_lists(1, [0], [1], [[0]])
    for bad in (1.0, 0.5, -2, "x", float("nan"), True):
        with pytest.raises(ParameterError, match="'c'"):
            execute(SsfEdf, inst, eps=0.5, params={"c": bad}, oracle=1.0)
    with pytest.raises(ParameterError, match="'oracle'"):
        execute(Edf, inst, eps=0.5, params={"oracle": "doubling"}, oracle=1.0)
    with pytest.raises(ParameterError, match="'oracle'"):
        execute(Lwf, inst, eps=0.5, params={"oracle": "maybe"})
    with pytest.raises(ParameterError, match="has no parameter 'T'"):
        execute(Imd, inst, eps=0.5, params={"T": 3})
    with pytest.raises(ParameterError, match="eps"):
        execute(Imd, inst, eps=-0.1)
    with pytest.raises(ParameterError, match="'opt' does not apply"):
        Imd(1, eps=0.1, opt=2.0)  # imd does not use T*
    with pytest.raises(ParameterError, match="'opt' does not apply"):
        Edf(1, eps=0.1, opt=2.0, oracle="none")


@pytest.mark.parametrize("name", FLOW)
@pytest.mark.parametrize("eps", [0.0, 0.5, 2.0])
def test_every_baseline_valid_on_random_instances(name, eps):
    cls = get_algorithm(name)
    if eps == 0.0 and name == "anand-batch":
        return
    for seed in range(3):
        inst = random_instance(seed, sizes="pow2", rate=3.0)
        oracle = 4.0 if cls.uses_oracle(cls.resolve_params({})) else None
        p = run(cls, inst, eps=eps, oracle=oracle)
        assert np.all(np.isfinite(p.outcome.completion))
        assert not math.isnan(p.validation.objective)


@pytest.mark.parametrize("seed", range(4))
def test_anand_batch_job_types_are_numbered_by_first_appearance(seed):
    # the batch LP's types: same size and the same eligible machines in the same order;
    # compared with a dictionary built job by job (the reference numbering)
    from schedbench.scheduling.algorithms.anand_batch import _job_types

    rng = np.random.default_rng(seed)
    n, m = 3000, 5
    size = rng.integers(1, 4, n)
    degree = rng.integers(1, 4, n)
    indptr = np.r_[0, np.cumsum(degree)]
    indices = np.concatenate([rng.choice(m, d, replace=False) for d in degree])
    tid, first = _job_types(size, indptr, indices)
    seen, ref, firsts = {}, [], []
    for k in range(n):
        t = seen.setdefault((int(size[k]), tuple(indices[indptr[k] : indptr[k + 1]].tolist())), len(seen))
        if t == len(firsts):
            firsts.append(k)
        ref.append(t)
    assert tid.tolist() == ref and first.tolist() == firsts
