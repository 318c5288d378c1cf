"""Bipartite load balancing (seed 003) and the token policy: oracles against the spec's reference
values, simulators against exact results within 3 standard errors, limits within tolerance."""

import math

import numpy as np
import pytest
from scipy import stats

from schedbench.bipartite.simulate import POLICIES, neighbors_csr, simulate_bipartite
from schedbench.bipartite.kernels import POLICY_CODES
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
from schedbench.hall.erlang import erlang_b
from schedbench.bipartite.graphs import erdos_renyi, random_degree, regular
from schedbench.hall.seeds import rng

T975 = stats.t.ppf(0.975, 19)
HALF = np.r_[np.full(200, 2.0), np.full(200, 1.0)]  # spec §2.4: half μ=2, half μ=1


def se(ci):
    return (ci[1] - ci[0]) / (2 * T975)


def close(sim, ci, exact, k=3.0):
    return abs(sim - exact) <= k * se(ci)


# ------------------------------------------------------------------ oracles
def test_t_star_and_jiq_fluid_reference_values():  # spec §5.6
    assert t_star_greedy(HALF, 0.6 * HALF.sum()) == pytest.approx(0.5)
    assert t_star_greedy(HALF, 0.8 * HALF.sum()) == pytest.approx(0.583333, abs=1e-6)
    assert jiq_fluid(HALF, 0.6 * HALF.sum()) == pytest.approx(0.69634, abs=1e-5)
    assert jiq_fluid(HALF, 0.8 * HALF.sum()) == pytest.approx(0.68075, abs=1e-5)


def test_graph_lp_bound():
    mu = np.array([4.0, 1.0, 1.0])
    ip, ix, _ = neighbors_csr("complete", 3, 2, mu)
    assert t_star_graph(mu, [1.0, 1.0], ip, ix) == pytest.approx(t_star_greedy(mu, 2.0))
    # type 1 may only use a slow server: its unit of load costs 1/μ = 1 busy server, not 1/4
    ip, ix, _ = neighbors_csr([[0, 1, 2], [2]], 3, 2, mu)
    assert t_star_graph(mu, [1.0, 0.5], ip, ix) == pytest.approx((1.0 / 4 + 0.5 / 1) / 1.5)
    assert t_star_graph(mu, [1.0, 0.5], ip, ix) >= t_star_greedy(mu, 1.5)


