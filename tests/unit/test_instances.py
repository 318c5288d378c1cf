"""Instance families: determinism, the distribution they claim, parameter errors."""

import numpy as np
import pytest
from scipy import stats

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
    assert a.meta == {"family": "random-restricted", "index": 4, "base_seed": 99,
                      "params": {"m": 10, "n": 50, "d": 3, "sizes": "pow2", "max_size_exp": 4,
                                 "arrivals": "poisson", "rate": 3.0}}


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


@pytest.mark.parametrize("params, message", [
    (dict(m=4, n=10, dd=2), "has no parameter 'dd'"),
    (dict(m=4, n=10, d=5), "'d' = 5 exceeds 'm' = 4"),
    (dict(m=4, n=10, sizes="big"), "parameter 'sizes' must be one of"),
    (dict(m=4, n=0), "parameter 'n' must be >= 1"),
    (dict(m=4.5, n=10), "parameter 'm' must be int"),
    (dict(n=10), "parameter 'm' is required"),
])
def test_bad_family_parameters_are_named(params, message):
    with pytest.raises(FamilyParameterError, match=message):
        RR.make(0, 0, **params)


def test_anr_tree_structure():
    inst = get_family("anr-tree").make(0, 0, K=3)
    rows = [inst.eligible(j).tolist() for j in range(inst.n)]
    assert rows == [[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [4, 6], [0, 4], [0]]
