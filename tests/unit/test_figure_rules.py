"""The figures' rules on constructed tables: no mean, band or ECDF over fewer than ten instances
(counted per drawn line and point, only instances with a finite value), every ALG/OPT panel
flagged when an OPT is only a bound, at most MAX_LINES_PER_PANEL lines a panel, every panel's
y axis labelled. Each case builds the smallest table that would break a rule."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from schedbench.hall.figure_style import BOUND_FLAG, MAX_LINES_PER_PANEL
from schedbench.hall.stats import MIN_SUMMARY_N
from schedbench.scheduling.stage.figures import (
    ecdf_figures,
    fewest_instances,
    ratio_vs_eps_figures,
    rounds_figure,
    sweep_figure,
)
from schedbench.scheduling.stage.headline import headline_figure


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


BASE = dict(problem="load", status="ok", opt_status="optimal", rejected_frac=0.0, wasted_work_frac=0.0, seed=0)
FLOW = dict(BASE, problem="maxflow", migratory=False)  # a max-flow run, as the headline reads it


def _rounds(algorithms, ks, replications: int, **extra) -> pd.DataFrame:
    """LB-B-shaped adversary rows: each (algorithm, K, replication) its own realised instance,
    numbered as ``run_adversary`` numbers them (``lb_b/<algorithm>/<k>``), ALG/OPT = 1 + K/4."""
    return pd.DataFrame(
        [
            dict(
                BASE,
                experiment="lb_b",
                instance=f"lb_b/{a}/{k:04d}",
                algorithm=a,
                model=m,
                eps=e,
                ratio=1 + K / 4,
                g_K=K,
                **extra,
            )
            for a, m, e in algorithms
            for k, (K, _) in enumerate((K, r) for K in ks for r in range(replications))
        ]
    )


def _swept(eps, instances: int, **extra) -> pd.DataFrame:
    """lb-unit-reject's alpha_rule swept (paper, safe) at each ε on the same instances."""
    return pd.DataFrame(
        [
            dict(
                BASE,
                experiment="e",
                instance=f"i{i}",
                algorithm="lb-unit-reject",
                model="rejection",
                eps=e,
                p_alpha_rule=rule,
                ratio=1 + i / 10,
                **extra,
            )
            for e in eps
            for rule in ("paper", "safe")
            for i in range(instances)
        ]
    )


def _panels(fig):
    return [ax for ax in fig.axes if ax.get_title()]


def test_fewest_instances_counts_per_point_and_only_finite_values():
    rows = pd.DataFrame(
        {
            "line": ["a"] * 4 + ["b"] * 3,
            "instance": ["i0", "i1", "i2", "i3", "i0", "i1", "i2"],
            "ratio": [1.0, 1.1, np.nan, 1.2, 1.0, np.inf, 1.3],
        }
    )
    assert fewest_instances(rows, ["line"]) == 2  # b: i1 has no finite ratio
    assert fewest_instances(rows[rows["line"] == "a"], ["line"]) == 3
    assert fewest_instances(rows.iloc[:0], ["line"]) == 0


def test_the_ecdf_panel_counts_its_thinnest_line():
    """One setting validated on 3 of 12 instances: the panel draws each instance (no ECDF)."""
    rows = [
        dict(
            BASE, experiment="fam", instance=f"fam/{i:04d}", algorithm=alg, model="plain", eps=np.nan, ratio=1 + i / 20
        )
        for i in range(12)
        for alg in ("greedy", "random-two")
        if alg == "greedy" or i < 3
    ]
    (fig,) = ecdf_figures(pd.DataFrame(rows), problem="load")
    (ax,) = [ax for ax in fig.axes if ax.get_lines()]
    assert f"n = 3 < {MIN_SUMMARY_N}: each instance, no ECDF" in ax.get_title()
    assert all(line.get_linestyle() == "None" for line in ax.get_lines())  # dots, no step curve
    assert sorted(len(line.get_xdata()) for line in ax.get_lines()) == [3, 12]


