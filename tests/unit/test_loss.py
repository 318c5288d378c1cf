"""Loss system with adaptive multiserver jobs (seed 002): oracles against the spec's reference
numbers, simulators against the oracles within 3 standard errors, and the model's identities."""

import math

import numpy as np
import pytest
from scipy import stats

from schedbench.loss import erlang_b, k_schedule, lam_of_n, sampled_birth_death_d1, simulate_loss, solve_loss_exact
from schedbench.loss.exact import solve_full_access

T975 = stats.t.ppf(0.975, 19)  # 20 batches


def se(ci):
    return (ci[1] - ci[0]) / (2 * T975)


def within(sim, ci, exact, k=3.0):
    return abs(sim - exact) <= k * se(ci)


# ------------------------------------------------------------------ oracles vs reference numbers
def test_erlang_b_reference_values():  # spec §5.1
    assert erlang_b(10, 8) == pytest.approx(0.1216610643, abs=1e-10)
    assert erlang_b(100, 90) == pytest.approx(0.0269573805, abs=1e-10)
    assert erlang_b(1000, 1000) == pytest.approx(0.024812, abs=1e-6)


@pytest.mark.parametrize(
    "k, pb, et, f",
    [  # spec §5.2, d = 3, n = 24, λ = 0.9
        (3, 0.28286666, 0.78287292, (0.59028, 0.33612, 0.07360)),
        (6, 0.19629417, 0.63911598, (0.37821, 0.32184, 0.29995)),
        (12, 0.15410570, 0.50950107, (0.21274, 0.20604, 0.58122)),
    ],
)
def test_exact_ctmc_matches_reference_table(k, pb, et, f):
    r = solve_loss_exact(24, k, 3, 0.9)
    assert r.blocking == pytest.approx(pb, abs=1e-8)
    assert r.mean_response == pytest.approx(et, abs=1e-8)
    np.testing.assert_allclose(r.split_fractions, f, atol=1e-5)
    assert r.mean_busy == pytest.approx(24 * 0.9 * (1 - r.blocking))  # work identity


@pytest.mark.parametrize("k, pb", [(2, 0.3471428881), (5, 0.2059528052), (12, 0.1230209947)])
def test_d1_sampling_birth_death_and_ctmc(k, pb):
    assert sampled_birth_death_d1(24, k, 0.9) == pytest.approx(pb, abs=1e-10)
    assert solve_loss_exact(24, k, 1, 0.9).blocking == pytest.approx(pb, abs=1e-10)


