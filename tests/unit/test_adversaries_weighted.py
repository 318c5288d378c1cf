"""The weighted-problem adversaries: LB-C (spec §6.3, both instantiations), pairing with streams
(§6.4, ours) and the Section-4 example (§6.5). The realised instances' structure; the claimed
OPT proven exactly by a brute force written here (assignments enumerated — exhaustively on tiny
instances, by backtracking with symmetry breaking on small ones — and preemptive EDF per
machine with deadlines r + T/w, T searched over the candidates w_j·(C − r_j), C an integer);
the validator's verdict against test-local algorithms; the Section-4 rejected fractions.

The algorithms are test-local OnlineAlgorithm subclasses passed as classes, never registered
(registered algorithms for these problems are being written elsewhere and are not used here):
algorithm A's dispatch and queue limit (spec §4.2) with two processing rules — smallest
remaining job first across queues (SRPT) and A's max load/size rule — and a plain
least-remaining-work dispatcher that rejects nothing."""

import bisect
import heapq
import itertools
import math
import sys

import numpy as np
import pytest

import schedbench
from schedbench.scheduling.adversaries import pairing_streams, section4
from schedbench.scheduling.adversaries.lb_b import job_count as lb_b_job_count
from schedbench.scheduling.algorithms.base import OnlineAlgorithm, Param, ParameterError, SlotPlan
from schedbench.scheduling.model import REJECT, Instance
from schedbench.scheduling.play import execute
from schedbench.scheduling.problems import get_problem
from schedbench.scheduling.registry import adversary_names, algorithm_names, get_adversary


# --------------------------------------------------------------------------- test-local algorithms
def job_class(size, w):
    """(a, b): a = ⌈log₂ p⌉, b = ⌊log₂ w⌋ (spec §1.3)."""
    return (int(size) - 1).bit_length(), math.frexp(w)[1] - 1


class ClassSrpt(OnlineAlgorithm):
    """Algorithm A's dispatch and queue limit (spec §4.2): class (a, b); the eligible machine of
    least load in the job's own class queue (remaining work, ties: lowest index); reject on
    arrival when that load + p_j > α·T/2^b, α = 1/ε. With ``guard`` a rejection the budget
    cannot pay is an acceptance instead. Processing: smallest remaining job first across the
    machine's queues (ties: release, id), re-decided every slot."""

    name = "test-class-ll-srpt"
    problem = "wtdmaxflow"
    problems = ("genwtd",)
    model = "rejection"
    needs_opt = True
    parameters = {"guard": Param(False, (False, True))}
    reference = "test only"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.cls = {}
        self.counters = {"guard_fires": 0}

    def class_load(self, view, i, c):
        return sum(view.remaining(j) for j in view.queue(i) if self.cls[j] == c)

    def on_arrival(self, job, view):
        c = self.cls[job.id] = job_class(job.size, job.w_flow)
        i = min(job.eligible.tolist(), key=lambda k: (self.class_load(view, k, c), k))
        if self.class_load(view, i, c) + job.size > self.opt / self.eps / 2 ** c[1] + 1e-9:
            weight = get_problem(self.problem).budget_weight_of(job.w_flow, job.w_reject)
            if not self.params["guard"] or view.budget_left >= weight - 1e-9:
                return REJECT
            self.counters["guard_fires"] += 1
        return i

    def order(self, view, q):
        return sorted(q, key=lambda j: (view.remaining(j), view.job(j).release, j))

    def on_slot(self, view):
        plan = SlotPlan()
        for i in range(view.m):
            q = view.queue(i)
            if q:
                plan.priority[i] = self.order(view, q)
        plan.wake_at = view.time + 1 if plan.priority else None
        return plan


class ClassMaxLoadOverSize(ClassSrpt):
    """The same dispatch and limit; processing: the class queue maximising load·2^b/2^a (ties:
    larger b, then smaller a), FIFO inside it (spec §4.2, algorithm A)."""

    name = "test-class-ll-maxls"

    def order(self, view, q):
        load = {}
        for j in q:
            load[self.cls[j]] = load.get(self.cls[j], 0.0) + view.remaining(j)
        best = max(load, key=lambda c: (load[c] * 2.0 ** c[1] / 2.0 ** c[0], c[1], -c[0]))
        first = sorted((j for j in q if self.cls[j] == best), key=lambda j: (view.job(j).release, j))
        return first + [j for j in q if self.cls[j] != best]