def test_a_run_without_a_finite_ratio_does_not_count_towards_ten():
    """Ten validated instances, one with an undefined ratio: nine drawn, so no mean and no band."""
    rows = [
        dict(BASE, experiment="fam", instance=f"fam/{i:04d}", algorithm=alg, model=model, eps=eps, ratio=ratio)
        for i in range(10)
        for alg, model, eps in (("greedy", "plain", np.nan), ("lb-unit-reject", "rejection", 0.25))
        for ratio in [np.nan if i == 0 else 1 + i / 20]
    ]
    df = pd.DataFrame(rows)
    for fig in ratio_vs_eps_figures(df, n_boot=20):
        for ax in _panels(fig):
            assert "n = 9 < 10: each instance" in ax.get_title() and not ax.collections
    (fig,) = ecdf_figures(df, problem="load")
    for ax in _panels(fig):
        assert "n = 9 < 10: each instance, no ECDF" in ax.get_title()


@pytest.mark.parametrize("speed_instances", [3, 12])
def test_the_headline_counts_each_drawn_line(speed_instances):
    """The speed line validated on 3 of 12 instances: each instance's curve, no mean."""
    rows = [
        dict(FLOW, experiment="e", instance=f"e/{i:04d}", algorithm=alg, model=model, eps=eps, ratio=r + i / 100)
        for i in range(12)
        for eps in (0.25, 0.125)
        for alg, model, r in (("mft-unit", "rejection", 1.5), ("ll-fifo", "speed", 1.2))
        if alg == "mft-unit" or i < speed_instances
    ]
    (ax,) = _panels(headline_figure(pd.DataFrame(rows), "maxflow"))
    assert ax.get_ylabel() == "ALG / OPT"  # the title says whether a mean or each instance
    if speed_instances < MIN_SUMMARY_N:
        assert ax.get_title() == "e (n = 3 < 10: each instance)"
        assert len(ax.get_lines()) == 12 + 3  # a curve per instance of each line
    else:
        assert ax.get_title() == "e" and len(ax.get_lines()) == 2


def test_every_alg_over_opt_panel_flags_an_unproven_opt():
    unproven = dict(BASE, opt_status="feasible")
    plain_and_rejection = (("greedy", "plain", np.nan), ("lb-unit-reject", "rejection", 0.25))
    rounds = _rounds(plain_and_rejection, (2, 3, 4), 12, opt_status="feasible")
    assert all(ax.get_title().endswith(BOUND_FLAG) for ax in _panels(rounds_figure(rounds, "K", n_boot=20)))
    swept = _swept((0.25, 0.5), 12, opt_status="feasible")
    assert sweep_figure(swept, ["alpha_rule"], n_boot=20).axes[0].get_title().endswith(BOUND_FLAG)
    plain = pd.DataFrame(
        [
            dict(unproven, experiment="e", instance=f"i{i}", algorithm=a, model="plain", eps=np.nan, ratio=1 + i / 10)
            for a in ("greedy", "random-two")
            for i in range(12)
        ]
    )
    (fig,) = ratio_vs_eps_figures(plain, n_boot=20)
    assert [ax.get_title() for ax in _panels(fig)] == ["e" + BOUND_FLAG]
    proven = plain.assign(opt_status="optimal")
    (fig,) = ratio_vs_eps_figures(proven, n_boot=20)
    assert [ax.get_title() for ax in _panels(fig)] == ["e"]


def _legend_sizes(fig) -> list[int]:
    return [len(ax.get_legend().get_texts()) for ax in fig.axes if ax.get_legend() is not None]


def test_rounds_and_sweep_panels_split_past_six_lines():
    algs = [("greedy", "plain", np.nan)] + [(f"lb-unit-reject-{k}", "rejection", 0.25) for k in range(7)]
    rounds = _rounds(algs, (2, 3), 10)
    fig = rounds_figure(rounds, "K", n_boot=20)
    assert sorted(_legend_sizes(fig)) == [2, MAX_LINES_PER_PANEL]  # 8 lines: 6 + 2
    assert [ax.get_title() for ax in _panels(fig)] == ["lb_b (1 of 2)", "lb_b (2 of 2)"]
    eps = [2.0**-k for k in range(1, 9)]
    swept = _swept(eps, 10)
    fig = sweep_figure(swept, ["alpha_rule"], n_boot=20)
    assert sorted(_legend_sizes(fig)) == [2, MAX_LINES_PER_PANEL]
    colours = {}  # one ε, one colour, whichever column draws it
    for ax in fig.axes:
        if ax.get_legend() is not None:
            for text, handle in zip(ax.get_legend().get_texts(), ax.get_legend().legend_handles):
                colours.setdefault(text.get_text(), set()).add(tuple(handle.get_color()))
    assert len(colours) == 8 and all(len(c) == 1 for c in colours.values())
    assert len({next(iter(c)) for c in colours.values()}) == 8


