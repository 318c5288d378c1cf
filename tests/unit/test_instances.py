"""Instance families: determinism, the distribution they claim, parameter errors."""

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import schedbench
from schedbench.scheduling.instances import random_restricted as rr_module
from schedbench.scheduling.offline import trivial_bound
from schedbench.scheduling.instances.base import FamilyParameterError
from schedbench.scheduling.registry import get_family

RR = get_family("random-restricted")


def test_same_seed_same_instance_other_index_other_instance():
    a = RR.make(4, 99, m=10, n=50, d=3, sizes="pow2", arrivals="poisson", rate=3.0)
    b = RR.make(4, 99, m=10, n=50, d=3, sizes="pow2", arrivals="poisson", rate=3.0)
    c = RR.make(5, 99, m=10, n=50, d=3, sizes="pow2", arrivals="poisson", rate=3.0)
    for f in ("release", "size", "indices"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert not np.array_equal(a.indices, c.indices)
    assert a.meta == {
        "family": "random-restricted",
        "index": 4,
        "base_seed": 99,
        "params": {
            "m": 10,
            "n": 50,
            "d": 3,
            "sizes": "pow2",
            "max_size_exp": 4,
            "pareto_shape": 1.1,
            "max_size": 1024,
            "arrivals": "poisson",
            "rate": 3.0,
            "load": None,
            "hot_fraction": 0.0,
            "hot_machines": 0.1,
            "weights": "none",
            "weight_max": 16.0,
            "reject_weights": "one",
        },
    }


def test_eligible_sets_are_d_distinct_machines_uniformly_spread():
    for d, m in ((2, 50), (20, 25)):  # sparse (redraw) and dense (permutation) paths
        inst = RR.make(0, 1, m=m, n=4000, d=d)
        rows = inst.indices.reshape(inst.n, d)
        assert (np.diff(rows, axis=1) > 0).all()  # sorted and distinct
        counts = np.bincount(inst.indices, minlength=m)
        # each machine appears with probability d/m per job: chi-square goodness of fit
        assert stats.chisquare(counts).pvalue > 1e-4


def test_pow2_sizes_and_poisson_batches():
    inst = RR.make(0, 2, m=5, n=20000, d=1, sizes="pow2", max_size_exp=3, arrivals="poisson", rate=7.5)
    assert set(np.unique(inst.size)) == {1, 2, 4, 8}
    assert (np.diff(inst.release) >= 0).all()
    batch = np.bincount(inst.release)[:-1]  # the last batch is truncated at n
    assert abs(batch.mean() - 7.5) < 4 * np.sqrt(7.5 / batch.size)
    assert abs(batch.var() / batch.mean() - 1.0) < 0.1  # Poisson: variance = mean


def test_zero_arrivals_and_unit_sizes_by_default():
    inst = RR.make(0, 2, m=4, n=10)
    assert (inst.release == 0).all() and (inst.size == 1).all() and np.diff(inst.indptr).tolist() == [2] * 10


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(m=4, n=10, dd=2), "has no parameter 'dd'"),
        (dict(m=4, n=10, d=5), "'d' = 5 exceeds 'm' = 4"),
        (dict(m=4, n=10, sizes="big"), "parameter 'sizes' must be one of"),
        (dict(m=4, n=0), "parameter 'n' must be >= 1"),
        (dict(m=4.5, n=10), "parameter 'm' must be int"),
        (dict(n=10), "parameter 'm' is required"),
        (dict(m=4, n=10, d="all", sizes="big"), "parameter 'sizes' must be one of"),
        (dict(m=4, n=10, d=0), "parameter 'd' must be >= 1, got 0"),
        (
            dict(m=4, n=10, d="most"),
            "parameter 'd' must be an int >= 1 or one of \\['log', 'half', 'all'\\], got 'most'",
        ),
        (dict(m=4, n=10, d=2.0), "parameter 'd' must be int/str"),
        (dict(m=4, n=10, sizes="pareto", pareto_shape=0.0), "parameter 'pareto_shape' must be > 0"),
        (dict(m=4, n=10, sizes="pareto", max_size=0), "parameter 'max_size' must be >= 1"),
        (dict(m=4, n=10, hot_fraction=1.0), "parameter 'hot_fraction' must be in \\[0, 1\\)"),
        (dict(m=4, n=10, hot_fraction=-0.1), "parameter 'hot_fraction' must be >= 0"),
        (dict(m=4, n=10, hot_fraction=0.5, hot_machines=0.0), "parameter 'hot_machines' must be in \\(0, 1\\]"),
        (dict(m=4, n=10, hot_fraction=0.5, hot_machines=1.5), "parameter 'hot_machines' must be in \\(0, 1\\]"),
        # parameters that do not apply to the chosen setting (only non-default values are caught)
        (dict(m=4, n=10, max_size_exp=5), "parameter 'max_size_exp' = 5 does not apply to sizes='unit'"),
        (
            dict(m=4, n=10, sizes="pareto", max_size_exp=5),
            "parameter 'max_size_exp' = 5 does not apply to sizes='pareto'",
        ),
        (dict(m=4, n=10, pareto_shape=2.0), "parameter 'pareto_shape' = 2.0 does not apply to sizes='unit'"),
        (dict(m=4, n=10, sizes="pow2", max_size=64), "parameter 'max_size' = 64 does not apply to sizes='pow2'"),
        (dict(m=4, n=10, rate=3.0), "parameter 'rate' = 3.0 does not apply to arrivals='zero'"),
        (dict(m=4, n=10, hot_machines=0.5), "parameter 'hot_machines' = 0.5 does not apply to hot_fraction=0.0"),
    ],
)
def test_bad_family_parameters_are_named(params, message):
    with pytest.raises(FamilyParameterError, match=message):
        RR.make(0, 0, **params)


