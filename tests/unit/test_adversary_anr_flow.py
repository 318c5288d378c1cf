"""The ANR-flow adversary (spec §6.6, streams variant §6.4): the realised instance's shape, the
claimed OPT = T proven exactly (brute force on tiny cases, bipartite matching — spec §8.2 — on
larger ones), the forced max flow (K·⌈T/2⌉ + T)/s of an immediate-dispatch algorithm, the
survivor rule (adaptive; rejected or held jobs count for neither), the rejection algorithm's
cap, parameter errors.

No maxflow algorithm was registered when this was written, so the algorithms are test-local
OnlineAlgorithm subclasses passed as classes (never registered: the conformance tests only see
registered ones)."""

import itertools
import math
import sys

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

import schedbench
from schedbench.scheduling.adversaries.anr_flow import MAX_JOBS, AnrFlow
from schedbench.scheduling.algorithms.base import OnlineAlgorithm, ParameterError
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.registry import adversary_names, algorithm_names, get_adversary


class LeastQueueFifo(OnlineAlgorithm):
    """Immediate dispatch to the eligible machine with the shortest queue (ties: lowest index), FIFO."""

    name = "test-ll-queue"
    problem = "maxflow"
    model = "speed"
    unit_sizes_only = True
    reference = "test only"

    def on_arrival(self, job, view):
        return min(job.eligible.tolist(), key=lambda i: (len(view.queue(i)), i))


class HighestIndex(LeastQueueFifo):
    """Immediate dispatch to the highest eligible index: the survivors are the upper members."""

    name = "test-highest-index"

    def on_arrival(self, job, view):
        return int(job.eligible.max())


class CappedLeastQueue(LeastQueueFifo):
    """MFT_UNIT (spec §3): least queue, reject on arrival when that queue holds ⌈T*/ε⌉ jobs."""

    name = "test-ll-queue-cap"
    model = "rejection"
    needs_opt = True

    def on_arrival(self, job, view):
        i = super().on_arrival(job, view)
        return REJECT if len(view.queue(i)) >= math.ceil(self.opt / self.eps - 1e-9) else i


def play(alg, eps=0.0, **params):
    eps = None if alg.model == "plain" else eps
    return schedbench.run_adversary("anr-flow", alg, eps=eps, adversary_params=params, solve=False)


# --------------------------------------------------------------------------- exact OPT, two ways
def brute_force_opt(inst):
    """min over every assignment of max flow, each machine FIFO by release (optimal for unit
    jobs on one machine). Only for tiny instances."""
    jobs = sorted(range(inst.n), key=lambda j: inst.release[j])
    best = math.inf
    for choice in itertools.product(*(inst.eligible(j).tolist() for j in jobs)):
        free = {}
        worst = 0
        for j, i in zip(jobs, choice):
            r = int(inst.release[j])
            c = max(free.get(i, 0), r) + 1
            free[i] = c
            worst = max(worst, c - r)
            if worst >= best:
                break
        best = min(best, worst)
    return best


def feasible(inst, F):
    """Spec §8.2: max flow ≤ F iff every job matches its own slot (i, t), i ∈ S_j, r_j ≤ t < r_j + F."""
    H = int(inst.release.max()) + F
    rows, cols = [], []
    for j in range(inst.n):
        r = int(inst.release[j])
        for i in inst.eligible(j).tolist():
            for t in range(r, r + F):
                rows.append(j)
                cols.append(i * H + t)
    graph = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(inst.n, inst.m * H))
    return bool(np.all(maximum_bipartite_matching(graph, perm_type="column") >= 0))


def exact_opt(inst):
    F = 1
    while not feasible(inst, F):
        F += 1
    return F


# --------------------------------------------------------------------------- contract
def test_registered_with_the_contract():
    assert "anr-flow" in adversary_names()
    cls = get_adversary("anr-flow")
    assert cls is AnrFlow and cls.problem == "maxflow" and cls.unit_sizes and cls.rule_label in {"R", "R✓"}
    assert "§6.6" in cls.reference and "Azar" in cls.reference and "Anand" in cls.reference
    doc = sys.modules[cls.__module__].__doc__
    assert "OPT = T exactly" in doc and "final batch" in doc.lower()
    assert cls.describe()["parameters"] == {"m": None, "T": 1, "streams": False}
    # the test-local algorithms never leak into the registry
    assert not {"test-ll-queue", "test-highest-index", "test-ll-queue-cap"} & set(algorithm_names())