class LeastWork(OnlineAlgorithm):
    """Immediate dispatch to the eligible machine of least remaining work (ties: lowest index),
    FIFO; rejects nothing."""

    name = "test-least-work"
    problem = "wtdmaxflow"
    problems = ("genwtd",)
    model = "plain"
    reference = "test only"

    def on_arrival(self, job, view):
        return min(job.eligible.tolist(), key=lambda i: (view.remaining_work(i), i))


class LeastWorkFast(LeastWork):
    """The same at speed 1 + ε."""

    name = "test-least-work-speed"
    model = "speed"


class HighestIndex(LeastWork):
    """Immediate dispatch to the highest eligible index."""

    name = "test-highest-index-w"

    def on_arrival(self, job, view):
        return int(job.eligible.max())


REJECTING = [ClassSrpt, ClassMaxLoadOverSize]


def play(adversary, alg, eps=None, algorithm_params=None, **params):
    eps = None if alg.model == "plain" else eps
    return schedbench.run_adversary(
        adversary, alg, eps=eps, adversary_params=params, algorithm_params=algorithm_params, solve=False
    )


# --------------------------------------------------------------------------- brute-force OPT
def jobs_of(inst):
    return [(int(inst.release[j]), int(inst.size[j]), float(inst.w_flow[j])) for j in range(inst.n)]


def edf_meets(jobs, T):
    """Whether preemptive EDF on one machine, deadlines r + T/w, meets every deadline (EDF is
    optimal for this question on one machine)."""
    jobs = sorted(jobs)
    heap, t, k, n = [], 0.0, 0, len(jobs)
    while k < n or heap:
        if not heap:
            t = max(t, jobs[k][0])
        while k < n and jobs[k][0] <= t:
            r, p, w = jobs[k]
            heapq.heappush(heap, [r + T / w, k, p])
            k += 1
        d, _, rem = heap[0]
        nxt = jobs[k][0] if k < n else math.inf
        if t + rem <= nxt:
            heapq.heappop(heap)
            t += rem
            if t > d + 1e-9:
                return False
        else:
            heap[0][2] = rem - (nxt - t)
            t = nxt
    return True


def candidates(inst):
    """Every value OPT can take: w_j·(C − r_j) with C an integer completion time. (On one
    machine some interval constraint is tight at the optimum: r_b + T/w_b − r_a = Σ p, so
    T = w_b·(C − r_b) with C = r_a + Σ p an integer.)"""
    horizon = int(inst.release.max()) + int(inst.size.sum())
    return sorted({w * (C - r) for r, _, w in jobs_of(inst) for C in range(r + 1, horizon + 1)})


def machine_opt(jobs, cands):
    """Least T in ``cands`` that EDF meets (feasibility is monotone in T)."""
    lo, hi = 0, len(cands) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if edf_meets(jobs, cands[mid]) else (mid + 1, hi)
    return cands[lo]


def exhaustive_opt(inst):
    """min over every assignment of the max over machines of the machine's least feasible T."""
    jobs, cands = jobs_of(inst), candidates(inst)
    best = math.inf
    for choice in itertools.product(*(inst.eligible(j).tolist() for j in range(inst.n))):
        per = {}
        for job, i in zip(jobs, choice):
            per.setdefault(i, []).append(job)
        worst = 0.0
        for on in per.values():
            if worst >= best:
                break
            if not edf_meets(on, worst):
                worst = machine_opt(on, cands)
        best = min(best, worst)
    return best


def feasible(inst, T):
    """Whether some assignment lets EDF meet every deadline r + T/w on every machine:
    backtracking over the jobs, most constrained first, pruning a machine as soon as its
    partial set misses a deadline (adding jobs never helps), and trying only one of several
    machines that hold the same jobs and are eligible for the same remaining jobs."""
    jobs = jobs_of(inst)
    order = sorted(range(inst.n), key=lambda j: (inst.eligible(j).size, j))
    sets = [inst.eligible(j).tolist() for j in order]
    mask = [0] * inst.m
    for k, s in enumerate(sets):
        for i in s:
            mask[i] |= 1 << k
    on = [[] for _ in range(inst.m)]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * inst.n + 100))

    def place(k):
        if k == len(order):
            return True
        tried = set()
        for i in sets[k]:
            key = (tuple(sorted(on[i])), mask[i] >> (k + 1))
            if key in tried:
                continue
            tried.add(key)
            on[i].append(jobs[order[k]])
            if edf_meets(on[i], T) and place(k + 1):
                return True
            on[i].pop()
        return False

    return place(0)


