"""Plumbing of the bipartite experiments: groups, degree rules, unstable pairs, rates, config errors."""

import copy
import math
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from schedbench.hall.config import ConfigError, resolve_config
from schedbench.checks import check_config
from schedbench.bipartite.stage.experiments import degree_for, expand_groups, run_group, server_rates
from schedbench.bipartite.stage.rates import bipartite_rates

ROOT = Path(__file__).resolve().parents[2]
SMOKE = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())
SETTINGS = {"arrivals_per_server": 50, "min_arrivals": 20_000, "warmup": 5, "batches": 10}


def test_degree_rules():
    assert degree_for({"rule": "log", "c": 2}, 1000, 0.5) == math.ceil(2 * math.log(1000))
    assert degree_for({"rule": "log2"}, 1000, 0.5) == math.ceil(math.log(1000) ** 2)
    assert degree_for({"rule": "sqrt"}, 1000, 0.5) == 32
    assert degree_for({"rule": "power_log"}, 1000, 0.3) == math.ceil(1000**0.3 * math.log(1000))
    assert degree_for({"rule": "const", "D": 5000}, 1000, 0.5) == 1000
    assert degree_for({"rule": "full"}, 7, 0.5) == 7


def test_server_rates_follow_the_class_fractions():
    mu = server_rates(10, {"mu": [4.0, 2.0, 1.0], "fractions": [0.3, 0.3, 0.4]})
    assert mu.tolist() == [4.0] * 3 + [2.0] * 3 + [1.0] * 4


def test_groups_for_fixed_and_sub_halfin_whitt_loads():
    exp = {
        "N": [100, 400],
        "classes": {"mu": [1.0], "fractions": [1.0]},
        "load": {"beta": 1.0, "alpha": [0.2, 0.4]},
        "degree": [{"rule": "power_log"}, {"rule": "log", "c": [1, 2]}],
        "policies": ["jfsq"],
        "types_per_server": 1,  # the schema's defaults, as the loader fills them
        "graph": "G2",
        "d": 2,
    }
    groups = expand_groups("B4", exp)
    assert len(groups) == 2 * 2 * 3
    g = next(g for g in groups if g["N"] == 400 and g["alpha"] == 0.4 and g["degree_label"] == "power_log")
    assert g["rho"] == pytest.approx(1 - 400**-0.4)
    assert g["degree"] == math.ceil(400**0.4 * math.log(400))


def test_run_group_records_unstable_pairs_and_bounds():
    exp = {"classes": {"mu": [2.0, 1.0], "fractions": [0.5, 0.5]}, "policies": ["jfsq", "random"], "d": 2}
    group = {
        "experiment": "X",
        "N": 40,
        "M": 40,
        "rho": 0.8,
        "alpha": math.nan,
        "beta": math.nan,
        "graph": "complete",
        "degree_label": "full",
        "degree": 40,
    }
    rows = run_group(group, exp, SETTINGS, seed=3)
    by = {r["policy"]: r for r in rows}
    assert by["random"]["status"] == "unstable"  # slow servers get 1.2 > μ = 1 under uniform routing
    assert by["jfsq"]["status"] == "ok"
    assert by["jfsq"]["t_star_graph"] == pytest.approx(by["jfsq"]["t_star"])  # complete graph
    assert by["jfsq"]["mean_response"] >= by["jfsq"]["t_star"] - 3 * (
        by["jfsq"]["mean_response_ci_hi"] - by["jfsq"]["mean_response"]
    )
    # the same group again gives the same numbers (seeded by the group, not by the batch)
    again = {r["policy"]: r for r in run_group(group, exp, SETTINGS, seed=3)}
    assert again["jfsq"]["mean_response"] == by["jfsq"]["mean_response"]


def test_run_group_passes_d_only_to_jsq_d():
    # simulate_bipartite rejects d for any other policy, so a group mixing jsq-d with others runs
    # only if run_group keeps d to jsq-d
    exp = {"classes": {"mu": [2.0, 1.0], "fractions": [0.5, 0.5]}, "policies": ["jsq-d", "jfsq", "random-mu"], "d": 3}
    group = {
        "experiment": "X",
        "N": 20,
        "M": 20,
        "rho": 0.6,
        "alpha": math.nan,
        "beta": math.nan,
        "graph": "complete",
        "degree_label": "full",
        "degree": 20,
    }
    by = {r["policy"]: r for r in run_group(group, exp, SETTINGS, seed=5)}
    assert [by[p]["status"] for p in exp["policies"]] == ["ok"] * 3
    assert (by["jsq-d"]["d"], by["jfsq"]["d"], by["random-mu"]["d"]) == (3, 0, 0)


def test_sparse_group_uses_the_graph_lp():
    exp = {"classes": {"mu": [2.0, 1.0], "fractions": [0.5, 0.5]}, "policies": ["jfiq"]}
    group = {
        "experiment": "X",
        "N": 60,
        "M": 60,
        "rho": 0.6,
        "alpha": math.nan,
        "beta": math.nan,
        "graph": "G2",
        "degree_label": "const D=6",
        "degree": 6,
    }
    row = run_group(group, exp, SETTINGS, seed=4)[0]
    assert row["status"] == "ok"
    assert row["t_star_graph"] >= row["t_star"] - 1e-12
    assert row["mean_degree"] == 6.0


def test_rates_are_fitted_per_series():
    rows = [
        dict(
            experiment="B",
            rho=0.8,
            alpha=math.nan,
            degree_label="log c=2",
            policy="jfsq",
            status="ok",
            N=n,
            excess_over_t_star=3.0 * n**-0.5,
        )
        for n in (100, 1000, 10000)
    ]
    rates = bipartite_rates(pd.DataFrame(rows))
    assert rates.iloc[0]["slope"] == pytest.approx(-0.5) and rates.iloc[0]["rho_label"] == "rho = 0.8"


@pytest.mark.parametrize(
    "mutate, message",
    [
        (
            lambda c: c["bipartite"]["experiments"]["B1_many_server"].update(load={"alpha": 0.3}),
            "give exactly one of 'rho'",
        ),
        (
            lambda c: c["bipartite"]["experiments"]["B1_many_server"]["classes"].update(fractions=[0.5, 0.4]),
            "fractions summing to 1",
        ),
        (
            lambda c: c["bipartite"]["experiments"]["B3_sparsity"]["degree"][0].update(c=2),
            "bipartite.experiments.B3_sparsity.degree[0]: rule 'const' takes no 'c'",
        ),
    ],
)
def test_bipartite_config_errors_name_the_key(mutate, message):
    cfg = resolve_config(copy.deepcopy(SMOKE))
    mutate(cfg)
    with pytest.raises(ConfigError, match=re.escape(message)):
        check_config(cfg)