@pytest.mark.parametrize("streams", [False, True])
@pytest.mark.parametrize("T", [1, 2, 3])
@pytest.mark.parametrize("m", [2, 4, 8, 16])
def test_realised_instance_shape(m, T, streams):
    res = play(LeastQueueFifo, m=m, T=T, streams=streams)
    inst, K = res.instance, int(math.log2(m))
    assert res.valid and res.status == "ok", res.errors
    assert res.claimed_opt == T and inst.meta["claimed_opt"] == T and inst.m == m
    assert inst.n == T * m + (m - 2 if streams else 0) == AnrFlow.job_count(m, T, streams)
    assert np.all(inst.size == 1)
    sets = [tuple(inst.eligible(j).tolist()) for j in range(inst.n)]
    pairs = [s for s in sets if len(s) == 2]
    singles = [s for s in sets if len(s) == 1]
    assert len(pairs) + len(singles) == inst.n and len(pairs) == T * (m - 1)
    # every 2-set is a pair of the tree, T jobs each: m − 1 distinct pairs, each joining two
    # different components (a tournament over the machines)
    counts = {p: pairs.count(p) for p in set(pairs)}
    assert len(counts) == m - 1 and set(counts.values()) == {T}
    comp = list(range(m))

    def find(x):
        while comp[x] != x:
            x = comp[x]
        return x

    for a, b in sorted(counts, key=lambda p: sets.index(p)):
        assert find(a) != find(b)
        comp[find(a)] = find(b)
    if streams:
        assert set(inst.release.tolist()) <= set(range(K)) and int(inst.release.max()) == K - 1
    else:
        assert np.all(inst.release == 0)
    # the final batch: T jobs on the last survivor, released with the last round
    last = [j for j in range(inst.n) if len(sets[j]) == 1 and inst.release[j] == inst.release.max()]
    assert len(last) == T and len({sets[j] for j in last}) == 1


# --------------------------------------------------------------------------- OPT = T
@pytest.mark.parametrize("alg", [LeastQueueFifo, HighestIndex])
@pytest.mark.parametrize("streams", [False, True])
@pytest.mark.parametrize("T", [1, 2])
@pytest.mark.parametrize("m", [2, 4])
def test_claimed_opt_is_exact_by_brute_force(m, T, streams, alg):
    res = play(alg, m=m, T=T, streams=streams)
    assert res.instance.n <= 10
    assert brute_force_opt(res.instance) == res.claimed_opt == T
    assert exact_opt(res.instance) == T  # the matching check agrees with the brute force


@pytest.mark.parametrize(
    "alg,eps",
    [
        (LeastQueueFifo, 0.0),
        (LeastQueueFifo, 0.5),
        (HighestIndex, 0.0),
        (CappedLeastQueue, 0.5),
        (CappedLeastQueue, 0.25),
    ],
)
@pytest.mark.parametrize("streams", [False, True])
@pytest.mark.parametrize("T", [1, 3, 4])
@pytest.mark.parametrize("m", [8, 16])
def test_claimed_opt_is_exact_by_matching(m, T, streams, alg, eps):
    res = play(alg, eps=eps, m=m, T=T, streams=streams)
    assert res.valid, res.errors
    assert feasible(res.instance, T) and (T == 1 or not feasible(res.instance, T - 1))


def test_without_the_final_batch_opt_would_be_below_t():
    # why the final batch is always released: m = 4, T = 4, rounds only → 12 jobs fit 3 per machine
    res = play(LeastQueueFifo, m=4, T=4)
    inst = res.instance
    keep = np.flatnonzero(np.diff(inst.indptr) == 2)  # the round jobs
    rounds_only = type(inst)(
        inst.m,
        inst.release[keep],
        inst.size[keep],
        np.r_[0, np.cumsum(np.full(keep.size, 2))].astype(np.int64),
        np.concatenate([inst.eligible(j) for j in keep]).astype(np.int64),
        inst.w_flow[keep],
        inst.w_reject[keep],
    )
    assert exact_opt(rounds_only) == 3 and exact_opt(inst) == 4