def assert_opt_exact(inst, claim):
    """OPT = claim: feasible at the claim, infeasible at the largest candidate below it (OPT is a
    candidate and feasibility is monotone in T)."""
    cands = candidates(inst)
    assert claim in cands
    assert feasible(inst, claim)
    below = cands[bisect.bisect_left(cands, claim) - 1] if cands[0] < claim else None
    assert below is None or not feasible(inst, below)


def test_brute_force_on_hand_made_weighted_instances():
    def inst(m, rows):  # rows: (release, size, eligible, w)
        indptr = np.r_[0, np.cumsum([len(e) for _, _, e, _ in rows])].astype(np.int64)
        return Instance(
            m,
            np.array([r for r, *_ in rows]),
            np.array([p for _, p, *_ in rows]),
            indptr,
            np.concatenate([e for _, _, e, _ in rows]).astype(np.int64),
            np.array([w for *_, w in rows], dtype=float),
            np.ones(len(rows)),
        )

    # one machine, w = 3 and w = 1 at 0: the heavy one first, 3·1 vs 1·2 → 3
    a = inst(1, [(0, 1, [0], 3.0), (0, 1, [0], 1.0)])
    # real-valued: p = 2, w = 1.5 and p = 1, w = 1: heavy first gives max(3, 3) = 3
    b = inst(1, [(0, 2, [0], 1.5), (0, 1, [0], 1.0)])
    # w = 0.5 with preemption: a long light job released first, a heavy unit job at 1
    c = inst(1, [(0, 3, [0], 0.5), (1, 1, [0], 4.0)])  # heavy at once: 4·1 = 4, light 0.5·4 = 2
    # two machines, a choice: the heavy size-2 job alone, the two unit jobs together
    d = inst(2, [(0, 2, [0, 1], 2.0), (0, 1, [0, 1], 1.0), (0, 1, [0, 1], 1.0)])
    for x, want in ((a, 3.0), (b, 3.0), (c, 4.0), (d, 4.0)):
        assert exhaustive_opt(x) == pytest.approx(want)
        assert_opt_exact(x, want)
    assert not edf_meets(jobs_of(b), 2.9) and edf_meets(jobs_of(b), 3.0)


@pytest.mark.parametrize("seed", range(40))
def test_brute_force_search_agrees_with_the_exhaustive_one(seed):
    """The backtracking search (symmetry breaking, pruning) against plain enumeration, on random
    tiny weighted instances with real-valued optima."""
    rng = np.random.default_rng(seed)
    m, n = int(rng.integers(1, 4)), int(rng.integers(1, 7))
    elig = [np.sort(rng.choice(m, size=int(rng.integers(1, m + 1)), replace=False)) for _ in range(n)]
    inst = Instance(
        m,
        np.sort(rng.integers(0, 4, n)),
        rng.integers(1, 4, n),
        np.r_[0, np.cumsum([e.size for e in elig])].astype(np.int64),
        np.concatenate(elig).astype(np.int64),
        rng.choice([0.5, 1.0, 1.5, 2.0, 3.0], n),
        np.ones(n),
    )
    assert_opt_exact(inst, exhaustive_opt(inst))


# --------------------------------------------------------------------------- contract
def test_registered_with_the_contract():
    assert {"lb-c", "pairing-streams", "section4"} <= set(adversary_names())
    for name, problem, rule in (
        ("lb-c", "wtdmaxflow", "R"),
        ("pairing-streams", "wtdmaxflow", "R"),
        ("section4", "wtdmaxflow", "Q"),
    ):
        cls = get_adversary(name)
        assert cls.name == name and cls.problem == problem and cls.rule_label == rule and cls.reference
        doc = sys.modules[cls.__module__].__doc__
        assert "OPT" in doc and "exactly" in doc and "forces" in doc
    ref = get_adversary("pairing-streams").reference
    assert "ours" in ref and "NOT" in ref and "Thm 8.3" in ref
    assert "§6.3" in get_adversary("lb-c").reference and "§6.5" in get_adversary("section4").reference
    assert not {c.name for c in (ClassSrpt, ClassMaxLoadOverSize, LeastWork, LeastWorkFast, HighestIndex)} & set(
        algorithm_names()
    )


