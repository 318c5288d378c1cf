"""``schedbench loss simulate|exact`` and ``schedbench bipartite simulate|exact``: the values are
the library functions' own (called directly here with the same arguments), and a bad argument is
one line naming the option, exit 2, no traceback."""

from __future__ import annotations

import json

import numpy as np
import pytest

from schedbench.bipartite import neighbors_csr, simulate_bipartite
from schedbench.bipartite.oracles import policy_ctmc, random_exact, token_product_form
from schedbench.cli import main
from schedbench.loss import lam_of_n, simulate_loss, solve_loss_exact


def _json(argv: list[str], capsys) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_loss_exact_is_the_ctmc_oracle(capsys):
    out = _json(["loss", "exact", "--n", "8", "--k", "3", "--d", "2", "--lam", "0.8", "--mu", "1.5"], capsys)
    ex = solve_loss_exact(8, 3, 2, 0.8, mu=1.5)
    assert out["blocking"] == ex.blocking and out["mean_response"] == ex.mean_response
    assert out["split_fractions"] == ex.split_fractions.tolist() and out["n_states"] == ex.n_states
    assert out["mean_jobs"] == ex.mean_jobs


def test_loss_exact_with_beta_alpha_and_independent_sub_jobs(capsys):
    argv = ["loss", "exact", "--n", "6", "--k", "6", "--d", "3", "--beta", "0.5", "--alpha", "0.5", "--independent"]
    out = _json(argv, capsys)
    ex = solve_loss_exact(6, 6, 3, lam_of_n(6, 0.5, 0.5), independent=True)
    assert out["lam"] == lam_of_n(6, 0.5, 0.5) and out["blocking"] == ex.blocking
    assert out["mean_response"] == ex.mean_response
    assert out["mean_jobs"] is None  # NaN (not defined for independent sub-jobs) is null in strict JSON


def test_loss_simulate_is_simulate_loss(capsys):
    argv = ["loss", "simulate", "--n", "20", "--k", "4", "--d", "2", "--lam", "0.9", "--arrivals", "20000"]
    out = _json([*argv, "--seed", "3"], capsys)
    res = simulate_loss(20, 4, 2, 0.9, 20000, seed=3)
    assert out["blocking"] == res.blocking and out["mean_response"] == res.mean_response
    assert (out["blocking_ci_lo"], out["blocking_ci_hi"]) == res.blocking_ci
    assert (out["f_1"], out["f_2"]) == tuple(res.split_fractions) and out["arrivals"] == res.arrivals
    exact = _json(["loss", "exact", *argv[2:10]], capsys)  # the same point, exactly
    assert out["blocking_ci_lo"] - 0.02 < exact["blocking"] < out["blocking_ci_hi"] + 0.02


def test_loss_simulate_with_the_event_method(capsys):
    argv = ["loss", "simulate", "--n", "10", "--k", "3", "--d", "2", "--lam", "0.7", "--arrivals", "4000"]
    out = _json([*argv, "--method", "event", "--service", "det", "--batches", "10", "--warmup", "5"], capsys)
    res = simulate_loss(10, 3, 2, 0.7, 4000, method="event", service="det", batches=10, warmup=5.0)
    assert out["blocking"] == res.blocking and out["estimator"] == "count"


def test_bipartite_exact_jfsq_is_the_ctmc_with_index_ties(capsys):
    out = _json(["bipartite", "exact", "--policy", "jfsq", "--mu", "2,1", "--lam", "2.1", "--truncation", "40"], capsys)
    mu = np.array([2.0, 1.0])
    ip, ix, _ = neighbors_csr("complete", 2, 1, mu)
    exact, mass = policy_ctmc(mu, [2.1], ip, ix, lambda m, q: min((0, 1), key=lambda n: (q[n], -mu[n], n)), 40)
    assert out["mean_response"] == exact and out["truncated_mass"] == mass and out["ties"] == "index"
    sim = _json(
        ["bipartite", "simulate", "--policy", "jfsq", "--mu", "2,1", "--lam", "2.1", "--arrivals", "100000"]
        + ["--ties", "index", "--seed", "1"],
        capsys,
    )
    res = simulate_bipartite(mu, [2.1], "complete", "jfsq", arrivals=100000, seed=1, ties="index")
    assert sim["mean_response"] == res.mean_response and sim["mean_response_ci"] == list(res.mean_response_ci)
    lo, hi = sim["mean_response_ci"]
    assert lo - (hi - lo) < exact < hi + (hi - lo)  # the simulator agrees with the exact value


def test_bipartite_exact_jfiq_prefers_the_fastest_idle_server(capsys):
    argv = ["bipartite", "exact", "--policy", "jfiq", "--jfiq-fallback", "jfsq", "--mu", "1,3,2", "--lam", "1,2"]
    out = _json([*argv, "--neighbors", "0,1;1,2"], capsys)
    mu = np.array([1.0, 3.0, 2.0])
    ip, ix, _ = neighbors_csr([[0, 1], [1, 2]], 3, 2, mu)
    nbrs = [[0, 1], [1, 2]]

    def choose(m, q):
        idle = [n for n in nbrs[m] if q[n] == 0]
        if idle:
            return max(idle, key=lambda n: (mu[n], -n))
        return min(nbrs[m], key=lambda n: (q[n], -mu[n], n))

    assert out["mean_response"] == policy_ctmc(mu, [1.0, 2.0], ip, ix, choose)[0]