# --------------------------------------------------------------------------- what it forces
@pytest.mark.parametrize("streams", [False, True])
@pytest.mark.parametrize("T", [1, 2, 5])
@pytest.mark.parametrize("eps", [0.0, 0.5])
def test_forced_max_flow_grows_with_log_m(eps, T, streams):
    s = 1 + eps
    bounds, objectives = [], []
    for K in range(1, 7):
        m = 2**K
        res = play(LeastQueueFifo, eps=eps, m=m, T=T, streams=streams)
        assert res.valid and res.status == "ok" and res.rejected_frac == 0
        bound = AnrFlow.forced_max_flow(m, T, streams, s)
        assert res.objective >= bound - 1e-9
        if not streams:
            # all at 0: the last survivor holds K·⌈T/2⌉ + T units before anything is processed
            assert bound == pytest.approx((K * math.ceil(T / 2) + T) / s) and bound >= K * T / (2 * s) + T / s
            # least queue splits each pair ⌈T/2⌉/⌊T/2⌋ (all survivors equal): it meets the bound
            assert res.objective == pytest.approx(bound)
        else:
            half = math.ceil(T / 2)
            if s <= half + 1:
                assert bound == pytest.approx((K * half + T - (K - 1) * (s - 1)) / s)
        bounds.append(bound)
        objectives.append(res.objective)
    assert all(a < b for a, b in zip(bounds, bounds[1:]))
    assert objectives[-1] / T > objectives[0] / T  # ratio to OPT = T grows with log m


def test_all_at_zero_bound_holds_for_an_other_dispatcher():
    for K in range(1, 7):
        res = play(HighestIndex, eps=0.5, m=2**K, T=3)
        assert res.objective >= AnrFlow.forced_max_flow(2**K, 3, False, 1.5) - 1e-9


@pytest.mark.parametrize("streams", [False, True])
@pytest.mark.parametrize("eps", [0.5, 0.25])
def test_rejection_algorithm_stays_at_its_cap(eps, streams):
    T = 2
    cap = math.ceil(T / eps)
    forced = []
    for K in range(1, 8):
        res = play(CappedLeastQueue, eps=eps, m=2**K, T=T, streams=streams)
        assert res.valid and res.status == "ok", res.errors
        assert res.rejected_frac_max_prefix <= eps
        assert res.objective <= cap + 1e-9
        # at speed 1 without rejection every immediate-dispatch algorithm reaches K + 2
        forced.append(AnrFlow.forced_max_flow(2**K, T, streams, 1.0))
        assert (res.rejected_frac > 0) == (forced[-1] > cap)
    assert forced[-1] > cap


# --------------------------------------------------------------------------- the survivor rule
def test_survivors_follow_the_algorithm():
    lq = get_adversary("anr-flow")(m=8, T=3)
    schedbench.scheduling.play.execute(LeastQueueFifo, lq, eps=0.0)
    assert lq.history == [[0, 2, 4, 6], [0, 4], [0]]  # least queue: the lower member gets ⌈T/2⌉
    hi = get_adversary("anr-flow")(m=8, T=3, streams=True)
    res = schedbench.scheduling.play.execute(HighestIndex, hi, eps=0.0)
    assert hi.history == [[1, 3, 5, 7], [3, 7], [7]]
    final = res.instance.eligible(res.instance.n - 1).tolist()
    assert final == [7]


class FakeView:
    def __init__(self, machine, rejected=()):
        self.machine, self.rejected, self.time = machine, set(rejected), 0

    def machine_of(self, j):
        return self.machine[j]

    def is_rejected(self, j):
        return j in self.rejected


