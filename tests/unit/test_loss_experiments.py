"""Experiment plumbing of the loss system: points, seeds, slope fits, config errors."""

import copy
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from schedbench.hall.config import ConfigError
from schedbench.checks import check_config
from schedbench.loss import erlang_b
from schedbench.hall.config import balanced_chunks
from schedbench.loss.stage.experiments import expand_points, point_seed, run_point
from schedbench.loss.stage.slopes import fit_loglog, slope_table  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
SMOKE = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())


def test_expand_points_adjusts_n_and_sweeps_rules():
    exp = {
        "n": [100, 1000],
        "n_residue": 1,
        "d": [2, 4],
        "alpha": 0.5,
        "beta": 1.0,
        "k": [{"rule": "full"}, {"rule": "log", "c": [0.5, 2.0]}, {"rule": "const", "k": 3}],
    }
    pts = expand_points("x", exp)
    assert len(pts) == 2 * 2 * 4
    for p in pts:
        assert p["n"] % p["d"] == 1
        if p["k_rule"] == "full":
            assert p["k"] == p["n"]
    log_pt = next(p for p in pts if p["k_label"] == "log c=2" and p["n"] == 1001 and p["d"] == 2)
    assert log_pt["k"] == math.ceil(2 * 1001**0.5 * math.log(1001))
    assert {p["k_label"] for p in pts} == {"full", "log c=0.5", "log c=2", "const k=3"}


def test_chunks_cover_every_point_once_and_seeds_ignore_chunking():
    exp = SMOKE["loss"]["experiments"]["A4_small_samples"]
    pts = expand_points("A4", exp)
    for per_job in (1, 2, 5, 100):
        flat = [p for c in balanced_chunks(pts, per_job, key=lambda p: (-p["n"], p["k"])) for p in c]
        assert sorted(map(str, flat)) == sorted(map(str, pts))
    seeds = {point_seed(3, p) for p in pts}
    assert len(seeds) == len(pts)
    assert point_seed(3, pts[0]) == point_seed(3, dict(pts[0]))


def test_fit_loglog_recovers_an_exact_power_law():
    n = np.array([1e3, 1e4, 1e5, 1e6])
    fit = fit_loglog(n, 3.0 * n**-0.5)
    assert fit["slope"] == pytest.approx(-0.5) and fit["points"] == 4
    fit = fit_loglog(n, np.array([0.0, 0.0, 1e-3, 1e-4]))  # zeros are left out
    assert fit["points"] == 2 and math.isnan(fit["slope"])


def test_slope_table_compares_with_the_claims():
    rows = []
    for n in (1001, 10001, 100001):
        rows.append(
            dict(
                experiment="A",
                d=2,
                alpha=0.5,
                beta=1.0,
                k_label="full",
                k_rule="full",
                n=n,
                blocking=0.57 * n**-0.5,
                excess_response=0.3 / n,
                exact_blocking=0.57 * n**-0.5,
                exact_excess=0.3 / n,
            )
        )
        rows.append(
            dict(
                experiment="B",
                d=2,
                alpha=0.5,
                beta=1.0,
                k_label="const k=4",
                k_rule="const",
                n=n,
                blocking=0.26,
                excess_response=0.28,
                exact_blocking=math.nan,
                exact_excess=math.nan,
            )
        )
    table = slope_table(pd.DataFrame(rows))
    a = table[(table["experiment"] == "A") & (table["quantity"] == "blocking")].iloc[0]
    assert a["slope"] == pytest.approx(-0.5) and a["claimed_slope"] == -0.5 and a["consistent"]
    e = table[(table["experiment"] == "A") & (table["quantity"] == "excess_response")].iloc[0]
    assert e["slope"] == pytest.approx(-1.0) and e["exact_slope"] == pytest.approx(-1.0)
    b = table[table["experiment"] == "B"].iloc[0]
    assert b["slope"] == pytest.approx(0.0) and math.isnan(b["claimed_slope"]) and b["consistent"] is None


def test_unresolved_simulation_is_judged_on_the_exact_values():
    n = np.array([1000, 10000, 100000])
    df = pd.DataFrame(
        dict(
            experiment="A",
            d=1,
            alpha=0.25,
            beta=1.0,
            k_label="full",
            k_rule="full",
            n=n,
            blocking=[1e-5, 0.0, 0.0],
            excess_response=0.0,
            exact_blocking=np.exp(-np.sqrt(n)),
            exact_excess=0.0,
        )
    )
    row = slope_table(df).iloc[0]
    assert row["points"] == 1 and row["judged_on"] == "exact" and row["consistent"]


def test_run_point_attaches_the_exact_value():
    pts = expand_points("A", {"n": [24], "n_residue": 0, "d": 2, "alpha": 0.5, "beta": 1.0, "k": [{"rule": "full"}]})
    row = run_point(
        pts[0],
        {"arrivals_per_server": 1000, "min_arrivals": 10000, "warmup": 5, "batches": 10, "independent": False},
        seed=1,
    )
    assert row["exact_excess"] == 0.0
    assert row["exact_blocking"] == pytest.approx(erlang_b(12, 24 * (1 - 24**-0.5) / 2), rel=1e-12)
    assert abs(row["blocking"] - row["exact_blocking"]) < 4 * (row["blocking_ci_hi"] - row["blocking_ci_lo"])


@pytest.mark.parametrize(
    "mutate, message",
    [
        (
            lambda c: c["loss"]["experiments"]["A3_log_sampling"]["k"][0].update(gamma_offset=0.1),
            "loss.experiments.A3_log_sampling.k[0]: rule 'log' takes no 'gamma_offset'",
        ),
        (
            lambda c: c["loss"]["experiments"]["A4_small_samples"]["k"][1].pop("k"),
            "loss.experiments.A4_small_samples.k[1]: rule 'const' needs 'k'",
        ),
        (
            lambda c: c["loss"]["experiments"]["A1_full_access"].update(beta=20.0, alpha=0.1),
            "loss.experiments.A1_full_access: λ(n)",
        ),
    ],
)
def test_loss_config_errors_name_the_key(mutate, message):
    cfg = copy.deepcopy(SMOKE)
    mutate(cfg)
    with pytest.raises(ConfigError) as info:
        check_config(cfg)
    assert message in str(info.value)
