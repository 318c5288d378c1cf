"""Hostile input to the queueing APIs (docs/hostile-input.md): NaN, ±inf, negatives, zeros, fractional or
absurd sizes, wrong lengths and out-of-range CSR arrays get a ValueError naming the argument —
raised in Python before any numba kernel runs — or a valid result; never a hang, a crash or a
silently wrong number. Overloaded bipartite systems are flagged unstable (E[T] = inf).

The generated tests corrupt one or two arguments of a small valid call at a time. The
regression tests below them pin every case that hung, crashed or returned a wrong number
before the checks existed (each is named after its bug). All calls are validated in Python
first, so they run in this process: a regression would show as a hang or crash of this file.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedbench.loss import (
    erlang_b,
    k_schedule,
    lam_of_n,
    min_response,
    sampled_birth_death_d1,
    simulate_loss,
    solve_loss_exact,
)
from schedbench.bipartite import simulate_bipartite
from schedbench.bipartite.graphs import complete, erdos_renyi, make_graph, random_degree, regular
from schedbench.bipartite.oracles import (
    erlang_c,
    jiq_fluid,
    pod_mean_field,
    policy_ctmc,
    random_exact,
    t_star_graph,
    t_star_graph_flow,
    t_star_greedy,
    token_product_form,
    token_single_type,
)
from schedbench.loss.formulas import mean_response_given_split
from schedbench.loss.exact import solve_full_access

NAN, INF = float("nan"), float("inf")
HOSTILE = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))

# ----------------------------------------------------------------------------- value pools
BAD_REALS = [NAN, INF, -INF, -1.0, 0.0, -0.0, 5e-324, 1e300, 1e308, "1.0", None, True, [1.0]]
BAD_INTS = [0, -1, 2.5, NAN, INF, True, None, "3", 10**13, 2**70, np.float64(2.0)]


def reals(*valid):
    return st.sampled_from(BAD_REALS + list(valid))


def ints(*valid):
    return st.sampled_from(BAD_INTS + list(valid))


def sizes(*valid):
    """Run lengths (``arrivals``): a huge valid value is a long run by request, not hostile."""
    return st.sampled_from([b for b in BAD_INTS if b != 10**13] + list(valid))


def rate_arrays(*valid):
    """Rate vectors: hostile entries, wrong lengths, wrong shapes, or one of ``valid``."""
    entry = st.sampled_from([NAN, INF, -1.0, 0.0, 5e-324, 1e300, 0.5, 1.0, 2.0])
    return st.one_of(
        st.sampled_from(list(valid) + [[], 2.0, [[1.0, 1.0]], ["a"], None, [True, 1.0]]),
        st.lists(entry, min_size=0, max_size=4),
    )


def csr_parts():
    """(indptr, indices) pairs: random small integer arrays (mostly malformed), float entries."""
    small = st.integers(-2, 5)
    return st.one_of(
        st.tuples(st.lists(small, min_size=0, max_size=4), st.lists(small, min_size=0, max_size=5)),
        st.tuples(
            st.sampled_from([[0, 1, 2], [0, 2, 3], [0, 1.5, 2], [0, NAN, 2], [[0, 1, 2]]]),
            st.sampled_from([[0, 1], [0, 1, 1], [0, 0.7], [0, 7], [-1, 1], [[0], [1]], []]),
        ),
    )


def neighbor_specs():
    small = st.integers(-2, 4)
    return st.one_of(
        st.sampled_from(["complete", "bogus", None, 3, [0, 1], [[0.5], [1]], [[NAN], [1]], [[], [1]], [[0]]]),
        st.lists(st.lists(small, min_size=0, max_size=3), min_size=0, max_size=3),
        csr_parts(),
    )


# ----------------------------------------------------------------------------- the checker
def _names_in(message: str, names) -> bool:
    return any(re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?![A-Za-z_])", message) for n in names)


#: an argument may also be named through what it determines (lam -> M types, mu -> N servers)
ALIASES = {
    "lam": ("lam", "M"),
    "mu": ("mu", "N"),
    "indptr": ("indptr", "M"),
    "indices": ("indices", "N"),
    "neighbors": ("neighbors",),
    "load": ("load",),
    "lam_tot": ("lam_tot",),
    "tokens": ("tokens",),
}


def corrupt_and_call(data, func, baseline: dict, pools: dict, is_valid):
    """Replace one or two arguments of a valid call by drawn values; the call must raise a
    ValueError naming one of them, or return a result ``is_valid`` accepts."""
    names = data.draw(st.lists(st.sampled_from(sorted(pools)), min_size=1, max_size=2, unique=True), label="args")
    kwargs = dict(baseline)
    for name in names:
        kwargs[name] = data.draw(pools[name], label=name)
    try:
        result = func(**kwargs)
    except ValueError as exc:
        wanted = [alias for name in names for alias in ALIASES.get(name, (name,))]
        assert _names_in(str(exc), wanted), f"{func.__name__}{kwargs}: {exc!r} names none of {wanted}"
        return
    assert is_valid(result, kwargs), f"{func.__name__}{kwargs} returned {result!r}"


def finite(*values) -> bool:
    return all(np.all(np.isfinite(np.asarray(v, dtype=float))) for v in values)


def valid_loss(r, kw) -> bool:
    return finite(r.blocking, r.mean_response, r.excess_response) and 0 <= r.blocking <= 1


def valid_bipartite(r, kw) -> bool:
    if r.unstable:  # overloaded: infinite E[T], never a finite steady state
        return r.mean_response == INF and r.note != ""
    return finite(r.mean_response, r.blocking, r.mean_jobs) and r.mean_response > 0


def valid_csr(out, kw) -> bool:
    ip, ix = out
    return (
        ip[0] == 0
        and ip[-1] == ix.size
        and np.all(np.diff(ip) >= 1)
        and (ix.size == 0 or (ix.min() >= 0 and ix.max() < kw["N"]))
    )


# ----------------------------------------------------------------------------- loss system
LOSS = dict(n=10, k=5, d=2, load=0.5, arrivals=2000, seed=1, warmup=1.0, batches=10)
LOSS_POOLS = {
    "n": ints(1, 3, 10),
    "k": ints(1, 5, 11),
    "d": ints(1, 2, 12),
    "load": reals(
        0.5,
        2.0,
        1e-300,
        {"beta": NAN, "alpha": 0.5},
        {"beta": 1.0, "alpha": INF},
        {"beta": 2.0, "alpha": 0.0},
        {"beta": 1.0},
        {"beta": 1.0, "alpha": 0.5},
    ),
    "mu": reals(1e-300, 2.0),
    "warmup": reals(0.5, 1e12),
    "arrivals": sizes(10, 2000, 5),
    "batches": ints(2, 10, 10**9),
    "seed": st.sampled_from([NAN, -1, 1.5, "x", None, 0, 3]),
    "method": st.sampled_from(["aggregated", "event", "fast", None, ["event"]]),
    "estimator": st.sampled_from([None, "count", "conditional", "x", 3]),
    "service": st.sampled_from(["exp", "det", "gamma", None]),
    "independent": st.sampled_from([False, True, "yes", None, 1]),
}


@HOSTILE
@given(data=st.data())
def test_simulate_loss_hostile_arguments(data):
    corrupt_and_call(data, simulate_loss, LOSS, LOSS_POOLS, valid_loss)


@HOSTILE
@given(data=st.data())
def test_solve_loss_exact_hostile_arguments(data):
    pools = {
        "n": ints(4, 24),
        "k": ints(1, 3, 30),
        "d": ints(1, 3, 12),
        "lam": reals(0.9, 4.0),
        "mu": reals(2.0),
        "independent": st.sampled_from([False, True, "no", None]),
        "max_states": ints(10, 200_000, 10**12),
    }
    corrupt_and_call(
        data,
        solve_loss_exact,
        dict(n=12, k=3, d=2, lam=0.9),
        pools,
        lambda r, kw: finite(r.blocking, r.mean_response, r.split_fractions),
    )


@HOSTILE
@given(data=st.data())
def test_solve_full_access_hostile_arguments(data):
    pools = {"n": ints(1, 25, 10**9), "d": ints(1, 3, 30), "lam": reals(1.0, 0.1), "mu": reals(2.0)}
    corrupt_and_call(
        data,
        solve_full_access,
        dict(n=25, d=2, lam=1.0),
        pools,
        lambda r, kw: finite(r.blocking, r.mean_response, r.excess_response),
    )


@pytest.mark.parametrize("call", ["loss_exact", "loss_exact_independent", "full_access", "full_access_r"])
def test_exact_chains_at_extreme_rates_answer_or_refuse_without_a_warning(call):
    """Every pair of rates from 5e-324 to 1e308: a finite result, or one ValueError naming the
    rates — never scipy's singular-matrix warning or numpy's invalid-divide on the way (the
    generator's overflow and the singular solve are refused where they happen)."""
    import warnings

    run = {
        "loss_exact": lambda lam, mu: solve_loss_exact(6, 3, 2, lam, mu),
        "loss_exact_independent": lambda lam, mu: solve_loss_exact(6, 3, 2, lam, mu, independent=True),
        "full_access": lambda lam, mu: solve_full_access(24, 2, lam, mu),
        "full_access_r": lambda lam, mu: solve_full_access(25, 3, lam, mu),
    }[call]
    rates = [5e-324, 1e-300, 1e-20, 0.5, 1.0, 1e20, 1e300, 1e308]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for lam in rates:
            for mu in rates:
                try:
                    r = run(lam, mu)
                except ValueError as exc:
                    assert _names_in(str(exc), ["lam", "mu"]), (lam, mu, str(exc))
                    continue
                assert finite(r.blocking, r.mean_response) and 0 <= r.blocking <= 1, (lam, mu, r)


@HOSTILE
@given(data=st.data())
def test_loss_formulas_hostile_arguments(data):
    which = data.draw(st.sampled_from(["erlang_b", "lam_of_n", "k_schedule", "sbd1", "min_response", "split"]))
    if which == "erlang_b":
        corrupt_and_call(
            data,
            erlang_b,
            dict(c=10, a=8.0),
            {"c": ints(0, 10, 10.0, 10**9), "a": reals(0.0, 8.0)},
            lambda b, kw: 0 <= b <= 1,
        )
    elif which == "lam_of_n":
        corrupt_and_call(
            data,
            lam_of_n,
            dict(n=100, beta=1.0, alpha=0.5),
            {"n": ints(1, 100, 100.0), "beta": reals(0.0, 2.0, -1.0), "alpha": reals(0.0, 0.5, -700.0)},
            lambda v, kw: math.isfinite(v) and v > 0,
        )
    elif which == "k_schedule":
        pools = {
            "n": ints(1, 100, 10**6),
            "rule": st.sampled_from(["full", "log", "power", "const", "fraction", "x", None]),
            "c": reals(0.3, 1e6),
            "alpha": reals(0.5, 700.0, -3.0),
            "gamma": reals(0.5, 900.0),
            "k": ints(1, 7, None, 7.0),
            "fraction": reals(0.3, 1.0, 5.0),
        }
        corrupt_and_call(
            data,
            k_schedule,
            dict(n=100, rule="log", k=3),
            pools,
            lambda v, kw: isinstance(v, int) and 1 <= v <= kw["n"],
        )
    elif which == "sbd1":
        corrupt_and_call(
            data,
            sampled_birth_death_d1,
            dict(n=24, k=5, lam=0.9),
            {"n": ints(1, 24, 10**8), "k": ints(1, 5, 30), "lam": reals(0.9), "mu": reals(2.0)},
            lambda v, kw: 0 <= v <= 1,
        )
    elif which == "min_response":
        corrupt_and_call(
            data,
            min_response,
            dict(d=2),
            {"d": ints(1, 3), "mu": reals(2.0), "independent": st.sampled_from([True, False, "x"])},
            lambda v, kw: math.isfinite(v) and v > 0,
        )
    else:
        corrupt_and_call(
            data,
            mean_response_given_split,
            dict(j=np.arange(1, 4)),
            {
                "j": st.sampled_from([0, -1, 2.5, NAN, [1, 0], np.array([1.0, NAN]), "x", 3, [1, 2]]),
                "mu": reals(2.0),
                "independent": st.sampled_from([True, False, None]),
            },
            lambda v, kw: finite(v) and np.all(np.asarray(v) > 0),
        )


# ----------------------------------------------------------------------------- bipartite simulator
BIP = dict(
    mu=[1.0, 2.0], lam=[0.5, 0.5], neighbors=[[0, 1], [1]], policy="jsq", arrivals=2000, seed=0, warmup=1.0, batches=10
)
BIP_POOLS = {
    "mu": rate_arrays([1.0, 2.0], [1.0, 2.0, 3.0], [1e-300, 1.0]),
    "lam": rate_arrays([0.5, 0.5], [0.0, 0.5], [5.0, 5.0], [1.5, 0.1]),
    "neighbors": neighbor_specs(),
    "policy": st.sampled_from(
        ["jsq", "jfsq", "jiq", "jfiq", "random", "random-mu", "jsq-d", "token-oldest", "jfq", None]
    ),
    "arrivals": sizes(10, 2000, 5),
    "batches": ints(2, 10, 10**9),
    "warmup": reals(0.0, 2.0),
    "seed": st.sampled_from([NAN, -1, 1.5, None, 7]),
    "d": ints(1, 2),
    "buffers": st.sampled_from([None, 1, 3, [1, 2], [0, 1], [1.5, 2], [[1]], [1, 2, 3], NAN, 10**12, -1]),
    "tokens": st.sampled_from([None, [1, 2], [0, 1], [1.5, 1], [1], [NAN, 1], [10**12, 1]]),
    "ties": st.sampled_from(["random", "index", "first", None]),
    "jfiq_fallback": st.sampled_from(["random", "jfsq", "x"]),
    "fast_complete": st.sampled_from([True, False, "no", None]),
}


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_simulate_bipartite_hostile_arguments(data):
    corrupt_and_call(data, simulate_bipartite, BIP, BIP_POOLS, valid_bipartite)


# ----------------------------------------------------------------------------- bipartite oracles
GRAPH = dict(mu=[2.0, 1.0, 1.0], lam=[1.0, 0.5], indptr=[0, 3, 4], indices=[0, 1, 2, 2])


def _csr_pools():
    return {
        "indptr": st.one_of(
            st.lists(st.integers(-2, 6), max_size=4),
            st.sampled_from([[0, 3, 4], [0, 3, 3], [0, 4, 3], [0, 1.5, 4], [1, 3, 4], None]),
        ),
        "indices": st.one_of(
            st.lists(st.integers(-2, 4), max_size=5),
            st.sampled_from(
                [[0, 1, 2, 2], [0, 0, 1, 2], [0, 1, 2, 7], [0, 1, 2, -1], [0, 1, 2, 0.5], [[0, 1, 2, 2]], None]
            ),
        ),
    }


@HOSTILE
@given(data=st.data())
def test_graph_bounds_hostile_arguments(data):
    func = data.draw(st.sampled_from([t_star_graph, t_star_graph_flow, random_exact]))
    pools = {
        "mu": rate_arrays([2.0, 1.0, 1.0], [2.0, 1.0]),
        "lam": rate_arrays([1.0, 0.5], [1.0, 3.0], [1.0]),
        **_csr_pools(),
    }
    if func is random_exact:
        pools["weights"] = st.sampled_from(["uniform", "mu", "xx", None])
    corrupt_and_call(data, func, GRAPH, pools, lambda v, kw: math.isfinite(v) and v > 0)


@HOSTILE
@given(data=st.data())
def test_scalar_oracles_hostile_arguments(data):
    which = data.draw(st.sampled_from(["greedy", "fluid", "pod", "erlang_c"]))
    if which in ("greedy", "fluid"):
        func = t_star_greedy if which == "greedy" else jiq_fluid
        corrupt_and_call(
            data,
            func,
            dict(mu=[2.0, 1.0], lam_tot=1.5),
            {"mu": rate_arrays([2.0, 1.0]), "lam_tot": reals(1.5, 3.0, 4.0)},
            lambda v, kw: math.isfinite(v) and v > 0,
        )
    elif which == "pod":
        corrupt_and_call(
            data,
            pod_mean_field,
            dict(lam=0.9, d=2),
            {"lam": reals(0.9, 0.0, 1.0, 1.5), "d": ints(1, 2, 10**6), "terms": ints(2, 200)},
            lambda v, kw: math.isfinite(v) and v > 0,
        )
    else:
        corrupt_and_call(
            data, erlang_c, dict(c=4, a=3.0), {"c": ints(1, 4), "a": reals(3.0, 4.0, 5.0)}, lambda v, kw: 0 <= v <= 1
        )


@HOSTILE
@given(data=st.data())
def test_exact_token_and_ctmc_oracles_hostile_arguments(data):
    which = data.draw(st.sampled_from(["product", "single", "ctmc"]))
    if which == "product":
        pools = {
            "mu": rate_arrays([2.0, 1.0, 1.0]),
            "lam": rate_arrays([1.0, 0.5], [0.0, 0.5]),
            **_csr_pools(),
            "tokens": st.sampled_from(
                [[2, 1, 1], [0, 1, 1], [-1, 1, 1], [1.5, 1, 1], [1, 1], [NAN, 1, 1], [10**6, 10**6, 1], None]
            ),
        }
        corrupt_and_call(
            data,
            token_product_form,
            {**GRAPH, "tokens": [2, 1, 1]},
            pools,
            lambda r, kw: finite(r.blocking, r.mean_response) and 0 <= r.blocking <= 1,
        )
    elif which == "single":
        pools = {
            "mu": rate_arrays([2.0, 1.0]),
            "lam_tot": reals(1.0, 5.0),
            "tokens": st.sampled_from([[2, 2], [0, 0], [-1, 2], [1.5, 2], [2], [100, 100], None]),
        }
        corrupt_and_call(
            data,
            token_single_type,
            dict(mu=[2.0, 1.0], lam_tot=1.0, tokens=[2, 2]),
            pools,
            lambda r, kw: finite(r.blocking, r.mean_response) and 0 <= r.blocking <= 1,
        )
    else:

        def shortest(m, q):
            return min((0, 1), key=lambda n: (q[n], n))

        pools = {
            "mu": rate_arrays([2.0, 1.0], [2.0, 1.0, 1.0, 1.0, 1.0]),
            "lam": rate_arrays([2.1], [0.5, 0.5]),
            "indptr": st.sampled_from([[0, 2], [0, 1], [0, 3], [1, 2], [0, 2, 2], None]),
            "indices": st.sampled_from([[0, 1], [0, 5], [0, -1], [0, 0], [0.5, 1], []]),
            "choose": st.sampled_from([shortest, (lambda m, q: 5), (lambda m, q: "x"), None]),
            "truncation": ints(1, 10),
        }
        corrupt_and_call(
            data,
            policy_ctmc,
            dict(mu=[2.0, 1.0], lam=[2.1], indptr=[0, 2], indices=[0, 1], choose=shortest, truncation=10),
            pools,
            lambda r, kw: finite(*r),
        )


# ----------------------------------------------------------------------------- graph generators
@HOSTILE
@given(data=st.data())
def test_graph_generators_hostile_arguments(data):
    rng_pool = st.sampled_from([np.random.default_rng(0), None, 3])
    which = data.draw(st.sampled_from(["complete", "G1", "G2", "G3", "make_graph"]))
    sizes = {"M": ints(1, 4, 6), "N": ints(1, 4)}
    if which == "complete":
        corrupt_and_call(data, complete, dict(M=4, N=4), sizes, valid_csr)
    elif which == "G1":
        corrupt_and_call(
            data,
            erdos_renyi,
            dict(M=4, N=4, p=0.5, rng=np.random.default_rng(0)),
            {**sizes, "p": reals(0.5, 1.0, 2.0), "rng": rng_pool},
            valid_csr,
        )
    elif which in ("G2", "G3"):
        func = random_degree if which == "G2" else regular
        corrupt_and_call(
            data,
            func,
            dict(M=4, N=4, D=2, rng=np.random.default_rng(0)),
            {**sizes, "D": ints(1, 2, 4, 5), "rng": rng_pool},
            valid_csr,
        )
    else:
        corrupt_and_call(
            data,
            make_graph,
            dict(kind="G2", M=4, N=4, rng=np.random.default_rng(0), degree=2),
            {
                **sizes,
                "kind": st.sampled_from(["complete", "G1", "G2", "G3", "G9", None]),
                "degree": ints(1, 2, 2.0),
                "p": reals(0.5, None),
                "rng": rng_pool,
            },
            valid_csr,
        )


# ============================================================================= regressions
# Each case hung, crashed, or returned a wrong number before these checks; the exact call is kept.
def _raises_naming(call, *names):
    with pytest.raises(ValueError) as info:
        call()
    assert _names_in(str(info.value), names), str(info.value)


@pytest.mark.parametrize(
    "policy, neighbors", [("jsq", "complete"), ("jiq", "complete"), ("random", "complete"), ("jsq", [[0, 1], [1]])]
)
def test_regression_nan_speed_segfaulted_the_bipartite_kernel(policy, neighbors):
    _raises_naming(lambda: simulate_bipartite([NAN, 1.0], [0.5, 0.5], neighbors, policy, arrivals=10000), "mu")


@pytest.mark.parametrize(
    "mu, lam, policy",
    [
        ([NAN, 1.0], [0.5, 0.5], "token-oldest"),  # hung
        ([1.0, 1.0], [NAN, 0.5], "jsq"),  # hung
        ([1.0, 1.0], [NAN, 0.5], "token-oldest"),  # segfault
        ([INF, 1.0], [0.5, 0.5], "jsq"),
        ([INF, 1.0], [0.5, 0.5], "jiq"),
        ([INF, 1.0], [0.5, 0.5], "random"),  # hung
        ([1.0, 1.0], [INF, 0.5], "jsq"),  # hung
        ([1.0, 1.0], [INF, 0.5], "token-oldest"),  # segfault
    ],
)
def test_regression_nan_or_inf_rate_hung_or_crashed_the_bipartite_kernels(mu, lam, policy):
    _raises_naming(lambda: simulate_bipartite(mu, lam, "complete", policy, arrivals=10000), "mu", "lam")


def test_regression_inf_speed_gave_a_finite_token_response_time():
    _raises_naming(lambda: simulate_bipartite([INF, 1.0], [0.5, 0.5], "complete", "token-oldest", arrivals=10000), "mu")


@pytest.mark.parametrize(
    "call",
    [
        lambda w: simulate_bipartite([1.0, 1.0], [0.5, 0.5], "complete", "jsq", arrivals=10000, warmup=w),
        lambda w: simulate_bipartite([1.0, 1.0], [0.5, 0.5], "complete", "token-oldest", arrivals=10000, warmup=w),
        lambda w: simulate_loss(10, 5, 2, 0.5, arrivals=2000, warmup=w),
        lambda w: simulate_loss(10, 5, 2, 0.5, arrivals=2000, warmup=w, method="event", estimator="count"),
    ],
    ids=["bipartite-jsq", "bipartite-token", "loss-aggregated", "loss-event"],
)
@pytest.mark.parametrize("warmup", [NAN, INF, 1e12])
def test_regression_nan_inf_or_huge_warmup_hung_the_kernels(call, warmup):
    _raises_naming(lambda: call(warmup), "warmup")


@pytest.mark.parametrize(
    "kwargs",
    [dict(load=INF), dict(mu=INF), dict(load=1e300), dict(load=1e9), dict(load=INF, method="event", estimator="count")],
)
def test_regression_inf_or_huge_rate_hung_the_loss_kernels(kwargs):
    kw = dict(n=10, k=5, d=2, load=0.5, arrivals=2000, **{k: v for k, v in kwargs.items() if k != "load"})
    kw["load"] = kwargs.get("load", 0.5)
    _raises_naming(lambda: simulate_loss(**kw), "load", "mu")


@pytest.mark.parametrize("mu, lam", [([1e308, 1e308], [1e308]), ([1e9, 1e9], [1e9])])
def test_regression_huge_rates_ran_an_endless_bipartite_warmup(mu, lam):
    _raises_naming(lambda: simulate_bipartite(mu, lam, "complete", "jsq", arrivals=10000), "mu", "lam")


def test_regression_inf_mu_gave_zero_response_time_in_the_event_loss_simulator():
    _raises_naming(lambda: simulate_loss(10, 5, 2, 0.5, arrivals=2000, mu=INF, method="event", estimator="count"), "mu")


def test_regression_tiny_mu_gave_a_nan_loss_response_time():
    _raises_naming(lambda: simulate_loss(10, 5, 2, 0.5, arrivals=2000, mu=1e-300), "mu")


def test_regression_infinite_alpha_was_read_as_lambda_one():
    _raises_naming(lambda: simulate_loss(10, 5, 2, {"beta": 1.0, "alpha": INF}, arrivals=2000), "alpha")
    _raises_naming(lambda: lam_of_n(100, 1.0, INF), "alpha")


@pytest.mark.parametrize(
    "call",
    [
        lambda: simulate_loss(10, 5, 2, 0.5, arrivals=5, batches=20),
        lambda: simulate_loss(10, 5, 2, 0.5, arrivals=1, batches=2),
        lambda: simulate_bipartite([1.0, 1.0], [0.5], "complete", "jsq", arrivals=5, batches=20),
    ],
    ids=["loss-5-of-20", "loss-1-of-2", "bipartite-5-of-20"],
)
def test_regression_arrivals_below_batches_silently_simulated_more_arrivals(call):
    _raises_naming(call, "arrivals")


@pytest.mark.parametrize(
    "mu, lam, neighbors, policy",
    [
        (np.ones(100), [100.0], "complete", "jsq"),  # ρ = 1: E[T] = 10.2 was reported
        (np.ones(500), [510.0], "complete", "jsq"),  # ρ = 1.02: E[T] = 5.57 was reported
        ([1.0, 1.0], [1.0, 0.5], [[0], [1]], "jsq"),  # server 0 critically loaded: E[T] = 194 was reported
        ([2.0, 1.0, 1.5, 0.5, 3.0], [2.0, 1.0], "complete", "random"),  # μ = 0.5 gets 0.6: E[T] = 176 was reported
        ([1.0, 1.0], [1.5, 0.1], [[0], [1]], "jsq"),  # the graph cannot carry the load
        ([1.0], [1.5], "complete", "jsq"),  # ρ = 1.5 (was a RuntimeError)
    ],
)
def test_regression_overloaded_bipartite_system_gave_a_finite_response_time(mu, lam, neighbors, policy):
    r = simulate_bipartite(mu, lam, neighbors, policy, arrivals=200_000, seed=0)
    assert r.unstable and r.mean_response == INF and r.mean_response_ci == (INF, INF) and r.events == 0
    assert r.note


def test_regression_a_policy_that_outgrows_the_queue_cap_is_flagged_not_raised():
    r = simulate_bipartite([10.0, 1.0], [5.0], "complete", "jsq-d", d=1, arrivals=200_000, seed=0)
    assert r.unstable and r.mean_response == INF and r.events > 0 and "exceeded" in r.note


@pytest.mark.parametrize(
    "neighbors, name",
    [
        (([1, 2, 3], [0, 1, 1]), "indptr"),  # indptr not starting at 0: type 1 got servers [1, 1]
        (([0, 1, 5], [0, 1]), "indptr"),  # indptr past the end: silently truncated
        (([0, -1, 2], [0, 1]), "indptr"),  # negative indptr: silently read as a slice from the end
        (([0, 1, 2], [0, 0.7]), "indices"),  # fractional server number silently truncated to 0
        (([0, 1.5, 2], [0, 1]), "indptr"),  # fractional indptr silently truncated
        (([0, 1, 2], [[0], [1]]), "indices"),  # 2-D indices silently flattened
        ([[0.5], [1]], "neighbors"),  # fractional server number in a list silently truncated
        ([0, 1], "neighbors"),  # scalars where lists are expected
        (None, "neighbors"),
        (3, "neighbors"),  # were TypeErrors
    ],
)
def test_regression_malformed_neighbour_arrays_were_silently_misread(neighbors, name):
    _raises_naming(lambda: simulate_bipartite([1.0, 1.0], [0.5, 0.5], neighbors, "jsq", arrivals=10000), name)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: simulate_bipartite([1.0, 1.0], [0.5, 0.5], "complete", "jsq", arrivals=10000, buffers=2.5), "buffers"),
        (
            lambda: simulate_bipartite(
                [1.0, 1.0], [0.5, 0.5], "complete", "token-oldest", arrivals=10000, tokens=[1.5, 1]
            ),
            "tokens",
        ),
        (lambda: simulate_bipartite([1.0, 1.0], [0.5, 0.5], "complete", "jsq-d", d=2.5, arrivals=10000), "d"),
        (lambda: k_schedule(100, "const", k=2.7), "k"),
        (lambda: erlang_b(2.5, 1.0), "c"),
        (lambda: make_graph("G2", 4, 4, np.random.default_rng(0), degree=2.7), "degree"),
        (lambda: pod_mean_field(0.5, 2.5), "d"),
    ],
)
def test_regression_fractional_sizes_were_silently_truncated(call, name):
    _raises_naming(call, name)