def test_anr_tree_structure():
    inst = get_family("anr-tree").make(0, 0, K=3)
    rows = [inst.eligible(j).tolist() for j in range(inst.n)]
    assert rows == [[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [4, 6], [0, 4], [0]]


# --- d rules, pareto sizes, hot subsets ----------------------------------------------------------


def rows_of(inst):
    d = np.diff(inst.indptr)
    assert (d == d[0]).all()
    return inst.indices.reshape(inst.n, d[0])


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 8, 16, 17, 64, 100])
@pytest.mark.parametrize(
    "rule, expected",
    [
        ("log", lambda m: max(1, math.ceil(math.log2(m)))),
        ("half", lambda m: max(1, m // 2)),
        ("all", lambda m: m),
    ],
)
def test_d_rules_give_the_right_d_and_distinct_machines_in_range(m, rule, expected):
    inst = RR.make(0, 7, m=m, n=300, d=rule)
    d = expected(m)
    assert np.diff(inst.indptr).tolist() == [d] * inst.n
    rows = rows_of(inst)
    assert rows.min() >= 0 and rows.max() < m
    assert (np.diff(rows, axis=1) > 0).all()  # sorted and distinct
    if rule == "all":
        assert (rows == np.arange(m)).all()  # d = m: every machine
    # a rule is just a name for its int: same instance as the int d
    same = RR.make(0, 7, m=m, n=300, d=d)
    np.testing.assert_array_equal(inst.indices, same.indices)


def test_d_rule_values():
    assert [rr_module.resolve_d("log", m) for m in (1, 2, 3, 4, 5, 1024, 1025)] == [1, 1, 2, 2, 3, 10, 11]
    assert [rr_module.resolve_d("half", m) for m in (1, 2, 3, 9)] == [1, 1, 1, 4]
    assert rr_module.resolve_d(3, 9) == 3


def subset_chisquare(rows, m, d):
    counts = {}
    for row in map(tuple, rows):
        counts[row] = counts.get(row, 0) + 1
    assert set(counts) <= set(itertools.combinations(range(m), d))
    observed = [counts.get(c, 0) for c in itertools.combinations(range(m), d)]
    return stats.chisquare(observed).pvalue


@pytest.mark.parametrize("m, d", [(6, 3), (6, 6), (12, 3), (9, 2)])  # dense, d = m, sparse, sparse
def test_random_subsets_are_uniform_over_all_d_subsets(m, d):
    rows = rr_module.random_subsets(np.random.default_rng(3), 30000, m, d)
    assert (np.diff(rows, axis=1) > 0).all()
    if d == m:
        assert (rows == np.arange(m)).all()
    else:
        assert subset_chisquare(rows, m, d) > 1e-4


def test_dense_fallback_when_rejection_would_not_finish(monkeypatch):
    # m = 1024, d = 256: a sparse row is accepted with probability ~1e-14; the dense path is used
    rows = rr_module.random_subsets(np.random.default_rng(0), 200, 1024, 256)
    assert rows.shape == (200, 256) and (np.diff(rows, axis=1) > 0).all() and rows.max() < 1024
    assert stats.chisquare(np.bincount(rows.ravel(), minlength=1024)).pvalue > 1e-4
    # the fallback (forced on a sparse case) is uniform over subsets too
    monkeypatch.setattr(rr_module, "_MAX_EXPECTED_ROWS", 0.0)
    assert subset_chisquare(rr_module.random_subsets(np.random.default_rng(4), 30000, 12, 3), 12, 3) > 1e-4


def test_dense_path_in_blocks_draws_the_same_stream(monkeypatch):
    whole = rr_module.random_subsets(np.random.default_rng(9), 500, 8, 6)
    monkeypatch.setattr(rr_module, "_DENSE_CHUNK", 8 * 7)  # 7 rows per block
    np.testing.assert_array_equal(rr_module.random_subsets(np.random.default_rng(9), 500, 8, 6), whole)


def pareto_cdf(x, a, h):
    """CDF of the bounded Pareto on [1, h]; the rounded-up size S has P(S <= k) = F(k)."""
    return (1 - np.asarray(x, dtype=float) ** -a) / (1 - float(h) ** -a)


@pytest.mark.parametrize("a, h", [(1.1, 1024), (0.5, 50), (2.5, 8), (1.1, 2)])
def test_pareto_sizes_follow_the_rounded_bounded_pareto(a, h):
    N = 20000
    inst = RR.make(0, 11, m=4, n=N, d=1, sizes="pareto", pareto_shape=a, max_size=h)
    s = inst.size
    assert s.dtype.kind == "i" and s.min() >= 1 and s.max() <= h
    assert RR.unit_sizes(dict(m=4, n=N, sizes="pareto")) is False
    ks = np.arange(1, h + 1)
    ecdf = np.searchsorted(np.sort(s), ks, side="right") / N
    # KS distance to the exact CDF of the rounded variable; DKW: P(> 0.015) <= 2 exp(-2 N 0.015^2) ~ 3e-4
    assert np.abs(ecdf - pareto_cdf(ks, a, h)).max() < 0.015
    # tail at a few points, relative error (P(S > x) = 1 - F(x))
    for x in {2, 4, h // 4, h // 2}:
        if 1 <= x < h:
            tail = 1 - pareto_cdf(x, a, h)
            se = math.sqrt(tail * (1 - tail) / N)
            assert abs((s > x).mean() - tail) < 5 * se + 1e-12
    assert (s == 1).sum() == 0  # ⌈X⌉ with X continuous on [1, h]: size 1 has probability 0


def test_pareto_with_max_size_one_is_unit_valued_and_formula_endpoints():
    inst = RR.make(0, 1, m=3, n=100, sizes="pareto", max_size=1)
    assert (inst.size == 1).all()

    # u = 0 gives X = 1, u -> 1 gives X -> H (clipped to H)
    class Fixed:
        def random(self, n):
            return np.array([0.0, 1.0 - 2.0**-53, 0.5])[:n]

    s = rr_module.pareto_sizes(Fixed(), 3, 1.1, 1024)
    assert s[0] == 1 and s[1] == 1024
    assert s[2] == math.ceil((1 - 0.5 * (1 - 1024**-1.1)) ** (-1 / 1.1))


def test_sized_predicate():
    assert RR.unit_sizes(dict(m=4, n=10)) is True
    assert RR.unit_sizes(dict(m=4, n=10, d="log", hot_fraction=0.3)) is True
    assert RR.unit_sizes(dict(m=4, n=10, sizes="pow2")) is False
    assert RR.unit_sizes(dict(m=4, n=10, sizes="pareto")) is False


def test_hot_set_size():
    assert [rr_module.hot_set_size(0.1, m) for m in (1, 5, 10, 16, 30, 31)] == [1, 1, 1, 2, 3, 4]
    assert rr_module.hot_set_size(1.0, 7) == 7


@pytest.mark.parametrize("m, d, hot_machines, hf", [(20, 2, 0.25, 0.3), (16, 2, 0.1, 0.5), (20, 3, 0.1, 0.4)])
def test_hot_subsets_fraction_inside_the_hot_set(m, d, hot_machines, hf):
    N = 20000
    inst = RR.make(0, 5, m=m, n=N, d=d, hot_fraction=hf, hot_machines=hot_machines)
    rows = rows_of(inst)
    assert rows.shape == (N, d) and (np.diff(rows, axis=1) > 0).all() and rows.max() < m
    h = rr_module.hot_set_size(hot_machines, m)
    if d <= h:  # hot job: d of the h hot machines; a uniform job lands there by chance C(h,d)/C(m,d)
        inside = (rows < h).all(axis=1)
        p = hf + (1 - hf) * math.comb(h, d) / math.comb(m, d)
    else:  # hot job: the whole hot set plus d - h others; by chance C(m-h, d-h)/C(m, d)
        inside = (rows[:, :h] == np.arange(h)).all(axis=1)
        p = hf + (1 - hf) * math.comb(m - h, d - h) / math.comb(m, d)
        assert (rows[inside][:, h:] >= h).all()
    assert abs(inside.mean() - p) < 4 * math.sqrt(p * (1 - p) / N)


def test_hot_fraction_zero_is_the_uniform_family():
    a = RR.make(2, 8, m=12, n=100, d=3, sizes="pow2", hot_fraction=0.0)
    b = RR.make(2, 8, m=12, n=100, d=3, sizes="pow2")
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.size, b.size)


@pytest.mark.parametrize("seed", range(5))
def test_hot_subsets_make_opt_exceed_the_trivial_bound(seed):
    # m = 16, hot_machines = 0.1 -> hot set {0, 1}; with d = 2 every hot job can run only on
    # machines 0 and 1. About n/2 = 100 jobs are hot (Binomial(200, 0.5)), so OPT >= ⌈#hot/2⌉
    # ~ 50, far above ⌈n/m⌉ = 13; OPT = 13 would need at most 26 hot jobs (probability < 1e-20).
    p = dict(m=16, n=200, d=2, sizes="unit", hot_fraction=0.5)
    inst = RR.make(seed, 20261129, **p)
    opt = schedbench.opt_makespan(inst, time_limit=10)
    assert opt.status == "optimal"
    n_hot = int((rows_of(inst) < 2).all(axis=1).sum())
    assert trivial_bound(inst) == math.ceil(200 / 16) == 13
    assert opt.value >= math.ceil(n_hot / 2) > 13
    # the same jobs with uniform eligibility: OPT is the trivial bound (the reason for this family)
    uniform = RR.make(seed, 20261129, **{**p, "hot_fraction": 0.0})
    assert schedbench.opt_makespan(uniform, time_limit=10).value == 13
