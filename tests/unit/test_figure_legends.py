"""Every figure of the paper keeps its legends short: no legend — of a panel or shared
by a figure — lists more than MAX_LINES_PER_PANEL lines, on the widest settings of the default
config (all seven bipartite policies, every loss sweep), for the scheduling figures on a real
results table."""

import itertools

import numpy as np
import pandas as pd
import pytest

from schedbench.hall.figure_style import MAX_LINES_PER_PANEL

from tests.unit.test_config_and_results import runs  # noqa: F401  (the module's results fixture)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")  # the tests keep the figures they inspect open


def _legends(fig) -> list[list[str]]:
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + list(fig.legends)
    return [[t.get_text() for t in legend.get_texts()] for legend in legends]


def _captured(module, monkeypatch) -> list:
    figs = []
    monkeypatch.setattr(module, "save_figure", lambda fig, path: figs.append(fig))
    return figs


def _with_ci(df: pd.DataFrame, *columns: str) -> pd.DataFrame:
    for c in columns:
        df[f"{c}_ci_lo"], df[f"{c}_ci_hi"] = 0.9 * df[c], 1.1 * df[c]
    return df


def _loss_table(n_values=(1000, 10000, 100000)) -> pd.DataFrame:
    """A tidy loss table spanning the default config's sweeps (d ∈ {1, 2, 4}, α, c, k rules)."""
    rows = []
    for n, d, alpha, (k_param, k_label) in itertools.product(
        n_values,
        (1, 2, 4),
        (0.25, 0.5, 0.75),
        [(0.5, "c=0.5"), (1.0, "c=1"), (2.0, "c=2"), (None, "k = 2"), (None, "k = 4"), (None, "k = n^(α+0.1)")],
    ):
        rows.append(
            {"n": n, "d": d, "alpha": alpha, "k_param": k_param if k_param else 1.0, "k_label": k_label, "k": n // 10}
        )
    df = pd.DataFrame(rows)
    df["blocking"] = 1.0 / np.sqrt(df["n"])
    df["excess_response"] = 1.0 / df["n"]
    df["mean_response"] = 0.5 + df["excess_response"]
    df["exact_blocking"], df["exact_excess"] = df["blocking"], df["excess_response"]
    return _with_ci(df, "blocking", "excess_response", "mean_response")


def _bipartite_table() -> pd.DataFrame:
    """A tidy bipartite table with all seven policies (B5's default), two degree rules, three loads."""
    from schedbench.bipartite.stage.figures import POLICY_ORDER

    rows = [
        {"N": n, "rho": rho, "degree_label": dl, "degree": 4 * n // 100, "alpha": alpha, "policy": p}
        for n, rho, dl, alpha, p in itertools.product(
            (50, 100, 200), (0.5, 0.8, 0.95), ("log c=2", "log c=5"), (0.3, 0.6), POLICY_ORDER
        )
    ]
    df = pd.DataFrame(rows).assign(status="ok")
    df["mean_response"] = 1.0 + 1.0 / df["N"]
    df["t_star_graph"], df["jiq_fluid"] = 1.0, 1.05
    df["excess_over_t_star"] = 1.0 / df["N"]
    df["excess_ci_lo"], df["excess_ci_hi"] = 0.9 * df["excess_over_t_star"], 1.1 * df["excess_over_t_star"]
    return _with_ci(df, "mean_response")


@pytest.mark.parametrize("figure", ["A1", "A2", "A3", "A4", "A5"])
def test_loss_figures_keep_legends_short(figure, monkeypatch):
    from schedbench.loss.stage import figures

    figs = _captured(figures, monkeypatch)
    figures.LOSS_FIGURES[figure](_loss_table(), "unused.pdf")
    (fig,) = figs
    legends = _legends(fig)
    assert legends and all(1 <= len(entries) <= MAX_LINES_PER_PANEL for entries in legends), legends


@pytest.mark.parametrize("figure", ["B1", "B2", "B3", "B4", "B5"])
def test_bipartite_figures_keep_legends_short_with_all_seven_policies(figure, monkeypatch):
    from schedbench.bipartite.stage import figures

    figs = _captured(figures, monkeypatch)
    figures.BIPARTITE_FIGURES[figure](_bipartite_table(), "unused.pdf")
    (fig,) = figs
    legends = _legends(fig)
    assert legends and all(1 <= len(entries) <= MAX_LINES_PER_PANEL for entries in legends), legends
    drawn = {e for entries in legends for e in entries}
    assert set(figures.POLICY_ORDER) <= drawn  # split over panels, never dropped
    for ax in fig.axes:  # and no panel draws more lines than a legend may list
        labels = {lab for lab in ax.get_legend_handles_labels()[1]}
        assert len(labels) <= MAX_LINES_PER_PANEL, (figure, ax.get_title(), labels)


def test_scheduling_figures_keep_legends_short(runs, monkeypatch):  # noqa: F811
    from schedbench.scheduling.stage import figures, headline
    from schedbench.scheduling.stage.figures import ecdf_figures, ratio_vs_eps_figures, rejection_vs_eps_figures

    figs = ratio_vs_eps_figures(runs, n_boot=20) + rejection_vs_eps_figures(runs, n_boot=20) + ecdf_figures(runs)
    figs.append(headline.headline_figure(runs, "load"))
    figs.append(figures.rounds_figure(runs, ["K", "m"], n_boot=20))
    for fig in figs:
        for entries in _legends(fig):
            assert 1 <= len(entries) <= MAX_LINES_PER_PANEL, entries


def test_plot_vs_eps_writes_what_it_is_asked_for_and_refuses_the_rest(runs, tmp_path):  # noqa: F811
    from schedbench.scheduling.stage.figures import _legend_lines, plot_vs_eps, rejection_vs_eps_figures

    path = tmp_path / "rejection.pdf"
    entries = plot_vs_eps(runs, path, "rejection", n_boot=20)
    assert path.stat().st_size > 0
    assert entries == _legend_lines(rejection_vs_eps_figures(runs, n_boot=20))
    with pytest.raises(ValueError, match="what: 'speed'"):
        plot_vs_eps(runs, tmp_path / "speed.pdf", "speed")
    assert not (tmp_path / "speed.pdf").exists()