# --------------------------------------------------------------------------- LB-C
def lbc(alg, eps=0.25, **params):
    return play("lb-c", alg, eps=eps, **params)


@pytest.mark.parametrize("K,g,n1", [(1, 2, 1), (2, 2, 1), (2, 4, 2), (3, 2, 1), (3, 8, 1), (4, 4, 1)])
def test_lb_c_sizes_structure(K, g, n1):
    res = lbc(LeastWork, K=K, g=g, n1=n1)
    inst, S = res.instance, n1 * g ** (K - 1)
    assert res.valid and res.status == "ok" and res.problem == "wtdmaxflow"
    assert inst.m == 2**K and res.claimed_opt == S
    assert inst.n == lb_b_job_count(K, g, n1) and np.all(inst.release == 0)
    assert np.all(inst.w_flow == 1) and np.all(inst.w_reject == 1)
    # round r: 2^(K−r) pairs × n1·g^(r−1) jobs of size g^(K−r); then one job of size S on one machine
    k = 0
    for r in range(1, K + 1):
        count = 2 ** (K - r) * n1 * g ** (r - 1)
        assert np.all(inst.size[k : k + count] == g ** (K - r))
        assert all(inst.eligible(j).size == 2 for j in range(k, k + count))
        k += count
    assert k == inst.n - 1 and inst.size[-1] == S and inst.eligible(inst.n - 1).size == 1
    # no rejection: every pair good, the last survivor carries K·S/2 + S at least (S in round 1 with n1 = 1)
    assert res.objective >= K * S / 2 + S
    if n1 == 1 and g % 2 == 0:
        assert res.objective == S + (K - 1) * S / 2 + S


@pytest.mark.parametrize("K,T,g", [(1, 1, 2), (1, 3, 4), (2, 2, 8), (3, 3, 4), (4, 4, 8)])
def test_lb_c_weights_structure(K, T, g):
    res = lbc(LeastWork, instantiation="weights", K=K, T=T, g=g)
    inst = res.instance
    assert res.valid and res.status == "ok" and res.problem == "genwtd"
    assert inst.m == 2**K and res.claimed_opt == T and inst.n == T * 2**K
    assert np.all(inst.release == 0) and np.all(inst.size == 1) and np.all(inst.w_flow == 1)
    k = 0
    for r in range(1, K + 1):
        count = 2 ** (K - r) * T
        assert np.all(inst.w_reject[k : k + count] == float(g) ** (r - 1))
        assert all(inst.eligible(j).size == 2 for j in range(k, k + count))
        k += count
    assert np.all(inst.w_reject[k:] == float(g) ** K) and inst.n - k == T
    assert len({tuple(inst.eligible(j).tolist()) for j in range(k, inst.n)}) == 1
    assert res.objective == K * math.ceil(T / 2) + T  # least work splits each pair evenly


def test_lb_c_pairs_form_a_tournament_and_follow_the_algorithm():
    adv = get_adversary("lb-c")(instantiation="weights", K=3, T=2)
    res = execute(HighestIndex, adv)
    assert adv.history == [(1, 4, 4), (2, 2, 2), (3, 1, 1)]
    pairs = [tuple(res.instance.eligible(j).tolist()) for j in range(res.instance.n - 2)]
    assert pairs[::2] == [(0, 1), (2, 3), (4, 5), (6, 7), (1, 3), (5, 7), (3, 7)]  # upper members survive
    assert res.instance.eligible(res.instance.n - 1).tolist() == [7]


@pytest.mark.parametrize("alg", [LeastWork, HighestIndex])
@pytest.mark.parametrize("K,g,n1", [(1, 2, 1), (1, 3, 2), (2, 2, 1), (2, 3, 1), (2, 2, 2)])
def test_lb_c_sizes_opt_exhaustive(K, g, n1, alg):
    res = lbc(alg, K=K, g=g, n1=n1)
    assert res.instance.n <= 10
    assert exhaustive_opt(res.instance) == res.claimed_opt == n1 * g ** (K - 1)


@pytest.mark.parametrize("alg", [LeastWork, HighestIndex])
@pytest.mark.parametrize("K,T", [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2)])
def test_lb_c_weights_opt_exhaustive(K, T, alg):
    res = lbc(alg, instantiation="weights", K=K, T=T)
    assert res.instance.n <= 10
    assert exhaustive_opt(res.instance) == res.claimed_opt == T


