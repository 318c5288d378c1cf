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
    point_files,
    run_sweep,
    series_points,
    sweep_eps,
    sweep_jobs,
    sweep_min_jobs,
    sweep_pairs,
    sweep_series,
    sweep_size,
)
from schedbench.scheduling.stage.eps_sweep_report import (
    growth_exponent,
    growth_table,
    growth_table_tex,
    increment_per_halving,
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
        ({"min_jobs_per_inverse_eps": 0}, "search.eps_sweep.min_jobs_per_inverse_eps"),
        ({"min_jobs_per_inverse_eps": 20, "n": 30}, "search.eps_sweep.min_jobs_per_inverse_eps"),
        ({"series": []}, "search.eps_sweep.series"),
        ({"series": {"Bad-Name": {}}}, "search.eps_sweep.series"),
        ({"series": {"s": {"seed": 3}}}, "search.eps_sweep.series.s.seed"),
        ({"series": {"s": "m8"}}, "search.eps_sweep.series.s"),
        ({"series": {"s": {"m": [4]}}}, "search.eps_sweep.series.s.m"),
        ({"series": {"s": {"m": [4, 4]}}}, "search.eps_sweep.series.s.m"),
        ({"series": {"s": {"m": [4, 8]}}}, "search.eps_sweep.series.s.eps"),  # an m series needs its one ε
        ({"series": {"s": {"m": [4, 8], "eps": [0.5, 0.25]}}}, "search.eps_sweep.series.s.eps"),
        ({"series": {"s": {"m": [4, 8], "eps": 1.5}}}, "search.eps_sweep.series.s.eps"),
        ({"series": {"s": {"m": 8, "eps": 0.25}}}, "search.eps_sweep.series.s.eps"),
        ({"series": {"s": {"m": 8, "max_evals": -1}}}, "search.eps_sweep.series.s.max_evals"),
        ({"series": {"s": {"m": 8, "problems": {"load": ["edf"]}}}}, "search.eps_sweep.series.s.problems.load"),
        (
            {"series": {"s": {"m": 8, "min_jobs_per_inverse_eps": 10**6}}},
            "search.eps_sweep.series.s.min_jobs_per_inverse_eps",
        ),
    ],
)
def test_config_errors_name_the_key(change, key):
    section = {**TINY, **change}
    with pytest.raises(EpsSweepConfigError) as err:
        check_eps_sweep(section)
    assert str(err.value).startswith(key + ":") or str(err.value).startswith(key + "."), str(err.value)
    if key.endswith(".eps") and "[4, 8]" in repr(change):
        assert "one ε" in str(err.value)
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):  # the config check says the same
        check_search_section({"eps_sweep": section})


def _sweep_only(section: dict) -> dict:
    """A loaded config (schema defaults filled) whose only stage is the ε sweep ``section``."""
    return {
        "experiments": {},
        "eps": [0.25],
        "batch_size": 10,
        "opt": {"work_limit": 60},
        "search": {"eps_sweep": section},
    }


def test_the_anand_batch_sweep_refuses_nothing_it_can_run():
    """A speed baseline's sweep passes the check (its ε > 0); every listed pair is planned."""
    section = {"problems": {"maxflow": ["anand-batch", "ll-fifo"], "stretch": ["gwmft"]}}
    check_eps_sweep(section)
    assert sweep_pairs(section) == [("maxflow", "anand-batch"), ("maxflow", "ll-fifo"), ("stretch", "gwmft")]
    stages = plan_scheduling(_sweep_only(section))
    sweep = [s for s in stages if s.stage == "eps_sweep"]
    assert [s.section for s in sweep] == [
        "search.eps_sweep.m_inverse_eps.maxflow.anand-batch",
        "search.eps_sweep.m_inverse_eps.maxflow.ll-fifo",
        "search.eps_sweep.m_inverse_eps.stretch.gwmft",
    ]
    assert all(s.jobs == 1 and s.runs == 4 for s in sweep)


def test_sizes_grow_with_one_over_eps():
    section = {"problems": {"load": ["greedy-cap"]}}
    assert sweep_eps(section) == [0.5, 0.25, 0.125, 0.0625]
    assert [sweep_size(section, e) for e in (0.5, 0.25, 0.125, 0.0625)] == [(2, 8), (4, 16), (8, 32), (16, 64)]
    assert sweep_size(section, 0.3) == (4, 14)  # 1/0.3 = 3.3 → m = 4; n = max(12, ⌈4/0.3⌉ = 14)
    assert sweep_size({**section, "m": 5, "n": 7}, 0.01) == (5, 7)
    assert sweep_size({**section, "jobs_per_inverse_eps": 1}, 0.125) == (8, 24)