def test_an_adversary_s_replications_are_joined_across_its_points():
    """An adversary realises a new instance at every K (and ε): with one or a few replications,
    each replication's values are joined across the points (no mean), never left as loose dots."""
    rounds = _rounds((("greedy", "plain", np.nan), ("lb-general-reject", "rejection", 0.25)), (2, 3, 4, 5, 6), 1)
    (ax,) = _panels(rounds_figure(rounds, "K", n_boot=20))
    assert ax.get_title() == "lb_b (n = 1 < 10: each instance)"
    # one curve of all five K per line (the old drawing: ten one-point "curves")
    assert sorted(len(line.get_xdata()) for line in ax.get_lines() if len(line.get_xdata())) == [5, 5]
    reps, eps_grid = 5, (0.5, 0.25, 0.125)
    adaptive = pd.DataFrame(
        [
            dict(
                FLOW,
                experiment="anr",
                instance=f"anr/{a}/{k:04d}",
                algorithm=a,
                model=m,
                eps=e,
                ratio=2 + r / 10 + (0.0 if e != e else e),
            )
            for a, m, grid in (("mft-unit", "rejection", eps_grid), ("greedy", "plain", (np.nan,)))
            for k, (e, r) in enumerate((e, r) for e in grid for r in range(reps))
        ]
    )
    (ax,) = _panels(headline_figure(adaptive, "maxflow"))
    assert ax.get_title() == "anr (n = 5 < 10: each instance)"
    solid = [line for line in ax.get_lines() if line.get_linestyle() == "-"]
    assert len(solid) == reps and all(len(line.get_xdata()) == len(eps_grid) for line in solid)


def test_the_plain_only_figure_decides_each_experiment_on_its_own():
    rows = [
        dict(BASE, experiment=exp, instance=f"{exp}/{i}", algorithm=a, model="plain", eps=np.nan, ratio=1 + i / 40)
        for exp, n in (("big", 30), ("small", 3))
        for a in ("greedy", "random-two")
        for i in range(n)
    ]
    (fig,) = ratio_vs_eps_figures(pd.DataFrame(rows), n_boot=20)
    by_title = {ax.get_title(): ax for ax in _panels(fig)}
    assert set(by_title) == {"big", "small (n = 3 < 10: each instance)"}
    assert by_title["big"].get_lines() and not any(len(c.get_offsets()) for c in by_title["big"].collections)
    assert sum(len(c.get_offsets()) for c in by_title["small (n = 3 < 10: each instance)"].collections) == 6


def test_loss_panels_split_by_their_own_colours(tmp_path, monkeypatch):
    from schedbench.loss.stage import figures as loss_figures

    drawn = []
    monkeypatch.setattr(loss_figures, "save_figure", lambda fig, path: drawn.append(fig))
    grid = {0.5: range(1, 9), 0.7: range(1, 4)}  # 8 values of d at α = 0.5, 3 at α = 0.7
    df = pd.DataFrame(
        [
            {
                "alpha": alpha,
                "d": d,
                "n": n,
                "blocking": 0.1 / n,
                "blocking_ci_lo": 0.09 / n,
                "blocking_ci_hi": 0.11 / n,
                "exact_blocking": np.nan,
            }
            for alpha, ds in grid.items()
            for d in ds
            for n in (10, 100)
        ]
    )
    loss_figures.plot_a1(df, tmp_path / "a1.pdf")
    (fig,) = drawn
    assert [ax.get_title() for ax in fig.axes] == ["alpha = 0.5 (1 of 2)", "alpha = 0.5 (2 of 2)", "alpha = 0.7"]
    assert [len(ax.get_legend().get_texts()) for ax in fig.axes] == [MAX_LINES_PER_PANEL, 2, 3]
    assert all(ax.get_ylabel() for ax in fig.axes)