@pytest.mark.parametrize(
    "N, D, rho, seed", [(40, 2, 0.6, 1), (60, 3, 0.8, 2), (100, 4, 0.7, 3), (100, 4, 1 - 100**-0.3, 4), (30, 1, 0.3, 5)]
)
def test_graph_bound_by_max_flow_equals_the_lp(N, D, rho, seed):
    mu = np.r_[np.full(N // 2, 2.0), np.full(N - N // 2, 1.0)]
    ip, ix = random_degree(N, N, D, rng(seed, "lp"))
    ip, ix, _ = neighbors_csr((ip, ix), N, N, mu)
    lam = np.full(N, rho * mu.sum() / N)
    try:
        lp = t_star_graph(mu, lam, ip, ix)
    except ValueError:
        with pytest.raises(ValueError, match="cannot carry the load"):
            t_star_graph_flow(mu, lam, ip, ix)
        return
    assert t_star_graph_flow(mu, lam, ip, ix) == pytest.approx(lp, rel=1e-5)
    assert lp >= t_star_greedy(mu, lam.sum()) - 1e-12


def test_power_of_d_and_erlang_c_reference_values():  # spec §5.4, §5.5
    assert pod_mean_field(0.5, 2) == pytest.approx(1.265686, abs=1e-6)
    assert pod_mean_field(0.9, 2) == pytest.approx(2.614057, abs=1e-6)
    assert pod_mean_field(0.99, 2) == pytest.approx(5.431997, abs=1e-6)
    assert pod_mean_field(0.5, 1) == pytest.approx(2.0)
    assert erlang_c(10, 8) == pytest.approx(0.4091801508, abs=1e-10)


@pytest.mark.parametrize(
    "rho, beta, psi_slow, l_slow, psi_fast, l_fast, total, gamma",
    [
        (0.3, 2.541072e-22, 0.3313490, 1.341412, 0.7921628, 0.2507048, 7.960584, 0.9421419),
        (1.0, 3.776845e-02, None, 5.426770, None, 3.905198, 46.65984, 0.5155566),
    ],
)
def test_token_product_form_reproduces_slacc(rho, beta, psi_slow, l_slow, psi_fast, l_fast, total, gamma):
    # spec §3.1: one type, 10 servers μ = (1,1,1,1,1,4,4,4,4,4)/Σμ, 6 tokens each, arrival rate ρ·Σμ
    mu = np.array([1.0] * 5 + [4.0] * 5)
    mu = mu / mu.sum()
    r = token_single_type(mu, rho, [6] * 10)
    assert r.blocking == pytest.approx(beta, rel=1e-6)
    assert r.mean_jobs[0] == pytest.approx(l_slow, abs=1e-6) and r.mean_jobs[9] == pytest.approx(l_fast, abs=1e-6)
    if psi_slow is not None:
        assert r.idle[0] == pytest.approx(psi_slow, abs=1e-7) and r.idle[9] == pytest.approx(psi_fast, abs=1e-7)
    assert r.mean_jobs.sum() == pytest.approx(total, abs=1e-5)
    assert rho * (1 - r.blocking) / r.mean_jobs.sum() / mu[0] == pytest.approx(gamma, abs=1e-7)


def test_token_general_form_equals_single_type_closed_form_and_erlang_b():
    mu = np.array([1.0, 2.0, 3.0])
    ip, ix, _ = neighbors_csr("complete", 3, 1, mu)
    a, b = token_product_form(mu, [4.0], ip, ix, [2, 1, 3]), token_single_type(mu, 4.0, [2, 1, 3])
    np.testing.assert_allclose(a.mean_jobs, b.mean_jobs, rtol=1e-12)
    assert a.blocking == pytest.approx(b.blocking, rel=1e-12)
    ip, ix, _ = neighbors_csr("complete", 6, 1, np.ones(6))
    assert token_product_form(np.ones(6), [4.8], ip, ix, [1] * 6).blocking == pytest.approx(0.17677963648, abs=1e-10)


# ------------------------------------------------------------------ simulator vs exact
def test_random_policy_matches_mm1_decomposition_on_a_sparse_graph():
    mu = np.r_[np.full(10, 2.0), np.full(10, 1.0)]
    lam = np.full(20, 0.4 * mu.sum() / 20)  # spec §2.4 setting: N = M = 20, degree 4, ρ = 0.4
    ip, ix = random_degree(20, 20, 4, rng(1, "graph"))  # a graph on which every server is stable
    exact = random_exact(mu, lam, ip, ix)
    r = simulate_bipartite(mu, lam, (ip, ix), "random", arrivals=400_000, seed=1)
    assert close(r.mean_response, r.mean_response_ci, exact), (r.mean_response, r.mean_response_ci, exact)


def test_token_policy_matches_product_form_with_two_types():
    mu = np.array([1.0, 2.0, 1.5, 0.5, 3.0])
    lam = [2.0, 3.0]
    nbrs = [[0, 1, 2], [1, 3, 4]]
    tokens = [2, 1, 3, 1, 2]
    ip, ix, _ = neighbors_csr(nbrs, 5, 2, mu)
    exact = token_product_form(mu, lam, ip, ix, tokens)
    r = simulate_bipartite(mu, lam, nbrs, "token-oldest", arrivals=400_000, seed=2, tokens=tokens)
    assert close(r.blocking, r.blocking_ci, exact.blocking)
    assert close(r.mean_response, r.mean_response_ci, exact.mean_response)
    np.testing.assert_allclose(r.server_jobs, exact.mean_jobs, rtol=0.03)


def test_token_policy_slacc_scenario_by_simulation():
    mu = np.array([1.0] * 5 + [4.0] * 5)
    mu = mu / mu.sum()
    exact = token_single_type(mu, 1.0, [6] * 10)
    r = simulate_bipartite(mu, [1.0], "complete", "token-oldest", arrivals=400_000, seed=3, tokens=[6] * 10)
    assert close(r.blocking, r.blocking_ci, exact.blocking)
    assert close(r.mean_response, r.mean_response_ci, exact.mean_response)


def test_jiq_fluid_against_its_closed_form_at_every_magnitude():
    """Two servers μ = (2, 1), Λ = 1: c₀ solves 2c² + c − 2 = 0, E[T] = c/(2 + c) + c/(1 + c).
    Rates scaled by k give E[T]/k exactly as the model says, from 1e-300 to 1e300, with no
    numpy warning; rates 600 orders apart give each term's limit (the fast server idle, the
    slow one busy). Before the solve was scale-free, (1e300, 1e300) at Λ = 1e300 answered 0."""
    import warnings

    c = (-1 + math.sqrt(17)) / 4
    exact = c / (2 + c) + c / (1 + c)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for k in (1e-300, 1e-10, 1.0, 3.0, 1e10, 1e300):
            assert jiq_fluid([2.0 * k, 1.0 * k], 1.0 * k) * k == pytest.approx(exact, rel=1e-14)
        assert jiq_fluid([1e300, 1e300], 1e300) == pytest.approx(1e-300, rel=1e-14)
        y = (math.sqrt(5) - 1) / 2  # y/(1 + y) + y = 1: the slow server's share
        assert jiq_fluid([1e-300, 1e300], 1e-300) == pytest.approx(y / (1 + y) * 1e300, rel=1e-14)
        assert jiq_fluid([1e-300, 1.0], 0.5) == pytest.approx(3.0, rel=1e-14)  # c₀ = 1: x = (1, 1/2)
    with pytest.raises(ValueError, match="unstable"):
        jiq_fluid([1.0, 1.0], 2.0)


def test_tokens_may_be_one_number_for_every_server_as_buffers_may():
    """The docstring's "one per server or one for all" holds for tokens too: a number is that
    many tokens at every server, the same run as the list (same seed)."""
    mu, lam = [1.0, 2.0, 0.5], [1.2]
    one = simulate_bipartite(mu, lam, "complete", "token-oldest", arrivals=20_000, seed=4, tokens=2)
    each = simulate_bipartite(mu, lam, "complete", "token-oldest", arrivals=20_000, seed=4, tokens=[2, 2, 2])
    assert one.blocking == each.blocking and one.mean_response == each.mean_response
    assert 0 < one.blocking < 1
    with pytest.raises(ValueError, match="tokens"):
        simulate_bipartite(mu, lam, "complete", "token-oldest", arrivals=20_000, seed=4, tokens=0)


def _jfsq_index(mu, nbrs):
    """JFSQ with deterministic ties: shortest queue, then fastest, then lowest index."""

    def choose(m, q):
        return min(nbrs[m], key=lambda n: (q[n], -mu[n], n))

    return choose


def _jsq_index(nbrs):
    return lambda m, q: min(nbrs[m], key=lambda n: (q[n], n))


def _jfiq_jfsq_index(mu, nbrs):
    def choose(m, q):
        idle = [n for n in nbrs[m] if q[n] == 0]
        if idle:
            return min(idle, key=lambda n: (-mu[n], n))
        return min(nbrs[m], key=lambda n: (q[n], -mu[n], n))

    return choose


@pytest.mark.parametrize(
    "policy, builder, kwargs",
    [
        ("jfsq", "jfsq", {}),
        ("jsq", "jsq", {}),
        ("jfiq", "jfiq", {"jfiq_fallback": "jfsq"}),
    ],
)
@pytest.mark.parametrize(
    "mu, lam, nbrs",
    [
        (np.array([2.0, 1.0]), [2.1], [[0, 1]]),
        (np.array([1.0, 2.0, 1.5]), [1.2, 1.5], [[0, 1], [1, 2]]),
    ],
)
def test_small_exact_ctmc_with_deterministic_ties(policy, builder, kwargs, mu, lam, nbrs):
    choose = {"jfsq": _jfsq_index(mu, nbrs), "jsq": _jsq_index(nbrs), "jfiq": _jfiq_jfsq_index(mu, nbrs)}[builder]
    ip, ix, _ = neighbors_csr(nbrs, mu.size, len(lam), mu)
    exact, truncated = policy_ctmc(mu, lam, ip, ix, choose, truncation=40 if mu.size == 2 else 20)
    assert truncated < 1e-8
    r = simulate_bipartite(mu, lam, nbrs, policy, arrivals=400_000, seed=4, ties="index", **kwargs)
    assert close(r.mean_response, r.mean_response_ci, exact), (r.mean_response, r.mean_response_ci, exact)


def test_finite_buffers_mm1b_and_erlang_b():
    # one M/M/1 with room for 3 jobs: P_B = (1−ρ)ρ^3 / (1−ρ^4)
    rho = 0.8
    r = simulate_bipartite([1.0], [rho], "complete", "random", arrivals=300_000, seed=6, buffers=3)
    assert close(r.blocking, r.blocking_ci, (1 - rho) * rho**3 / (1 - rho**4))
    # JIQ on 8 homogeneous servers without waiting room is M/M/8/8
    r = simulate_bipartite(np.ones(8), [6.0], "complete", "jiq", arrivals=300_000, seed=7, buffers=1)
    assert close(r.blocking, r.blocking_ci, erlang_b(8, 6.0))


@pytest.mark.parametrize("fast_complete", [True, False])
def test_random_mu_on_a_complete_graph_matches_mm1_decomposition(fast_complete):
    # routing ∝ μ makes every server an M/M/1 at load ρ; the fast path once fell through to JSQ
    # here (E[T] 0.45 instead of 1.333)
    mu = np.r_[np.full(20, 4.0), np.full(20, 1.0)]
    lam = np.full(40, 0.7 * mu.sum() / 40)
    ip, ix, _ = neighbors_csr("complete", 40, 40, mu)
    exact = random_exact(mu, lam, ip, ix, weights="mu")
    assert exact == pytest.approx(40 * (0.7 / 0.3) / lam.sum())  # N·ρ/(1−ρ) jobs, Little
    r = simulate_bipartite(mu, lam, "complete", "random-mu", arrivals=400_000, seed=13, fast_complete=fast_complete)
    assert close(r.mean_response, r.mean_response_ci, exact), (r.mean_response, r.mean_response_ci, exact)
    # each class is busy a fraction ρ of the time
    np.testing.assert_allclose(r.busy_fraction, [0.7, 0.7], atol=0.02)


@pytest.mark.parametrize("policy", list(POLICY_CODES))  # every queue policy has a fast path
def test_complete_graph_fast_path_agrees_with_the_neighbour_scan(policy):
    mu = np.r_[np.full(20, 2.0), np.full(20, 1.0)]
    lam = np.full(40, 0.7 * mu.sum() / 40)
    if policy == "random":
        lam = np.full(40, 0.6 * 40 / 40)  # every server stable under uniform routing
    kw = {"d": 2} if policy == "jsq-d" else {}
    a = simulate_bipartite(mu, lam, "complete", policy, arrivals=300_000, seed=8, **kw)
    b = simulate_bipartite(mu, lam, "complete", policy, arrivals=300_000, seed=9, fast_complete=False, **kw)
    z = abs(a.mean_response - b.mean_response) / math.hypot(se(a.mean_response_ci), se(b.mean_response_ci))
    assert z < 3, (policy, a.mean_response, b.mean_response)


# ------------------------------------------------------------------ limits and bounds
@pytest.mark.parametrize("policy", ["jfiq", "jfsq"])
def test_speed_aware_policies_near_t_star_at_n_1000(policy):  # spec §6: within ~2 % at N >= 1000
    mu = np.r_[np.full(500, 2.0), np.full(500, 1.0)]
    lam_tot = 0.6 * mu.sum()
    r = simulate_bipartite(mu, np.full(1000, lam_tot / 1000), "complete", policy, arrivals=1_000_000, seed=10)
    t_star = t_star_greedy(mu, lam_tot)
    assert t_star - 3 * se(r.mean_response_ci) <= r.mean_response <= 1.02 * t_star


@pytest.mark.parametrize("policy", ["jiq", "jsq"])
def test_speed_unaware_policies_near_their_fluid_limit(policy):  # spec §6: within 1 % at N >= 400
    mu = np.r_[np.full(500, 2.0), np.full(500, 1.0)]
    lam_tot = 0.6 * mu.sum()
    r = simulate_bipartite(mu, np.full(1000, lam_tot / 1000), "complete", policy, arrivals=1_000_000, seed=11)
    assert r.mean_response == pytest.approx(jiq_fluid(mu, lam_tot), rel=0.01)


def test_power_of_two_near_mean_field():
    r = simulate_bipartite(np.ones(1000), np.full(1000, 0.9), "complete", "jsq-d", d=2, arrivals=1_000_000, seed=12)
    assert r.mean_response == pytest.approx(pod_mean_field(0.9, 2), rel=0.01)


def test_graphs_are_seeded_and_well_formed():
    g = rng(1, "g")
    ip, ix = random_degree(50, 40, 5, g)
    assert np.diff(ip).tolist() == [5] * 50
    ip2, ix2 = random_degree(50, 40, 5, rng(1, "g"))
    np.testing.assert_array_equal(ix, ix2)
    ip, ix = regular(40, 40, 4, rng(2, "g"))
    assert np.bincount(ix, minlength=40).max() <= 4 and np.diff(ip).min() >= 1
    ip, ix = erdos_renyi(30, 100, 0.02, rng(3, "g"))
    assert np.diff(ip).min() >= 1


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(policy="jfq"), "policy must be one of"),
        (dict(policy="jsq-d"), "needs d >= 1"),
        (dict(neighbors=[[0], []]), "type 1 has no compatible server"),
        (dict(neighbors=[[0], [5]]), "out of range"),
        (dict(ties="first"), "ties must be"),
        (dict(mu=[1.0, -1.0]), "mu: rates must be > 0"),
    ],
)
def test_bad_parameters_are_named(kwargs, message):
    args = dict(mu=[1.0, 2.0], lam=[0.5, 0.5], neighbors=[[0, 1], [1]], policy="jsq", arrivals=1000)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        simulate_bipartite(**args)


