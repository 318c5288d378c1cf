"""The ε sweep of the worst-case search (scheduling/stage/eps_sweep.py): its config check names
the key, its growth fits against exact power laws and logarithms, its points replay through the
real plug-in and the real offline solver, start no lower than any seed, chain from the previous ε,
and are the same on a rerun."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from schedbench.hall.config import ConfigError
from schedbench.scheduling.offline import solve_opt
from schedbench.scheduling.play import execute
from schedbench.scheduling.registry import get_algorithm
from schedbench.scheduling.search import WorstCase
from schedbench.scheduling.stage.config import check_search_section
from schedbench.scheduling.stage.eps_sweep import (
    CHAINED,
    POINT_COLUMNS,
    EpsSweepConfigError,
    check_eps_sweep,
    collect_sweep,
    growth_exponent,
    growth_table,
    growth_table_tex,
    increment_per_halving,
    point_file,
    run_sweep,
    sweep_eps,
    sweep_pairs,
    sweep_size,
)
from schedbench.scheduling.stage.plan import plan_scheduling

TINY = {"problems": {"load": ["lb-unit-reject"]}, "eps": [0.5, 0.25], "max_evals": 15, "budget_seconds": 120}


@pytest.mark.parametrize(
    "change, key",
    [
        ({"problems": None}, "search.eps_sweep.problems"),
        ({"problems": {}}, "search.eps_sweep.problems"),
        ({"problems": {"makespan": ["greedy-cap"]}}, "search.eps_sweep.problems.makespan"),
        ({"problems": {"load": "lb-unit-reject"}}, "search.eps_sweep.problems.load"),
        ({"problems": {"load": ["no-such-rule"]}}, "search.eps_sweep.problems.load"),
        ({"problems": {"load": ["mft-unit"]}}, "search.eps_sweep.problems.load"),
        ({"problems": {"load": ["greedy"]}}, "search.eps_sweep.problems.load"),
        ({"problems": {"load": ["greedy-cap", "greedy-cap"]}}, "search.eps_sweep.problems.load"),
        ({"eps": [0.5]}, "search.eps_sweep.eps"),
        ({"eps": [0.5, 1.0]}, "search.eps_sweep.eps"),
        ({"eps": [0.5, float("nan")]}, "search.eps_sweep.eps"),
        ({"eps": [0.5, 0.5]}, "search.eps_sweep.eps"),
        ({"eps": [0.5, True]}, "search.eps_sweep.eps"),
        ({"m": 0}, "search.eps_sweep.m"),
        ({"m": "eps"}, "search.eps_sweep.m"),
        ({"n": 2.5}, "search.eps_sweep.n"),
        ({"n": 10**9}, "search.eps_sweep.n"),
        ({"m": 10**6}, "search.eps_sweep.m"),
        ({"max_evals": 0}, "search.eps_sweep.max_evals"),
        ({"budget_seconds": float("inf")}, "search.eps_sweep.budget_seconds"),
        ({"budget_seconds": -1}, "search.eps_sweep.budget_seconds"),
        ({"seed": -3}, "search.eps_sweep.seed"),
        ({"jobs_per_inverse_eps": 0}, "search.eps_sweep.jobs_per_inverse_eps"),
        ({"colour": "red"}, "search.eps_sweep.colour"),
    ],
)
def test_config_errors_name_the_key(change, key):
    section = {**TINY, **change}
    with pytest.raises(EpsSweepConfigError) as err:
        check_eps_sweep(section)
    assert str(err.value).startswith(key + ":") or str(err.value).startswith(key + "."), str(err.value)
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):  # the config check says the same
        check_search_section({"eps_sweep": section})


def test_the_anand_batch_sweep_refuses_nothing_it_can_run():
    """A speed baseline's sweep passes the check (its ε > 0); every listed pair is planned."""
    section = {"problems": {"maxflow": ["anand-batch", "ll-fifo"], "stretch": ["gwmft"]}}
    check_eps_sweep(section)
    assert sweep_pairs(section) == [("maxflow", "anand-batch"), ("maxflow", "ll-fifo"), ("stretch", "gwmft")]
    stages = plan_scheduling({"experiments": {}, "eps": [0.25], "search": {"eps_sweep": section}})
    sweep = [s for s in stages if s.stage == "eps_sweep"]
    assert [s.section for s in sweep] == [
        "search.eps_sweep.problems.maxflow.anand-batch",
        "search.eps_sweep.problems.maxflow.ll-fifo",
        "search.eps_sweep.problems.stretch.gwmft",
    ]
    assert all(s.jobs == 1 and s.runs == 4 for s in sweep)