@pytest.mark.parametrize(
    "call, names",
    [
        (lambda: solve_loss_exact(2000, 10, 4, 0.9), ("n", "d")),
        (lambda: solve_loss_exact(200, 10, 6, 0.9, independent=True), ("n", "d")),
        (lambda: solve_loss_exact(3000, 10, 3, 0.9, max_states=10**12), ("max_states",)),
        (lambda: solve_full_access(10**12, 3, 0.5), ("n", "d")),
        (
            lambda: policy_ctmc([1.0, 1.0], [0.5], np.array([0, 2]), np.array([0, 1]), lambda m, q: 0, 10**6),
            ("truncation",),
        ),
        (lambda: erlang_b(10**13, 10.0**13), ("c",)),
    ],
    ids=[
        "loss-ctmc-n2000-d4",
        "loss-ctmc-independent-n200-d6",
        "max-states-1e12",
        "full-access-n1e12",
        "policy-ctmc-truncation-1e6",
        "erlang-b-c-1e13",
    ],
)
def test_regression_oversized_exact_state_space_hung(call, names):
    _raises_naming(call, *names)


def test_regression_huge_d_built_one_range_per_class_until_out_of_memory():
    # the state list was built from one range per class j = 1..d: d = 10^13 exhausted memory
    _raises_naming(lambda: solve_loss_exact(12, 3, 10**13, 0.9), "d")