@pytest.mark.parametrize(
    "lam, values",
    [
        (0.7, (0.0216086710, 0.0633168653, 0.1001518484, 0.1317877258)),
        (1.0, (0.1464825332, 0.1985673889, 0.2355702611, 0.2649223222)),
    ],
)
def test_full_access_reduces_to_erlang_b(lam, values):  # spec §5.1 (ii), n = 24
    for d, value in zip((1, 2, 3, 4), values):
        assert erlang_b(24 // d, 24 * lam / d) == pytest.approx(value, abs=1e-10)
        exact = solve_loss_exact(24, 24, d, lam)
        assert exact.blocking == pytest.approx(value, abs=1e-10)
        assert exact.mean_response == pytest.approx(1 / d, abs=1e-12)
        assert solve_full_access(24, d, lam).blocking == pytest.approx(value, abs=1e-10)


@pytest.mark.parametrize(
    "d, pb, excess", [(2, 0.18994324, 1.741046e-02), (3, 0.22357998, 2.601146e-02), (4, 0.25064743, 3.162443e-02)]
)
def test_full_access_two_phase_chain_n25(d, pb, excess):  # spec §5.1 (iii), n = 25, λ = 1
    fa = solve_full_access(25, d, 1.0)
    ctmc = solve_loss_exact(25, 25, d, 1.0)
    for r in (fa, ctmc):
        assert r.blocking == pytest.approx(pb, abs=1e-8)
        assert r.mean_response - 1 / d == pytest.approx(excess, rel=1e-6)
    # the O(1/n) bound of §1.3 item 5: 0 <= E[T] − 1/d <= (1 − r/d)/(nλ(1 − P_B))
    r_ = 25 % d
    assert 0 <= fa.excess_response <= (1 - r_ / d) / (25 * (1 - fa.blocking))


def test_full_access_scaling_constants_at_large_n():  # spec §1.4 notes: √n·P_B ≈ 0.57, n·excess ≈ 0.30
    for n in (1001, 10001):
        fa = solve_full_access(n, 2, lam_of_n(n, 1.0, 0.5))
        assert 0.55 < math.sqrt(n) * fa.blocking < 0.59
        assert 0.29 < n * fa.excess_response < 0.32


def test_k_schedules():
    assert k_schedule(400, "full") == 400
    assert k_schedule(400, "log", c=1.0, alpha=0.5) == 120  # spec §1.4 table: ⌈n^α ln n⌉
    assert k_schedule(50, "log", alpha=0.5) == 28
    assert k_schedule(10**4, "power", gamma=0.5) == 100
    with pytest.raises(ValueError, match="k = 50 exceeds n = 10"):  # an explicit k is never clipped
        k_schedule(10, "const", k=50)


# ------------------------------------------------------------------ simulators vs oracles
CASES = [  # (n, k, d, λ)
    (24, 6, 3, 0.9),
    (25, 25, 2, 1.0),
    (50, 28, 2, 1 - 50**-0.5),
    (24, 5, 1, 0.9),
]


@pytest.mark.parametrize("n, k, d, lam", CASES)
@pytest.mark.parametrize(
    "method, estimator", [("aggregated", "conditional"), ("aggregated", "count"), ("event", "count")]
)
def test_simulators_match_exact_within_3_se(n, k, d, lam, method, estimator):
    exact = solve_loss_exact(n, k, d, lam)
    r = simulate_loss(n, k, d, lam, arrivals=300_000, seed=11, method=method, estimator=estimator)
    assert within(r.blocking, r.blocking_ci, exact.blocking), (r.blocking, r.blocking_ci, exact.blocking)
    if d > 1:
        assert within(r.mean_response, r.mean_response_ci, exact.mean_response), (
            r.mean_response,
            r.mean_response_ci,
            exact.mean_response,
        )


@pytest.mark.parametrize("method", ["aggregated", "event"])
def test_independent_subjobs_match_exact(method):
    exact = solve_loss_exact(24, 6, 3, 0.9, independent=True)
    r = simulate_loss(24, 6, 3, 0.9, arrivals=300_000, seed=5, method=method, independent=True)
    assert within(r.blocking, r.blocking_ci, exact.blocking)
    assert within(r.mean_response, r.mean_response_ci, exact.mean_response)
    if method == "event":  # realised max of the sub-jobs: H_J/(Jμ), not 1/(Jμ)
        assert within(r.mean_response_realized, r.mean_response_realized_ci, exact.mean_response)


def test_work_identity_and_littles_law_in_the_event_simulator():
    n, k, d, lam = 60, 20, 3, 0.95
    r = simulate_loss(n, k, d, lam, arrivals=400_000, seed=3, method="event")
    # E[busy] = nλ(1 − P_B)/μ
    assert within(r.mean_busy, r.mean_busy_ci, n * lam * (1 - r.blocking), k=4)
    # Little: E[jobs in system] = accepted rate × E[T] (realised response times)
    assert r.mean_jobs == pytest.approx(n * lam * (1 - r.blocking_count) * r.mean_response_realized, rel=0.01)
    # and the realised mean response agrees with the split-based one
    assert r.mean_response_realized == pytest.approx(r.mean_response, rel=0.01)


def test_both_simulators_agree_on_a_larger_system():
    args = dict(n=400, k=60, d=4, load=0.97, arrivals=400_000, seed=2)
    a = simulate_loss(method="aggregated", **args)
    e = simulate_loss(method="event", **args)
    z_b = abs(a.blocking - e.blocking) / math.hypot(se(a.blocking_ci), se(e.blocking_ci))
    z_t = abs(a.mean_response - e.mean_response) / math.hypot(se(a.mean_response_ci), se(e.mean_response_ci))
    assert z_b < 3 and z_t < 3


def test_erlang_b_is_insensitive_to_the_job_size_law():
    # k = n, d | n: Erlang-B with n/d servers, whatever the size distribution (deterministic here)
    r = simulate_loss(24, 24, 2, 0.9, arrivals=300_000, seed=8, method="event", service="det")
    assert within(r.blocking, r.blocking_ci, erlang_b(12, 24 * 0.9 / 2))


def test_sampled_load_law_and_determinism():
    a = simulate_loss(100, 47, 2, {"beta": 1.0, "alpha": 0.5}, arrivals=50_000, seed=4)
    b = simulate_loss(100, 47, 2, {"beta": 1.0, "alpha": 0.5}, arrivals=50_000, seed=4)
    assert a.lam == pytest.approx(0.9)
    assert a.blocking == b.blocking and a.mean_response == b.mean_response and a.events == b.events


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n=10, k=11, d=2, load=0.5, arrivals=100), "k = 11 exceeds n = 10"),
        (dict(n=10, k=5, d=0, load=0.5, arrivals=100), "d must be an integer >= 1"),
        (dict(n=10, k=5, d=2, load=-1.0, arrivals=100), "λ must be > 0"),
        (dict(n=10, k=5, d=2, load={"beta": 2.0, "alpha": 0.0}, arrivals=100), "is not positive"),
        (dict(n=10, k=5, d=2, load=0.5, arrivals=100, method="fast"), "method must be"),
        (dict(n=10, k=5, d=2, load=0.5, arrivals=100, estimator="mean"), "estimator must be 'conditional' or 'count'"),
        (
            dict(n=10, k=5, d=2, load=0.5, arrivals=100, method="event", service="gamma"),
            "service must be 'exp' or 'det'",
        ),
    ],
)
def test_bad_parameters_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        simulate_loss(**kwargs)


# ------------------------------------------------------------------ parameters of the other method
@pytest.mark.parametrize(
    "kwargs, name, method",
    [
        (dict(method="event", estimator="conditional"), "estimator", "event"),
        (dict(method="aggregated", service="det"), "service", "aggregated"),
        (dict(service="det"), "service", "aggregated"),  # aggregated is the default method
    ],
)
def test_parameter_of_the_other_method_is_an_error_naming_it(kwargs, name, method):
    with pytest.raises(ValueError, match=f"parameter '{name}' = '[a-z]+' does not apply to method '{method}'"):
        simulate_loss(10, 5, 2, 0.5, arrivals=100, **kwargs)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(method="event", service="det"),
        dict(method="event", estimator="count", service="exp"),
        dict(method="aggregated", estimator="count"),
        dict(method="aggregated", estimator="conditional", service="exp"),
        dict(method="aggregated", independent=True, mu=2.0),
        dict(method="event", independent=True, mu=2.0, service="det"),
    ],
)
def test_applicable_method_parameters_still_run(kwargs):
    r = simulate_loss(10, 5, 2, 0.5, arrivals=2000, **kwargs)
    assert r.arrivals > 0 and math.isfinite(r.blocking)