def test_unstable_system_is_reported():
    # overloaded (Λ >= Σμ): flagged before any simulation, E[T] infinite
    r = simulate_bipartite([1.0], [1.5], "complete", "jsq", arrivals=2_000_000, seed=0)
    assert r.unstable and r.mean_response == math.inf and r.events == 0 and "Λ/Σμ" in r.note
    # a policy that is unstable where others are not (JSQ(1) is uniform routing: the slow server
    # gets 2.5 > 1): a queue outgrows the cap during the run, same flag
    r = simulate_bipartite([10.0, 1.0], [5.0], "complete", "jsq-d", d=1, arrivals=2_000_000, seed=0)
    assert r.unstable and r.mean_response == math.inf and r.events > 0 and "exceeded" in r.note


def test_a_load_at_the_capacity_boundary_up_to_rounding_is_unstable():
    # Σλ = Σμ up to one ulp: was called stable, with an E[T] growing with the run length
    mu = [1.0, 1.0]
    lam = [0.9999999999999999 * 2.0]
    assert sum(lam) < sum(mu)
    r = simulate_bipartite(mu, lam, "complete", "jsq", arrivals=20_000, seed=0)
    assert r.unstable and r.mean_response == math.inf and r.events == 0 and "capacity boundary" in r.note
    r = simulate_bipartite(mu, [1.99], "complete", "jsq", arrivals=20_000, seed=0)  # 0.5 % slack: stable
    assert not r.unstable and math.isfinite(r.mean_response)