def test_bipartite_exact_random_and_token(capsys):
    out = _json(
        ["bipartite", "exact", "--policy", "random-mu", "--mu", "2,1,1", "--lam", "1,1", "--neighbors", "0,1;1,2"],
        capsys,
    )
    ip, ix, _ = neighbors_csr([[0, 1], [1, 2]], 3, 2, np.array([2.0, 1.0, 1.0]))
    assert out["mean_response"] == random_exact([2.0, 1.0, 1.0], [1.0, 1.0], ip, ix, weights="mu")
    argv = ["bipartite", "exact", "--policy", "token-oldest", "--mu", "1,2,1.5,0.5,3", "--lam", "2,3"]
    out = _json([*argv, "--neighbors", "0,1,2;1,3,4", "--tokens", "2,1,3,1,2"], capsys)
    mu2 = np.array([1.0, 2.0, 1.5, 0.5, 3.0])
    ip, ix, _ = neighbors_csr([[0, 1, 2], [1, 3, 4]], 5, 2, mu2)
    ex = token_product_form(mu2, [2.0, 3.0], ip, ix, [2, 1, 3, 1, 2])
    assert out["blocking"] == ex.blocking and out["mean_response"] == ex.mean_response


def test_bipartite_simulate_an_overloaded_system_says_so(capsys):
    out = _json(["bipartite", "simulate", "--policy", "jsq", "--mu", "1,1", "--lam", "3", "--arrivals", "100"], capsys)
    assert out["unstable"] is True and out["mean_response"] is None and "overloaded" in out["note"]


LOSS = ["loss", "simulate", "--n", "8", "--k", "2", "--d", "2", "--lam", "0.9", "--arrivals", "1000"]
EXACT = ["loss", "exact", "--n", "8", "--k", "2", "--d", "2", "--lam", "0.9"]
BSIM = ["bipartite", "simulate", "--policy", "jfsq", "--mu", "2,1", "--lam", "1", "--arrivals", "1000"]
BEXACT = ["bipartite", "exact", "--policy", "jfsq", "--mu", "2,1", "--lam", "1"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (LOSS[:3] + ["0"] + LOSS[4:], "argument --n: expected an integer >= 1, got 0"),
        (LOSS[:9] + ["nan"] + LOSS[10:], "argument --lam: must be a finite number"),
        (LOSS + ["--warmup", "-1"], "argument --warmup: must be a finite number >= 0"),
        (LOSS + ["--batches", "5000"], "simulate_loss: arrivals = 1000 is less than batches = 5000"),
        (LOSS + ["--method", "event", "--estimator", "conditional"], "'estimator' = 'conditional' does not apply"),
        (EXACT[:5] + ["9"] + EXACT[6:], "--k 9: exceeds --n 8"),
        (EXACT + ["--alpha", "1"], "--alpha: goes with --beta"),
        (EXACT[:8] + ["--beta", "2"], "--beta: needs --alpha"),
        (EXACT[:8] + ["--beta", "2", "--alpha", "0"], "lam_of_n"),
        (["loss", "exact", "--n", "400", "--k", "2", "--d", "9", "--lam", "1"], "give more than max_states = 200000"),
        (EXACT + ["--max-states", "3000000"], "max_states"),
        (BSIM[:5] + ["2,x"] + BSIM[6:], "argument --mu: expected comma-separated service rates > 0, got 'x'"),
        (BSIM + ["--d", "2"], "parameter 'd' does not apply to policy 'jfsq'"),
        (BSIM + ["--neighbors", "0;1"], "neighbors: 2 lists for M = 1 types"),
        (BSIM + ["--tokens", "0"], "argument --tokens: every value must be an integer >= 1"),
        (BEXACT[:3] + ["jsq-d"] + BEXACT[4:], "argument --policy: invalid choice: 'jsq-d'"),
        (BEXACT[:3] + ["jfiq"] + BEXACT[4:], "--policy jfiq: give --jfiq-fallback jfsq"),
        (BEXACT + ["--tokens", "1,1"], "--tokens: only for --policy token-oldest"),
        (BEXACT[:5] + ["1,1,1,1,1"] + BEXACT[6:], "--mu: 5 servers"),
        (BEXACT[:7] + ["4"], "policy_ctmc: unstable"),
        (BEXACT + ["--neighbors", "0,2"], "neighbors: type 0 lists server 2, out of range 0..1"),
        (BEXACT + ["--truncation", "2000"], "truncation = 2000 gives"),
    ],
)
def test_a_bad_argument_is_one_line_naming_it_exit_2(argv, message, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: its usage, then one error line naming the option
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert message in err.strip().splitlines()[-1], err


@pytest.mark.parametrize("model", ["loss", "bipartite"])
def test_plugins_do_not_apply_to_the_other_models(model, capsys, tmp_path):
    # plug-ins extend the rejection model only: a --plugins given here is refused, naming it
    argv = ["loss", "exact", "--n", "12", "--k", "4", "--d", "2", "--lam", "0.9"]
    if model == "bipartite":
        argv = ["bipartite", "exact", "--policy", "jfsq", "--mu", "2,1", "--lam", "2.1", "--truncation", "40"]
    assert main(["--plugins", str(tmp_path), *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--plugins does not apply to `schedbench {model}`" in err
    with pytest.raises(SystemExit) as exc:  # not among the command's options at all
        main([*argv, "--plugins", str(tmp_path)])
    assert exc.value.code == 2 and "unrecognized arguments: --plugins" in capsys.readouterr().err
    assert main(argv) == 0