def test_regression_independent_states_enumerated_the_whole_cube():
    # itertools.product over (n + 1)^d tuples, filtered to Σc <= n: 3^20 tuples for 231 states (hung)
    r = solve_loss_exact(2, 1, 20, 0.5, independent=True)
    assert r.n_states == 231
    small = solve_loss_exact(2, 1, 2, 0.5, independent=True)  # k = 1: J <= 1 whatever d is
    assert r.blocking == pytest.approx(small.blocking) and r.mean_response == pytest.approx(small.mean_response)


def test_solve_loss_exact_counts_states_before_enumerating():
    from schedbench.loss.exact import _states, loss_state_count

    for n in (1, 5, 12):
        for d in (1, 2, 3, 5):
            for independent in (False, True):
                assert loss_state_count(n, d, independent, 10**9) == len(_states(n, d, independent))
    assert solve_loss_exact(24, 3, 3, 0.9).n_states == loss_state_count(24, 3, False, 10**9)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: solve_loss_exact(10, 5, 2, NAN), "lam"),
        (lambda: solve_loss_exact(10, 5, 2, 0.5, mu=NAN), "mu"),
        (lambda: solve_loss_exact(10, 5, 2, INF), "lam"),
        (lambda: solve_loss_exact(10, 5, 2, 0.5, mu=INF), "mu"),
        (lambda: solve_loss_exact(10, 5, 2, 0.5, mu=0.0), "mu"),
        (lambda: solve_full_access(11, 2, 0.5, mu=INF), "mu"),
        (lambda: erlang_b(10, NAN), "a"),
        (lambda: erlang_b(10, INF), "a"),
        (lambda: lam_of_n(100, NAN, 0.5), "beta"),
        (lambda: lam_of_n(100, 1.0, NAN), "alpha"),
        (lambda: lam_of_n(NAN, 1.0, 0.5), "n"),
        (lambda: sampled_birth_death_d1(24, 5, NAN), "lam"),
        (lambda: sampled_birth_death_d1(24, 5, 0.9, mu=NAN), "mu"),
        (lambda: sampled_birth_death_d1(24, 5, INF), "lam"),
        (lambda: sampled_birth_death_d1(24, 5, 0.9, mu=INF), "mu"),
        (lambda: min_response(2, mu=NAN), "mu"),
        (lambda: min_response(2, mu=INF), "mu"),
        (lambda: t_star_greedy([NAN, 1.0], 0.5), "mu"),
        (lambda: t_star_greedy([INF, 1.0], 0.5), "mu"),
        (lambda: t_star_greedy([1.0, 1.0], 0.0), "lam_tot"),
        (lambda: t_star_graph([NAN, 1.0], [0.5, 0.5], [0, 2, 3], [0, 1, 1]), "mu"),
        (lambda: t_star_graph([1.0, 1.0], [INF, 0.5], [0, 2, 3], [0, 1, 1]), "lam"),
        (lambda: t_star_graph_flow([1.0, 1.0], [NAN, 0.5], [0, 2, 3], [0, 1, 1]), "lam"),
        (lambda: random_exact([NAN, 1.0], [0.5, 0.5], [0, 2, 3], [0, 1, 1]), "mu"),
        (lambda: random_exact([INF, 1.0], [0.5, 0.5], [0, 2, 3], [0, 1, 1]), "mu"),
        (lambda: pod_mean_field(NAN, 2), "lam"),
        (lambda: erlang_c(4, NAN), "a"),
        (lambda: token_product_form([NAN, 1.0], [0.5, 0.5], [0, 2, 3], [0, 1, 1], [2, 2]), "mu"),
        (lambda: token_single_type([1.0, 1.0], NAN, [2, 2]), "lam_tot"),
        (lambda: token_single_type([INF, 1.0], 1.0, [2, 2]), "mu"),
        (lambda: policy_ctmc([NAN, 1.0], [0.5], [0, 2], [0, 1], lambda m, q: 0, 10), "mu"),
    ],
)
def test_regression_nan_or_inf_rates_gave_nan_or_zero_exact_answers(call, name):
    _raises_naming(call, name)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: solve_loss_exact(10, 5, 2, -1.0), "lam"),
        (lambda: solve_loss_exact(10, 5, 2, 0.5, mu=-1.0), "mu"),
        (lambda: solve_full_access(11, 2, -1.0), "lam"),
        (lambda: solve_full_access(11, 2, 0.5, mu=-1.0), "mu"),
        (lambda: sampled_birth_death_d1(24, 5, -1.0), "lam"),
        (lambda: min_response(2, mu=-1.0), "mu"),
        (lambda: sampled_birth_death_d1(24, 0, 0.9), "k"),
        (lambda: min_response(0), "d"),
        (lambda: k_schedule(100, "log", c=-1.0), "c"),
        (lambda: k_schedule(100, "fraction", fraction=-1.0), "fraction"),
        (lambda: k_schedule(100, "const", k=-1), "k"),
        (lambda: k_schedule(0, "full"), "n"),
        (lambda: t_star_greedy([1.0, 1.0], -1.0), "lam_tot"),
        (lambda: t_star_graph_flow([1.0, 1.0], [-1.0, 0.5], [0, 2, 3], [0, 1, 1]), "lam"),
        (lambda: t_star_graph_flow([-1.0, 1.0], [0.5, 0.5], [0, 2, 3], [0, 1, 1]), "mu"),
        (lambda: random_exact([1.0, 1.0], [-1.0, 0.5], [0, 2, 3], [0, 1, 1]), "lam"),
        (lambda: pod_mean_field(-1.0, 2), "lam"),
        (lambda: pod_mean_field(0.5, 0), "d"),
        (lambda: token_product_form([-1.0, 1.0], [0.5, 0.5], [0, 2, 3], [0, 1, 1], [2, 2]), "mu"),
        (lambda: token_single_type([1.0, 1.0], -1.0, [2, 2]), "lam_tot"),
        (lambda: policy_ctmc([-1.0, 1.0], [0.5], [0, 2], [0, 1], lambda m, q: 0, 10), "mu"),
    ],
)
def test_regression_negative_or_zero_arguments_gave_numbers(call, name):
    _raises_naming(call, name)