@pytest.mark.parametrize("alg,eps", [(LeastWork, None), (ClassSrpt, 0.25), (ClassMaxLoadOverSize, 0.5)])
@pytest.mark.parametrize(
    "params",
    [
        dict(K=3, g=2),
        dict(K=3, g=4),
        dict(K=2, g=3, n1=2),
        dict(instantiation="weights", K=3, T=2),
        dict(instantiation="weights", K=2, T=4, g=4),
    ],
)
def test_lb_c_opt_exact_by_backtracking(params, alg, eps):
    res = lbc(alg, eps=eps, algorithm_params={"guard": True} if eps else None, **params)
    assert res.valid and res.status == "ok", res.errors
    assert_opt_exact(res.instance, res.claimed_opt)
    # every flow weight is 1: the unweighted exact solver must agree
    opt = schedbench.scheduling.offline.opt_max_flow(res.instance)
    assert opt.status == "optimal" and opt.value == res.claimed_opt


@pytest.mark.parametrize("alg", REJECTING)
@pytest.mark.parametrize("guard", [False, True])
@pytest.mark.parametrize("eps", [0.5, 0.25, 0.1])
@pytest.mark.parametrize(
    "params",
    [
        dict(K=4, g=4),
        dict(K=3, g=8, n1=2),
        dict(instantiation="weights", K=4, T=4, g=8),
        dict(instantiation="weights", K=5, T=8, g=4),
    ],
)
def test_lb_c_validator_ok_for_immediate_reject_rules(params, eps, guard, alg):
    res = lbc(alg, eps=eps, algorithm_params={"guard": guard}, **params)
    if guard:
        assert res.valid and res.status == "ok", res.errors
    else:  # the queue limit alone may overspend; anything else would be a broken outcome
        assert res.status in ("ok", "budget_violated"), res.errors
    assert res.problem == ("genwtd" if params.get("instantiation") == "weights" else "wtdmaxflow")
    S = params.get("n1", 1) * params["g"] ** (params["K"] - 1)
    assert res.claimed_opt == (params["T"] if "T" in params else S)


def test_lb_c_weights_budget_counts_rejection_weight():
    # the genwtd validator charges w^r: a rejected final job (w^r = g^K) costs g^K
    res = lbc(ClassSrpt, eps=0.5, algorithm_params={"guard": True}, instantiation="weights", K=3, T=2, g=4)
    inst, out = res.instance, res.outcome
    w = inst.w_reject
    assert res.rejected_frac == pytest.approx(w[out.rejected].sum() / w.sum())


def test_lb_c_problem_follows_the_instantiation():
    adv = get_adversary("lb-c")
    assert adv.problem_for({}) == "wtdmaxflow" and adv.problem_for({"instantiation": "weights"}) == "genwtd"
    a, b = adv(K=2), adv(instantiation="weights", K=2)
    assert (a.problem, a.unit_sizes, b.problem, b.unit_sizes) == ("wtdmaxflow", False, "genwtd", True)
    with pytest.raises(ParameterError, match="builds 'genwtd'"):
        execute(LeastWork, adv(instantiation="weights", K=2), problem="wtdmaxflow")


@pytest.mark.parametrize(
    "params,key",
    [
        (dict(K=0), "K"),
        (dict(K=2.5), "K"),
        (dict(K=True), "K"),
        (dict(g=1), "g"),
        (dict(n1=0), "n1"),
        (dict(T=0), "T"),
        (dict(instantiation="both"), "instantiation"),
        (dict(T=3), "T"),
        (dict(instantiation="weights", n1=2), "n1"),
        (dict(K=12), "K"),
        (dict(instantiation="weights", K=20), "K"),
        (dict(K=41), "K"),
        (dict(instantiation="weights", K=8, g=10**40), "g"),
        (dict(m=8), "m"),
    ],
)
def test_lb_c_parameter_errors_name_the_parameter(params, key):
    with pytest.raises(ParameterError, match=f"'{key}'"):
        get_adversary("lb-c")(**params)