def test_series_inherit_the_section_fix_m_or_sweep_it_and_hold_their_minimum_of_jobs():
    section = {
        "problems": {"load": ["greedy-cap"]},
        "eps": [0.5, 0.25, 0.125],
        "max_evals": 40,
        "series": {
            "grow": None,
            "m8": {"m": 8, "min_jobs_per_inverse_eps": 20},
            "ms": {"m": [16, 4, 8], "eps": 0.25, "problems": {"maxflow": ["edf"]}},
        },
    }
    check_eps_sweep(section)
    series = sweep_series(section)
    assert list(series) == ["grow", "m8", "ms"]
    assert series_points(series["grow"]) == [(0.5, 2), (0.25, 4), (0.125, 8)]
    assert series_points(series["m8"]) == [(0.5, 8), (0.25, 8), (0.125, 8)]
    assert series_points(series["ms"]) == [(0.25, 4), (0.25, 8), (0.25, 16)]  # fewest machines first
    assert [sweep_min_jobs(series["m8"], e) for e in (0.5, 0.125)] == [40, 160]  # ≥ 20 rejections
    assert sweep_size(series["m8"], 0.125) == (8, 160) and sweep_min_jobs(series["grow"], 0.125) == 1
    assert sweep_jobs(section) == [
        ("grow", "load", "greedy-cap"),
        ("m8", "load", "greedy-cap"),
        ("ms", "maxflow", "edf"),
    ]
    assert sweep_pairs(section) == [("load", "greedy-cap"), ("maxflow", "edf")]
    assert [p.name for p in point_files("d", section, "ms")] == ["m_4.json", "m_8.json", "m_16.json"]
    assert [p.name for p in point_files("d", section, "m8")] == ["eps_0.5.json", "eps_0.25.json", "eps_0.125.json"]
    stages = [s for s in plan_scheduling(_sweep_only(section)) if s.stage == "eps_sweep"]
    assert [(s.section, s.runs) for s in stages] == [
        ("search.eps_sweep.grow.load.greedy-cap", 3),
        ("search.eps_sweep.m8.load.greedy-cap", 3),
        ("search.eps_sweep.ms.maxflow.edf", 3),
    ]


@pytest.mark.parametrize("problem", ["maxflow", "load"])
def test_a_padded_seed_repeats_its_jobs_and_a_flow_copy_meets_an_idle_system(problem):
    """pad_jobs: at least min_jobs jobs; on a flow problem the copies are released after the
    previous one has drained, so the padded instance's OPT equals the seed's (checked by the
    offline solver); on LoadBalancing the copies add their load (OPT at most k times)."""
    from schedbench.scheduling.search.blackbox import pad_jobs, to_instance

    jobs = [(0, 2, (0, 1), 1.0, 1.0), (0, 1, (0,), 1.0, 1.0), (1, 3, (1,), 1.0, 1.0)]
    padded = pad_jobs(jobs, 8, problem)
    assert len(padded) == 8 and pad_jobs(jobs, 2, problem) == jobs
    assert [j[1:] for j in padded] == [j[1:] for j in (jobs * 3)[:8]]
    assert all(a[0] <= b[0] for a, b in zip(padded, padded[1:]))  # arrival order kept
    one = solve_opt(to_instance(2, jobs), problem, time_limit=30)
    many = solve_opt(to_instance(2, padded), problem, time_limit=30)
    assert one.status == many.status == "optimal"
    if problem == "maxflow":
        assert many.value == one.value
    else:
        assert one.value < many.value <= 3 * one.value


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
    from schedbench.scheduling.stage.eps_sweep_report import bound_kind, growth_fit

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
    outs = point_files(tmp_path, section, "m_inverse_eps")
    rows = run_sweep("m_inverse_eps", problem, algorithm, section, 14, outs)
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
    outs1 = point_files(tmp_path / "a", TINY, "m_inverse_eps")
    outs2 = point_files(tmp_path / "b", TINY, "m_inverse_eps")
    run_sweep("m_inverse_eps", "load", "lb-unit-reject", TINY, 3, outs1)
    run_sweep("m_inverse_eps", "load", "lb-unit-reject", TINY, 3, outs2)
    for a, b in zip(outs1, outs2):
        da, db = json.loads(a.read_text()), json.loads(b.read_text())
        da.pop("seconds"), db.pop("seconds")
        assert da == db