@pytest.mark.parametrize(
    "call",
    [
        lambda: pod_mean_field(1.0, 2),  # the divergent series was cut at 200 terms: 199
        lambda: erlang_c(4, 4.0),
        lambda: erlang_c(4, 5.0),  # 1.0 and 1.61 for an unstable M/M/c
        lambda: t_star_graph([1.0, 1.0], [1.0, 0.5], [0, 1, 2], [0, 1]),  # server 0 exactly full: T* = 1
        lambda: t_star_graph_flow([1.0, 1.0], [1.0, 0.5], [0, 1, 2], [0, 1]),
        lambda: policy_ctmc([1.0, 1.0], [2.5], [0, 2], [0, 1], lambda m, q: 0, 10),  # truncated chain, finite E[T]
    ],
    ids=[
        "pod-lam-1",
        "erlang-c-a-eq-c",
        "erlang-c-a-gt-c",
        "t-star-graph-tight",
        "t-star-flow-tight",
        "policy-ctmc-overloaded",
    ],
)
def test_regression_unstable_oracle_gave_a_finite_value(call):
    with pytest.raises(ValueError, match="unstable"):
        call()


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: random_exact([1.0, 1.0], [0.5, 0.5], [0, 2, 3], [0, -1, 1]), "indices"),  # 3.33 from a wrapped index
        (lambda: t_star_graph_flow([1.0, 1.0], [0.5, 0.5], [0, 2, 3], [0, -1, 1]), "indices"),  # 1.0
        (lambda: random_exact([1.0, 1.0], [0.5, 0.5], [0, 0, 2], [0, 1]), "indptr"),  # type 0's rate dropped: 0.67
        (lambda: random_exact([1.0, 1.0], [0.5, 0.5], [0, 2, 3], [0, 0, 1]), "indices"),  # duplicate counted once
        (lambda: random_exact([1.0, 1.0], [0.5, 0.5], [0, 2, 3], [0, 1, 1], weights="xx"), "weights"),  # read as 'mu'
        (lambda: token_product_form([1.0, 1.0], [0.5, 0.5], [0, 0, 2], [0, 1], [2, 2]), "indptr"),  # empty type
        (lambda: t_star_graph([1.0, 1.0], [0.5, 0.5], [0, 3, 2], [0, 1, 1]), "indptr"),  # "LP infeasible"
    ],
)
def test_regression_malformed_csr_gave_a_wrong_oracle_value(call, name):
    _raises_naming(call, name)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: complete(0, 4), "M"),
        (lambda: complete(-1, 4), "M"),  # an empty graph
        (lambda: erdos_renyi(0, 4, 0.5, np.random.default_rng(0)), "M"),
        (lambda: random_degree(-1, 4, 2, np.random.default_rng(0)), "M"),
        (lambda: make_graph("G1", 4, 4, np.random.default_rng(0), degree=NAN), "degree"),  # became the complete graph
        (lambda: make_graph("G2", 4, 4, None, degree=2), "rng"),  # AttributeError
        (lambda: make_graph("G1", 4, 4, np.random.default_rng(0)), "degree"),  # TypeError
    ],
)
def test_regression_degenerate_graph_arguments_gave_empty_or_complete_graphs(call, name):
    _raises_naming(call, name)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: simulate_loss(10**13, 5, 2, 0.5, arrivals=2000), "n"),
        (lambda: simulate_loss(10, 5, 10**11, 0.5, arrivals=2000), "d"),
        (lambda: simulate_loss(10, 5, 2, 0.5, arrivals=10**12, batches=10**11), "batches"),
        (lambda: simulate_loss(10, 5, 2, 0.5, arrivals=2**70), "arrivals"),  # a numba TypingError
        (
            lambda: simulate_bipartite([1.0, 1.0], [0.5, 0.5], "complete", "jsq", arrivals=10000, buffers=10**12),
            "buffers",
        ),
        (
            lambda: simulate_bipartite(
                [1.0, 1.0], [0.5, 0.5], "complete", "token-oldest", arrivals=10000, tokens=[10**12, 1]
            ),
            "tokens",
        ),
    ],
    ids=[
        "loss-n-1e13",
        "loss-d-1e11",
        "loss-batches-1e11",
        "loss-arrivals-2e70",
        "bipartite-buffers-1e12",
        "bipartite-tokens-1e12",
    ],
)
def test_regression_huge_sizes_raised_memory_errors_inside_the_kernels(call, name):
    _raises_naming(call, name)