# --------------------------------------------------------------------------- pairing with streams
@pytest.mark.parametrize("alg", [LeastWork, HighestIndex])
@pytest.mark.parametrize("horizon", ["auto", "K", "long"])
@pytest.mark.parametrize("T", [1, 2, 3])
@pytest.mark.parametrize("m", [2, 4, 8, 16])
def test_pairing_streams_structure(m, T, horizon, alg):
    K = m.bit_length() - 1
    h = {"auto": K + T, "K": K, "long": K + T + 3}[horizon]
    adv = get_adversary("pairing-streams")(m=m, T=T, horizon="auto" if horizon == "auto" else h)
    res = execute(alg, adv)
    inst = res.instance
    assert res.validation.valid and res.validation.status == "ok" and res.claimed_opt == T and inst.m == m
    assert inst.n == pairing_streams.job_count(m, T, h)
    if h >= K - 1 + T:
        assert inst.n == m * h
    assert np.all(inst.size == 1) and np.all(inst.w_flow == 1) and np.all(inst.w_reject == 1)
    assert int(inst.release.max()) == h - 1 and np.all(np.diff(inst.release) >= 0)
    sets = [tuple(inst.eligible(j).tolist()) for j in range(inst.n)]
    # round r at slot r − 1: T jobs for each pair of A_{r−1} (consecutive survivors)
    alive = list(range(m))
    stop = {}  # machine → slot its stream stops (for T slots)
    for r in range(1, K + 1):
        got = [s for j, s in enumerate(sets) if len(s) == 2 and inst.release[j] == r - 1]
        assert got == [(alive[k], alive[k + 1]) for k in range(0, len(alive), 2) for _ in range(T)]
        survivors = adv.history[r - 1]
        assert all(x in pair for x, pair in zip(survivors, got[::T]))
        stop.update({i: r - 1 for i in alive if i not in survivors})
        alive = survivors
    f = alive[0]
    stop[f] = K - 1
    assert len(stop) == m and all(len(s) <= 2 for s in sets)
    # single-machine jobs: the stream (one per slot, stopped for T slots) and the final batch
    for i in range(m):
        for t in range(h):
            n_single = sum(1 for j, s in enumerate(sets) if s == (i,) and inst.release[j] == t)
            stream = not stop[i] <= t < stop[i] + T
            assert n_single == int(stream) + (T if (i, t) == (f, K - 1) else 0)


@pytest.mark.parametrize("alg", [LeastWork, HighestIndex])
@pytest.mark.parametrize("m,T,horizon", [(2, 1, "auto"), (2, 2, "auto"), (2, 3, 1), (4, 1, "auto"), (4, 2, 2)])
def test_pairing_streams_opt_exhaustive(m, T, horizon, alg):
    res = play("pairing-streams", alg, m=m, T=T, horizon=horizon)
    assert sum(inst_choices for inst_choices in np.diff(res.instance.indptr) - 1) <= 12
    assert exhaustive_opt(res.instance) == res.claimed_opt == T


@pytest.mark.parametrize(
    "alg,eps", [(LeastWork, None), (HighestIndex, None), (ClassSrpt, 0.5), (ClassMaxLoadOverSize, 0.25)]
)
@pytest.mark.parametrize("m,T,horizon", [(4, 2, "auto"), (4, 3, 6), (8, 1, "auto"), (8, 2, "auto"), (16, 1, 5)])
def test_pairing_streams_opt_exact_by_backtracking(m, T, horizon, alg, eps):
    res = play(
        "pairing-streams", alg, eps=eps, algorithm_params={"guard": True} if eps else None, m=m, T=T, horizon=horizon
    )
    assert res.valid and res.status == "ok", res.errors
    assert_opt_exact(res.instance, res.claimed_opt)
    opt = schedbench.scheduling.offline.opt_max_flow(res.instance)
    assert opt.status == "optimal" and opt.value == res.claimed_opt == T


@pytest.mark.parametrize(
    "alg,eps", [(LeastWork, None), (LeastWorkFast, 0.0), (LeastWorkFast, 0.5), (HighestIndex, None)]
)
@pytest.mark.parametrize("T", [1, 2, 5])
def test_pairing_streams_forces_log_m_without_rejection(T, alg, eps):
    s = alg.speed_for(eps)
    bounds, objectives = [], []
    for K in range(1, 7):
        res = play("pairing-streams", alg, eps=eps, m=2**K, T=T)
        assert res.valid and res.status == "ok" and res.rejected_frac == 0
        bound = pairing_streams.PairingStreams.forced_max_flow(2**K, T, s)
        assert res.objective >= bound - 1e-9
        if s == 1:
            assert bound == K * math.ceil(T / 2) + T
        bounds.append(bound)
        objectives.append(res.objective)
    assert all(a < b for a, b in zip(bounds, bounds[1:])) and objectives[-1] > objectives[0]