def test_sizes_grow_with_one_over_eps():
    section = {"problems": {"load": ["greedy-cap"]}}
    assert sweep_eps(section) == [0.5, 0.25, 0.125, 0.0625]
    assert [sweep_size(section, e) for e in (0.5, 0.25, 0.125, 0.0625)] == [(2, 8), (4, 16), (8, 32), (16, 64)]
    assert sweep_size(section, 0.3) == (4, 14)  # 1/0.3 = 3.3 → m = 4; n = max(12, ⌈4/0.3⌉ = 14)
    assert sweep_size({**section, "m": 5, "n": 7}, 0.01) == (5, 7)
    assert sweep_size({**section, "jobs_per_inverse_eps": 1}, 0.125) == (8, 24)


def test_growth_fits_recover_exact_power_laws_and_logarithms():
    x = np.array([2.0, 4.0, 8.0, 16.0])
    slope, lo, hi = growth_exponent(x, 3.0 * x**2)
    assert slope == pytest.approx(2.0) and lo == pytest.approx(2.0) and hi == pytest.approx(2.0)
    slope, lo, hi = growth_exponent(x, [1.0, 2.0, 2.0, 8.0])  # steps 1, 0, 2
    assert (lo, hi) == (pytest.approx(0.0), pytest.approx(2.0)) and lo <= slope <= hi
    assert increment_per_halving(x, np.log2(x) + 1.0) == pytest.approx(1.0)  # Θ(log 1/ε): +1 per halving
    assert increment_per_halving(x, x) == pytest.approx(4.6)  # a power grows faster per halving
    assert all(math.isnan(v) for v in growth_exponent([2.0], [1.0]))
    assert all(math.isnan(v) for v in growth_exponent(x, [math.nan] * 4))
    assert math.isnan(increment_per_halving([2.0, math.nan], [1.0, 2.0]))


def test_growth_is_fitted_in_the_form_of_the_bound_with_an_interval():
    from schedbench.scheduling.stage.eps_sweep import bound_kind, growth_fit

    assert bound_kind("lb-unit-reject") == bound_kind("lb-general-reject") == "log"
    assert bound_kind("mft-unit") == bound_kind("wmft-B") == bound_kind("ll-fifo") == "power"
    x = np.array([2.0, 4.0, 8.0, 16.0, 32.0])
    slope, lo, hi = growth_fit(x, 3.0 * x**0.5, "power")  # exact: the interval shrinks to the slope
    assert slope == pytest.approx(0.5) and lo == pytest.approx(0.5) and hi == pytest.approx(0.5)
    slope, lo, hi = growth_fit(x, 2.0 + np.log2(x), "log")  # +1 per halving
    assert slope == pytest.approx(1.0) and lo == pytest.approx(1.0)
    noisy = 2.0 + np.log2(x) + np.array([0.3, -0.2, 0.1, -0.4, 0.2])
    slope, lo, hi = growth_fit(x, noisy, "log")
    from scipy import stats

    fit = stats.linregress(np.log2(x), noisy)  # the interval recomputed by hand: t(0.975, 3)·stderr
    assert slope == pytest.approx(fit.slope) and hi - slope == pytest.approx(3.182446305284263 * fit.stderr)
    assert lo < 1.0 < hi
    assert math.isnan(growth_fit(x[:2], [1.0, 2.0], "power")[1])  # two points: a slope, no interval
    assert all(math.isnan(v) for v in growth_fit([2.0], [1.0], "log"))


def _replay(wc: WorstCase) -> float:
    """ALG/OPT of a stored point, recomputed without the search: the real plug-in (given the OPT
    as T* where it assumes one) and the real offline solver."""
    opt = solve_opt(wc.instance, wc.problem, time_limit=60)
    assert opt.status == "optimal"
    cls = get_algorithm(wc.algorithm)
    oracle = opt.value if cls.uses_oracle(cls.resolve_params(dict(wc.params))) else None
    run = execute(cls, wc.instance, eps=wc.eps, params=dict(wc.params), oracle=oracle, problem=wc.problem)
    return run.objective / opt.value


@pytest.mark.parametrize(
    "problem, algorithm",
    [("load", "lb-unit-reject"), ("wtdmaxflow", "wmft-B"), ("maxflow", "ll-fifo")],
)
def test_points_replay_chain_and_start_no_lower_than_their_seeds(tmp_path, problem, algorithm):
    section = {**TINY, "problems": {problem: [algorithm]}}
    outs = [point_file(tmp_path, problem, algorithm, e) for e in sweep_eps(section)]
    rows = run_sweep(problem, algorithm, section, 14, outs)
    assert [r["eps"] for r in rows] == [0.5, 0.25]
    assert [r["m"] for r in rows] == [2, 4]
    assert math.isnan(rows[0]["chained_start"]) and math.isfinite(rows[1]["chained_start"])
    for row, out in zip(rows, outs):
        wc = WorstCase.load(out)
        assert wc.replayed and wc.problem == problem and wc.eps == row["eps"]
        assert wc.extra["evals"] == TINY["max_evals"] and row["limit_hit"] == ""
        assert _replay(wc) == pytest.approx(row["ratio"])
        seeds = [s["ratio"] for s in wc.extra["seed_scores"].values()]
        assert row["ratio"] >= max(seeds, default=0.0) - 1e-12  # the search keeps its best
    assert CHAINED in WorstCase.load(outs[1]).extra["seed_scores"]
    # the previous ε's worst case, played again at the smaller ε, is where the chain starts
    previous = WorstCase.load(outs[0])
    previous.eps = 0.25
    assert rows[1]["chained_start"] == pytest.approx(_replay(previous))