def test_regression_token_policy_blocking_every_arrival_of_a_batch_gave_an_infinite_response():
    _raises_naming(
        lambda: simulate_bipartite([1.0], [1e4], "complete", "token-oldest", arrivals=20, batches=20, warmup=0.0),
        "arrivals",
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda: simulate_bipartite([1.0, 1.0], [0.5, 0.5], "complete", "jsq", arrivals=10000, seed=NAN),
        lambda: simulate_loss(10, 5, 2, 0.5, arrivals=2000, seed=1.5),
    ],
)
def test_regression_non_integer_seed_was_hashed_as_text(call):
    _raises_naming(call, "seed")


# ----------------------------------------------------------------------------- still accepted
def test_loss_system_is_stable_at_any_load():
    r = simulate_loss(20, 5, 2, 2.0, arrivals=20000, seed=1)  # λ = 2 per server: mostly blocked
    assert math.isfinite(r.mean_response) and 0.4 < r.blocking < 1


@pytest.mark.parametrize("kwargs", [dict(buffers=3, policy="jsq"), dict(policy="token-oldest")])
def test_overloaded_loss_variants_of_the_bipartite_model_are_simulated(kwargs):
    policy = kwargs.pop("policy")
    r = simulate_bipartite([1.0, 1.0], [4.0], "complete", policy, arrivals=10000, seed=0, **kwargs)
    assert not r.unstable and math.isfinite(r.mean_response) and r.blocking > 0.3