@pytest.mark.parametrize("alg", REJECTING)
@pytest.mark.parametrize("eps", [0.5, 0.25, 0.1])
def test_pairing_streams_validator_ok_for_rejection_rules(eps, alg):
    for K in range(1, 6):
        res = play("pairing-streams", alg, eps=eps, algorithm_params={"guard": True}, m=2**K, T=3, horizon=K + 8)
        assert res.valid and res.status == "ok", res.errors
        assert res.rejected_frac_max_prefix <= eps + 1e-9
        # one class (unit size, unit weight), processed FIFO: the queue limit α·T = T/ε bounds
        # every accepted job's flow by T/ε unless the guard forced acceptances
        if res.counters["guard_fires"] == 0:
            assert res.objective <= 3 / eps + 1e-9


def test_pairing_streams_survivor_is_the_larger_queue():
    adv = get_adversary("pairing-streams")(m=8, T=3)
    execute(HighestIndex, adv)
    assert adv.history == [[1, 3, 5, 7], [3, 7], [7]]
    adv = get_adversary("pairing-streams")(m=8, T=3)
    execute(LeastWork, adv)
    assert adv.history == [[0, 2, 4, 6], [0, 4], [0]]  # least work: the lower member gets ⌈T/2⌉


@pytest.mark.parametrize(
    "params,key",
    [
        (dict(m=3), "m"),
        (dict(m=1), "m"),
        (dict(m=8.0), "m"),
        (dict(T=0), "T"),
        (dict(T=1.5), "T"),
        (dict(m=8, horizon=2), "horizon"),
        (dict(horizon=-1), "horizon"),
        (dict(horizon="long"), "horizon"),
        (dict(horizon=True), "horizon"),
        (dict(m=2**22), "m"),
        (dict(m=1024, horizon=4000), "horizon"),
        (dict(K=3), "K"),
    ],
)
def test_pairing_streams_parameter_errors_name_the_parameter(params, key):
    with pytest.raises(ParameterError, match=f"'{key}'"):
        get_adversary("pairing-streams")(**params)


# --------------------------------------------------------------------------- Section 4
@pytest.mark.parametrize("horizon", [0, 1, 2, 7, 20])
@pytest.mark.parametrize("m", [8, 10])
def test_section4_structure(horizon, m):
    res = play("section4", LeastWork, horizon=horizon, m=m)
    inst = res.instance
    assert res.valid and res.status == "ok" and res.claimed_opt == 2 and inst.m == m
    assert inst.n == section4.job_count(horizon) == 8 + horizon + horizon // 2
    assert np.all(inst.w_flow == 1) and np.all(inst.w_reject == 1)
    every = list(range(m))
    head = [(int(inst.release[j]), int(inst.size[j]), inst.eligible(j).tolist()) for j in range(8)]
    assert head == [(0, 2, every)] * 4 + [(0, 2, [0, 1]), (0, 2, [2, 3]), (0, 2, [0]), (0, 1, every)]
    rest = [(int(inst.release[j]), int(inst.size[j]), inst.eligible(j).tolist()) for j in range(8, inst.n)]
    want = []
    for t in range(1, horizon + 1):
        want.append((t, 1, every))
        if t % 2 == 0:
            want.append((t, 2, [0]))
    assert rest == want


@pytest.mark.parametrize("horizon", [0, 1, 2, 3, 4, 6])
def test_section4_opt_exact_by_backtracking(horizon):
    res = play("section4", LeastWork, horizon=horizon)
    assert_opt_exact(res.instance, 2.0)
    opt = schedbench.scheduling.offline.opt_max_flow(res.instance)
    assert opt.status == "optimal" and opt.value == 2