def test_rejected_and_held_jobs_count_for_neither_member():
    adv = AnrFlow(m=4, T=3)
    batch = adv.next_jobs(FakeView({}))
    assert [tuple(b.eligible) for b in batch] == [(0, 1)] * 3 + [(2, 3)] * 3
    # pair (0, 1): 1, 1 (rejected), 0 → one each → tie to 0;
    # pair (2, 3): 3, held (−1), held → 3 wins 1 to 0
    view = FakeView({0: 1, 1: 1, 2: 0, 3: 3, 4: -1, 5: -1}, rejected={1})
    adv.observe(view, list(range(6)))
    assert adv.survivors == [0, 3]
    batch = adv.next_jobs(view)
    assert [tuple(b.eligible) for b in batch] == [(0, 3)] * 3 and {b.release for b in batch} == {0}
    adv.observe(FakeView({6: 3, 7: 3, 8: 0}), [6, 7, 8])
    final = adv.next_jobs(view)
    assert [tuple(b.eligible) for b in final] == [(3,)] * 3
    assert adv.next_jobs(view) is None


def test_streams_timing():
    adv = AnrFlow(m=8, T=2, streams=True)
    view = FakeView({})
    out = []
    while (batch := adv.next_jobs(view)) is not None:
        ids = list(range(len(out), len(out) + len(batch)))
        view.machine = {j: min(b.eligible) for j, b in zip(ids, batch)}  # lower member each time
        adv.observe(view, ids)
        out += batch
    rows = [(b.release, tuple(b.eligible)) for b in out]
    assert rows == (
        [(0, (0, 1))] * 2
        + [(0, (2, 3))] * 2
        + [(0, (4, 5))] * 2
        + [(0, (6, 7))] * 2
        + [(0, (0,)), (0, (2,)), (0, (4,)), (0, (6,))]
        + [(1, (0, 2))] * 2
        + [(1, (4, 6))] * 2
        + [(1, (0,)), (1, (4,))]
        + [(2, (0, 4))] * 2
        + [(2, (0,))] * 2
    )


# --------------------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    "params,key",
    [
        ({}, "m"),
        ({"m": 1}, "m"),
        ({"m": 6}, "m"),
        ({"m": True}, "m"),
        ({"m": 4.0}, "m"),
        ({"m": -4}, "m"),
        ({"m": 4, "T": 0}, "T"),
        ({"m": 4, "T": 1.5}, "T"),
        ({"m": 4, "T": True}, "T"),
        ({"m": 4, "T": "2"}, "T"),
        ({"m": 4, "streams": "yes"}, "streams"),
        ({"m": 4, "streams": 1}, "streams"),
        ({"m": 4, "K": 2}, "K"),
    ],
)
def test_parameter_errors_name_the_parameter(params, key):
    with pytest.raises(ParameterError, match=f"'{key}'"):
        AnrFlow(**params)


def test_too_many_jobs_is_refused():
    with pytest.raises(ParameterError, match="'m'.*'T'"):
        AnrFlow(m=2**20, T=4)
    assert AnrFlow.job_count(2**19, 2, True) <= MAX_JOBS
    AnrFlow(m=2**19, T=2, streams=True)  # the largest allowed power of two with T = 2
    AnrFlow(m=np.int64(4), T=np.int64(2))  # numpy integers are integers


# --------------------------------------------------------------------------- registered algorithms
@pytest.mark.parametrize("streams", [False, True])
def test_registered_maxflow_algorithms_if_present(streams):
    """mft-unit stays ≤ its cap ⌈T/ε⌉; ll-fifo (immediate dispatch, speed 1 + ε) reaches the forced bound."""
    names = set(algorithm_names())
    if not {"mft-unit", "ll-fifo"} & names:
        pytest.skip("no maxflow algorithm registered")
    T, eps = 2, 0.5
    for K in (1, 3, 6):
        m = 2**K
        params = {"m": m, "T": T, "streams": streams}
        if "mft-unit" in names:
            res = schedbench.run_adversary("anr-flow", "mft-unit", eps=eps, adversary_params=params, solve=False)
            assert res.valid and res.status == "ok", res.errors
            assert res.objective <= math.ceil(T / eps) and res.rejected_frac_max_prefix <= eps
        if "ll-fifo" in names:
            res = schedbench.run_adversary("anr-flow", "ll-fifo", eps=eps, adversary_params=params, solve=False)
            assert res.valid and res.status == "ok" and res.rejected_frac == 0, res.errors
            assert res.objective >= AnrFlow.forced_max_flow(m, T, streams, 1 + eps) - 1e-9