# ------------------------------------------------------------------ parameters of other policies
SMALL = dict(mu=[1.0, 2.0], lam=[0.5, 0.5], neighbors=[[0, 1], [1]], arrivals=2000, seed=0)
NOT_APPLICABLE = [  # (parameter, value, policy): the policy's kernel path never reads it
    ("buffers", 3, "token-oldest"),
    ("buffers", [2, 3], "token-oldest"),
    ("tokens", [2, 1], "jsq"),
    ("tokens", [1, 1], "random"),
    ("ties", "index", "random"),
    ("ties", "index", "random-mu"),
    ("ties", "index", "jsq-d"),
    ("ties", "index", "token-oldest"),
    ("jfiq_fallback", "jfsq", "jiq"),
    ("jfiq_fallback", "jfsq", "jsq"),
    ("jfiq_fallback", "jfsq", "jfsq"),
    ("jfiq_fallback", "jfsq", "random"),
    ("jfiq_fallback", "jfsq", "random-mu"),
    ("jfiq_fallback", "jfsq", "jsq-d"),
    ("jfiq_fallback", "jfsq", "token-oldest"),
    ("fast_complete", False, "token-oldest"),
    ("d", 2, "jsq"),
    ("d", 2, "random-mu"),
    ("d", 1, "jiq"),
    ("d", 0, "random"),
    ("d", 2, "token-oldest"),
]