def test_section4_needs_eight_machines():
    # the same t = 0 jobs on 7 machines: OPT > 2 (why 'm' >= 8)
    res = play("section4", LeastWork, horizon=0)
    inst = res.instance
    keep = [inst.eligible(j)[inst.eligible(j) < 7] for j in range(inst.n)]
    seven = Instance(
        7,
        inst.release,
        inst.size,
        np.r_[0, np.cumsum([k.size for k in keep])].astype(np.int64),
        np.concatenate(keep).astype(np.int64),
        inst.w_flow,
        inst.w_reject,
    )
    assert not feasible(seven, 2.0) and feasible(seven, 3.0)


def test_section4_reproduces_the_spec_numbers():
    """Spec §6.5/§4.2: SRPT across queues rejects ≈ 0.327 by count and 0.488 by volume, the max
    load/size rule nothing (ε = 1/4, T* = 2, cap 4T* = 8). With the spec's sequence up to
    horizon 400: SRPT rejects exactly the {m1} size-2 jobs of t = 4, 6, …, 400 — 199 of 608 jobs
    (0.32730) and 398 of 815 units of volume (0.48834)."""
    srpt = play("section4", ClassSrpt, eps=0.25, horizon=400)
    inst, out = srpt.instance, srpt.outcome
    assert (inst.n, int(inst.size.sum())) == (608, 815)
    rejected = np.flatnonzero(out.rejected)
    assert rejected.size == 199
    assert all(inst.size[j] == 2 and inst.eligible(j).tolist() == [0] for j in rejected)
    assert sorted(inst.release[rejected].tolist()) == list(range(4, 401, 2))
    assert srpt.rejected_frac == pytest.approx(199 / 608) and round(srpt.rejected_frac, 3) == 0.327
    assert srpt.rejected_volume_frac == pytest.approx(398 / 815) and round(srpt.rejected_volume_frac, 3) == 0.488
    assert srpt.status == "budget_violated"  # far above ε = 1/4: the example's point
    # the four size-2 jobs m1 accepted wait behind its size-1 stream until the stream ends
    assert srpt.objective == 400 + 7
    ls = play("section4", ClassMaxLoadOverSize, eps=0.25, horizon=400)
    assert ls.valid and ls.status == "ok" and ls.rejected_frac == 0 and ls.rejected_volume_frac == 0
    # A rejects nothing but does not bound the flow: m1's size-2 queue keeps load/size ≥ 2 > 1,
    # so the size-1 job of t = 0 on m1 waits until the stream ends (B's job, spec §4.3)
    assert ls.objective == 400 + 5


@pytest.mark.parametrize("horizon", [4, 10, 50, 101, 400, 1000])
def test_section4_srpt_rejects_every_m1_job_from_t4(horizon):
    srpt = play("section4", ClassSrpt, eps=0.25, horizon=horizon)
    r = horizon // 2 - 1  # the {m1} size-2 jobs at t = 4, 6, …
    n, vol = section4.job_count(horizon), 15 + horizon + 2 * (horizon // 2)
    assert srpt.outcome.rejected.sum() == r
    assert srpt.rejected_frac == pytest.approx(r / n) and srpt.rejected_volume_frac == pytest.approx(2 * r / vol)
    ls = play("section4", ClassMaxLoadOverSize, eps=0.25, horizon=horizon)
    assert ls.status == "ok" and ls.rejected_frac == 0


def test_section4_guarded_srpt_keeps_the_budget_and_pays_in_flow():
    res = play("section4", ClassSrpt, eps=0.25, algorithm_params={"guard": True}, horizon=400)
    assert res.valid and res.status == "ok" and res.rejected_frac_max_prefix <= 0.25 + 1e-12
    assert res.counters["guard_fires"] > 0 and res.objective > 400


def test_section4_spec_dispatch_annotation():
    """The arrows of spec §6.5 are what A's per-class least load (ties: lowest index) does."""
    res = play("section4", ClassMaxLoadOverSize, eps=0.25, horizon=0)
    assert res.outcome.machine.tolist() == [0, 1, 2, 3, 0, 2, 0, 0]


@pytest.mark.parametrize(
    "params,key",
    [
        (dict(m=7), "m"),
        (dict(m=8.5), "m"),
        (dict(horizon=-1), "horizon"),
        (dict(horizon=1.5), "horizon"),
        (dict(horizon=10**7), "horizon"),
        (dict(horizon=None), "horizon"),
        (dict(rounds=3), "rounds"),
    ],
)
def test_section4_parameter_errors_name_the_parameter(params, key):
    with pytest.raises(ParameterError, match=f"'{key}'"):
        get_adversary("section4")(**params)