def test_whole_float_sizes_that_used_to_work_still_work():
    assert erlang_b(10.0, 8) == erlang_b(10, 8)
    assert k_schedule(100, "const", k=7.0) == 7
    assert make_graph("G2", 4, 4, np.random.default_rng(0), degree=2.0)[1].size == 8
    assert simulate_bipartite([1.0, 1.0], [0.5, 0.5], "complete", "jsq-d", d=2.0, arrivals=2000).arrivals > 0


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("mu, lam_tot", [([1e300, 1.0], 1e-300), ([1e200, 1e200], 1e-10)])
def test_token_single_type_refuses_rates_too_far_apart_without_a_warning(mu, lam_tot):
    # (μ_i/Λ)^y overflows: one ValueError naming the rates, not numpy's overflow warning first
    with pytest.raises(ValueError, match=r"token_single_type: .*\(mu, lam_tot\)"):
        token_single_type(mu, lam_tot, [2, 2])


@pytest.mark.filterwarnings("error")
def test_token_single_type_with_rates_near_each_other_is_unchanged():
    # one server, one token: a loss system M/M/1/1 with rate mu/lam_tot, blocking 1/(1 + mu/lam_tot)
    res = token_single_type([3.0], 1.5, [1])
    assert math.isclose(res.blocking, 1 / (1 + 3.0 / 1.5), rel_tol=1e-12)