def test_table_growth_and_tex(tmp_path):
    section = {
        **TINY,
        "problems": {"load": ["lb-unit-reject", "greedy-cap"]},
        "series": {"grow": None, "ms": {"m": [2, 4], "eps": 0.25, "min_jobs_per_inverse_eps": 3}},
    }
    paths = []
    for series, problem, algorithm in sweep_jobs(section):
        outs = point_files(tmp_path / series / problem / algorithm, section, series)
        run_sweep(series, problem, algorithm, section, 14, outs)
        paths += outs
    points = collect_sweep(paths)
    assert list(points.columns) == POINT_COLUMNS == list(collect_sweep([]).columns)
    assert len(points) == 8 and set(points["opt_status"]) == {"optimal"}
    ms = points[points["series"] == "ms"]
    assert set(ms["sweep"]) == {"m"} and set(ms["eps"]) == {0.25} and sorted(set(ms["m"])) == [2, 4]
    assert (ms["n"] >= 12).all() and set(ms["min_jobs"]) == {12}  # ⌈3/0.25⌉ jobs a candidate
    assert (ms["budget_jobs"] == 0.25 * ms["n"]).all()
    growth = growth_table(points)
    assert list(zip(growth["series"], growth["algorithm"])) == [
        ("grow", "greedy-cap"),
        ("grow", "lb-unit-reject"),
        ("ms", "greedy-cap"),
        ("ms", "lb-unit-reject"),
    ]
    for _, g in growth.iterrows():
        col = "m" if g["sweep"] == "m" else "inv_eps"
        rows = points[(points["algorithm"] == g["algorithm"]) & (points["series"] == g["series"])].sort_values(col)
        expected = math.log(rows["ratio"].iloc[1] / rows["ratio"].iloc[0]) / math.log(2.0)
        assert g["found_exponent"] == pytest.approx(expected)  # two points: the one step's slope
        assert g["grows"] == (rows["ratio"].iloc[1] > rows["ratio"].iloc[0])
        assert g["fit_kind"] == ("log" if g["sweep"] == "m" else g["fit_kind"])  # an m series: per doubling
    tex = growth_table_tex(growth)
    body = tex.split("\\endhead", 1)[1]
    assert body.count("\\\\") == 2 + len(growth) and "lb-unit-reject" in tex  # a heading per series
    assert "series ms: m from 2 to 4, ε = 1/4, ≥ 3/ε jobs" in tex.replace("$\\varepsilon$", "ε").replace("$\\ge$", "≥")
    assert "no \\texttt{search.eps\\_sweep}" in growth_table_tex(growth.iloc[0:0])


def test_the_figure_has_a_panel_per_series_and_a_line_per_algorithm(tmp_path):
    from schedbench.scheduling.stage.search_figures import eps_sweep_figure

    points = collect_sweep([])
    rows = []
    for algorithm, model in (("mft-unit", "rejection"), ("ll-fifo", "speed"), ("edf", "speed")):
        for e in (0.5, 0.25):
            rows.append(
                {
                    **{c: math.nan for c in points.columns},
                    "series": "m_inverse_eps",
                    "sweep": "eps",
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
    # one panel for the series, both models in it (rejection first), titled in words
    assert [ax.get_title() for ax in axes] == ["m = 1/ε, ε from 1/2 to 1/4"]
    labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert labels == ["mft-unit (rejects ε), bound ≥ 1e+06", "edf (speed 1+ε)", "ll-fifo (speed 1+ε)"]


def test_a_model_with_more_algorithms_than_a_panel_carries_is_split_into_panels():
    import pandas as pd

    from schedbench.hall.figure_style import MAX_LINES_PER_PANEL
    from schedbench.scheduling.stage.search_figures import eps_sweep_figure

    points = collect_sweep([])
    speed = ["anand-batch", "edf", "global-edf", "imd", "ll-fifo", "lwf", "ssf-edf"]  # seven
    rows = [
        {
            **{c: math.nan for c in points.columns},
            "series": "m_inverse_eps",
            "sweep": "eps",
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
    assert [ax.get_title() for ax in axes] == [
        "m = 1/ε, ε from 1/2 to 1/4 (1 of 2)",
        "m = 1/ε, ε from 1/2 to 1/4 (2 of 2)",
    ]
    legends = [[t.get_text() for t in ax.get_legend().get_texts()] for ax in axes]
    assert all(len(entries) <= MAX_LINES_PER_PANEL for entries in legends)
    assert sorted(e.removesuffix(" (speed 1+ε)") for e in sum(legends, [])) == speed  # every algorithm once


def test_series_read_in_order_m_inverse_eps_then_fixed_m_then_m_series():
    import pandas as pd

    from schedbench.scheduling.stage.eps_sweep_report import series_order

    rows = [{"series": "m64", "sweep": "eps", "m": 64, "eps": e} for e in (0.5, 0.25)] + [
        {"series": "m8", "sweep": "eps", "m": 8, "eps": e} for e in (0.5, 0.25)
    ]
    rows += [{"series": "grow", "sweep": "m", "m": m, "eps": 0.125} for m in (2, 4)]
    rows += [{"series": "zz_inverse", "sweep": "eps", "m": m, "eps": 1 / m} for m in (2, 4)]
    assert series_order(pd.DataFrame(rows)) == ["zz_inverse", "m8", "m64", "grow"]