@pytest.mark.parametrize("name, value, policy", NOT_APPLICABLE, ids=[f"{n}={v!r}-{p}" for n, v, p in NOT_APPLICABLE])
def test_parameter_of_another_policy_is_an_error_naming_it(name, value, policy):
    extra = {"d": 2} if policy == "jsq-d" else {}
    with pytest.raises(ValueError, match=f"parameter '{name}' does not apply to policy '{policy}'"):
        simulate_bipartite(**SMALL, policy=policy, **{name: value}, **extra)


def test_d_is_only_for_jsq_d():
    with pytest.raises(
        ValueError,
        match=r"parameter 'd' does not apply to policy 'jfsq' \(only 'jsq-d' "
        r"samples d servers\); got d=2",
    ):
        simulate_bipartite(**SMALL, policy="jfsq", d=2)
    assert simulate_bipartite(**SMALL, policy="jsq-d", d=2).arrivals > 0


def test_token_policy_rejects_buffers_and_points_to_tokens():
    with pytest.raises(ValueError, match=r"'buffers' does not apply to policy 'token-oldest' \(it uses 'tokens'\)"):
        simulate_bipartite(**SMALL, policy="token-oldest", buffers=2)


@pytest.mark.parametrize(
    "policy, kwargs",
    [
        ("token-oldest", dict(tokens=[2, 1])),
        ("jiq", dict(buffers=[2, 3])),
        ("random", dict(buffers=2)),
        ("jsq", dict(ties="index", fast_complete=False)),
        ("jfsq", dict(ties="index")),
        ("jiq", dict(ties="index")),
        ("jfiq", dict(ties="index", jfiq_fallback="jfsq")),
        ("jsq-d", dict(d=2, buffers=4, fast_complete=False)),
        ("random-mu", dict(buffers=5)),
    ],
)
def test_applicable_parameters_still_run(policy, kwargs):
    r = simulate_bipartite(**SMALL, policy=policy, **kwargs)
    assert r.arrivals > 0 and math.isfinite(r.mean_response)


@pytest.mark.parametrize("policy", POLICIES)
def test_explicit_defaults_are_accepted_by_every_policy(policy):
    extra = {"d": 2} if policy == "jsq-d" else {"d": None}  # d's default is None
    r = simulate_bipartite(
        **SMALL,
        policy=policy,
        buffers=None,
        tokens=None,
        ties="random",
        jfiq_fallback="random",
        fast_complete=True,
        **extra,
    )
    assert r.arrivals > 0