def test_a_rerun_gives_the_same_points(tmp_path):
    outs1 = [point_file(tmp_path / "a", "load", "lb-unit-reject", e) for e in sweep_eps(TINY)]
    outs2 = [point_file(tmp_path / "b", "load", "lb-unit-reject", e) for e in sweep_eps(TINY)]
    run_sweep("load", "lb-unit-reject", TINY, 3, outs1)
    run_sweep("load", "lb-unit-reject", TINY, 3, outs2)
    for a, b in zip(outs1, outs2):
        da, db = json.loads(a.read_text()), json.loads(b.read_text())
        da.pop("seconds"), db.pop("seconds")
        assert da == db


def test_table_growth_and_tex(tmp_path):
    section = {**TINY, "problems": {"load": ["lb-unit-reject", "greedy-cap"]}}
    paths = []
    for problem, algorithm in sweep_pairs(section):
        outs = [point_file(tmp_path, problem, algorithm, e) for e in sweep_eps(section)]
        run_sweep(problem, algorithm, section, 14, outs)
        paths += outs
    points = collect_sweep(paths)
    assert list(points.columns) == POINT_COLUMNS == list(collect_sweep([]).columns)
    assert len(points) == 4 and set(points["opt_status"]) == {"optimal"}
    growth = growth_table(points)
    assert list(growth["algorithm"]) == ["greedy-cap", "lb-unit-reject"]
    for _, g in growth.iterrows():
        rows = points[points["algorithm"] == g["algorithm"]].sort_values("inv_eps")
        expected = math.log(rows["ratio"].iloc[1] / rows["ratio"].iloc[0]) / math.log(2.0)
        assert g["found_exponent"] == pytest.approx(expected)  # two points: the one step's slope
        assert g["grows"] == (rows["ratio"].iloc[1] > rows["ratio"].iloc[0])
    tex = growth_table_tex(growth)
    assert tex.count("\\\\") == 2 + len(growth) and "lb-unit-reject" in tex
    assert "no \\texttt{search.eps\\_sweep}" in growth_table_tex(growth.iloc[0:0])


def test_the_figure_has_a_panel_per_model_and_a_line_per_algorithm(tmp_path):
    from schedbench.scheduling.stage.search_figures import eps_sweep_figure

    points = collect_sweep([])
    rows = []
    for algorithm, model in (("mft-unit", "rejection"), ("ll-fifo", "speed"), ("edf", "speed")):
        for e in (0.5, 0.25):
            rows.append(
                {
                    **{c: math.nan for c in points.columns},
                    "problem": "maxflow",
                    "algorithm": algorithm,
                    "model": model,
                    "eps": e,
                    "inv_eps": 1 / e,
                    "ratio": 1 / e,
                    "adversary_best": 1.0,
                    "ratio_bound": 1e6 if algorithm == "mft-unit" else math.nan,
                }
            )
    import pandas as pd

    fig = eps_sweep_figure(pd.DataFrame(rows), "maxflow")
    axes = fig.get_axes()
    assert [ax.get_title() for ax in axes] == ["rejection model (reject ≤ ε)", "speed 1 + ε"]
    labels = [[t.get_text() for t in ax.get_legend().get_texts()] for ax in axes]
    assert labels[0] == ["mft-unit (bound ≥ 1e+06, above)"] and labels[1] == ["edf", "ll-fifo"]


def test_a_model_with_more_algorithms_than_a_panel_carries_is_split_into_panels():
    import pandas as pd

    from schedbench.hall.figure_style import MAX_LINES_PER_PANEL
    from schedbench.scheduling.stage.search_figures import eps_sweep_figure

    points = collect_sweep([])
    speed = ["anand-batch", "edf", "global-edf", "imd", "ll-fifo", "lwf", "ssf-edf"]  # seven
    rows = [
        {
            **{c: math.nan for c in points.columns},
            "problem": "maxflow",
            "algorithm": a,
            "model": "speed",
            "eps": e,
            "inv_eps": 1 / e,
            "ratio": 1.5,
            "adversary_best": 1.0,
        }
        for a in speed
        for e in (0.5, 0.25)
    ]
    fig = eps_sweep_figure(pd.DataFrame(rows), "maxflow")
    axes = fig.get_axes()
    assert [ax.get_title() for ax in axes] == ["speed 1 + ε (1 of 2)", "speed 1 + ε (2 of 2)"]
    legends = [[t.get_text() for t in ax.get_legend().get_texts()] for ax in axes]
    assert all(len(entries) <= MAX_LINES_PER_PANEL for entries in legends)
    assert sorted(sum(legends, [])) == speed  # every algorithm once
