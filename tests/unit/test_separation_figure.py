"""The separation figure (scheduling.stage.separation) on constructed runs: what it draws (the
largest forced ratio per point, validated runs over proven optima only, the three largest ε), and
the print rules (at most six panels, at most six lines a panel, titles in words)."""

import pandas as pd

from schedbench.hall.figure_style import MAX_LINES_PER_PANEL
from schedbench.scheduling.registry import get_algorithm
from schedbench.scheduling.stage.separation import LINES, separation_data, separation_figure


def _row(alg, m, eps, ratio, experiment="tree", status="ok", opt_status="optimal", streams=False):
    return {
        "experiment": experiment,
        "family": "anr-flow",
        "algorithm": alg,
        "model": get_algorithm(alg).model,
        "m": m,
        "eps": eps,
        "ratio": ratio,
        "status": status,
        "opt_status": opt_status,
        "g_streams": streams,
        "g_T": 4,
    }


def _runs():
    rows = []
    for exp, streams in (("tree", False), ("streams", True)):
        for eps in (0.5, 0.25, 0.125, 0.0625):
            for m in (4, 16, 64):
                for alg in LINES + ("drop-every-k-flow",):
                    rows.append(_row(alg, m, eps, 1.0 + m / 64, exp, streams=streams))
    rows.append(_row("ll-fifo", 64, 0.5, 9.0))  # a second seed: the point is the largest
    rows.append(_row("mft-unit", 64, 0.5, 50.0, status="budget_violated"))  # not drawn
    rows.append(_row("edf", 64, 0.5, 70.0, opt_status="bound"))  # not drawn
    rows.append(_row("edf", 64, 0.0, 80.0))  # speed 1: not drawn
    return pd.DataFrame(rows)


def test_it_draws_the_worst_seed_over_proven_optima_at_the_three_largest_eps():
    data = separation_data(_runs())
    assert sorted(data["eps"].unique()) == [0.125, 0.25, 0.5]
    assert "drop-every-k-flow" not in set(data["algorithm"])
    at = data[(data["experiment"] == "tree") & (data["eps"] == 0.5) & (data["m"] == 64)].set_index("algorithm")
    assert at.loc["ll-fifo", "ratio"] == 9.0 and at.loc["mft-unit", "ratio"] == 2.0 and at.loc["edf", "ratio"] == 2.0


def test_it_keeps_the_print_rules():
    fig = separation_figure(_runs())
    panels = [ax for ax in fig.axes if ax.get_lines()]
    assert len(panels) == 6
    assert all(len(ax.get_lines()) <= MAX_LINES_PER_PANEL for ax in panels)
    assert {ax.get_title() for ax in panels} >= {"ε = 1/2", "ε = 1/4", "ε = 1/8"}
    # every panel labels its own scale; the first column names the row's construction
    assert all(ax.get_ylabel().endswith("forced ALG/OPT") for ax in panels)
    assert {ax.get_ylabel().split("\n")[0] for ax in panels if "\n" in ax.get_ylabel()} == {
        "tree, at time 0, T = 4",
        "tree, streams, T = 4",
    }
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend[0] == "mft-unit (rejects ε)" and "ll-fifo (speed 1+ε)" in legend


def test_without_the_construction_it_says_so():
    fig = separation_figure(_runs().assign(family="random-restricted"))
    assert "no immediate-dispatch construction" in fig.axes[0].texts[0].get_text()
