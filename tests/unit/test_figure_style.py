"""One style for every figure: colour-blind palette, legend order, axis labels, the performance
profiles (ECDF of ALG/OPT) and the PNG twin the HTML report shows."""

import matplotlib.colors as mcolors
import numpy as np
import pandas as pd
import pytest
import seaborn as sns

from schedbench.hall import figure_style as _style
from schedbench.scheduling.stage.figures import (
    ECDF_XLABEL,
    ECDF_YLABEL,
    ecdf_figures,
    label_colours,
    plot_ecdf,
    ratio_vs_eps_figures,
)

from tests.unit.test_config_and_results import runs  # noqa: F401  (the module's results fixture)


def test_palette_is_the_colour_blind_one_and_stable():
    assert _style.PALETTE == "colorblind"
    assert _style.palette(4) == list(sns.color_palette("colorblind", 4))
    many = _style.palette(13)
    assert len(many) == 13 and len({mcolors.to_hex(c) for c in many}) == 13
    assert _style.colour_map(["b", "a", "c"]) == _style.colour_map(["c", "b", "a"])
    assert _style.colour_map(["a"])["a"] == sns.color_palette("colorblind")[0]


def test_every_wing_uses_the_style_module():
    import inspect

    from schedbench.bipartite.stage import figures as bipartite
    from schedbench.loss.stage import figures as loss
    from schedbench.scheduling.stage import figures as scheduling

    for module in (scheduling, loss, bipartite):
        src = inspect.getsource(module)
        assert "apply_style()" in src and "sns.set_theme" not in src, module.__name__
        assert 'color_palette("colorblind"' not in src, module.__name__


def test_ratio_figure_colours_come_from_the_palette(runs):  # noqa: F811
    figs = ratio_vs_eps_figures(runs, n_boot=50)
    from schedbench.scheduling.registry import algorithm_names

    allowed = {mcolors.to_hex(c) for c in _style.palette(len(algorithm_names()))}
    assert {mcolors.to_hex(c) for c in label_colours(runs.assign(label=runs["algorithm"])).values()} <= allowed
    legends = [ax.get_legend() for fig in figs for ax in fig.axes if ax.get_legend() is not None]
    assert legends and {legend.get_title().get_text() for legend in legends} == {"algorithm"}
    drawn = {mcolors.to_hex(line.get_color()) for fig in figs for ax in fig.axes for line in ax.get_lines()}
    assert drawn - {"#000000"} <= allowed  # every line in an algorithm's colour (black: the budget)


def test_ecdf_legend_order_axis_labels_and_profiles(runs):  # noqa: F811
    # random_unit with ten instances (its own copied under new names): an ECDF; the others fewer
    unit = runs[runs["experiment"] == "random_unit"]
    many = pd.concat([unit.assign(instance=unit["instance"] + f"-{k}") for k in range(10)], ignore_index=True)
    runs = pd.concat([runs[runs["experiment"] != "random_unit"], many], ignore_index=True)
    figs = ecdf_figures(runs, problem="load")
    axes = [ax for fig in figs for ax in fig.axes if ax.get_lines()]
    # family experiments only (anr_adaptive is an adversary: no instance set), a row each
    rows = [ax.get_title().split("\n")[-1].split(" (")[0] for ax in axes]
    assert list(dict.fromkeys(rows)) == ["anr_tree", "random_pow2", "random_unit"]
    for ax in axes:
        assert ax.get_xlim()[0] < 1.0
        if "no ECDF" in ax.get_title():  # fewer than ten instances: each instance's ratio, no profile
            assert ax.get_xlabel() == ECDF_XLABEL and ax.get_ylabel() in ("setting (legend order)", "")
            assert all(line.get_linestyle() == "None" for line in ax.get_lines())
            continue
        assert ax.get_xlabel() == ECDF_XLABEL and ax.get_ylabel() in (ECDF_YLABEL, "")
        for line in ax.get_lines():  # every profile is a CDF: non-decreasing, ending at 1
            y = np.asarray(line.get_ydata(), dtype=float)
            if y.size:
                assert np.all(np.diff(y) >= 0) and y[-1] == pytest.approx(1.0)
    assert any(ax.get_ylabel() == ECDF_YLABEL for ax in axes)
    assert any("no ECDF" in ax.get_title() for ax in axes)  # anr_tree: one instance
    legends = [[t.get_text() for t in ax.get_legend().texts] for fig in figs for ax in fig.axes if ax.get_legend()]
    assert all(entries == sorted(entries) and len(entries) == len(set(entries)) for entries in legends)
    assert "greedy" in {e for entries in legends for e in entries}
    unit = [ax for ax in axes if "random_unit" in ax.get_title()]
    assert unit and all("ε = 0.25" in ax.get_title() for ax in unit)


def test_ecdf_placeholder_and_png_twin(runs, tmp_path):  # noqa: F811
    (placeholder,) = ecdf_figures(runs, problem="maxflow")
    assert "no validated runs" in placeholder.axes[0].texts[0].get_text()
    plot_ecdf(runs, tmp_path / "ecdf_load.pdf", problem="load")
    assert (tmp_path / "ecdf_load.pdf").read_bytes().startswith(b"%PDF")
    assert (tmp_path / "ecdf_load.png").read_bytes().startswith(b"\x89PNG")
    assert not list(tmp_path.glob(".*tmp*"))


def test_an_algorithm_has_one_colour_in_every_figure(runs):  # noqa: F811
    from schedbench.scheduling.stage.figures import algorithm_colours
    from schedbench.scheduling.stage.headline import headline_experiments, headline_figure

    # whatever subset of algorithms a figure draws, an algorithm keeps its colour
    some = runs[runs["algorithm"].isin(["greedy", "lb-unit-reject"])]
    full = label_colours(runs.assign(label=runs["algorithm"]))
    part = label_colours(some.assign(label=some["algorithm"]))
    assert part and all(part[a] == full[a] for a in part)
    colours = algorithm_colours()
    assert len({mcolors.to_hex(c) for c in colours.values()}) == len(colours)  # all distinct
    problem = "load"
    fig = headline_figure(runs, problem)
    drawn = [ax for ax in fig.axes if ax.get_legend() is not None]
    assert len(drawn) == len(headline_experiments(runs, problem)) >= 1
    for ax in drawn:
        texts = [t.get_text() for t in ax.get_legend().get_texts()]
        assert 1 <= len(texts) <= 3  # a headline panel: at most three lines
        for handle, text in zip(ax.get_legend().legend_handles, texts):
            algorithm = text.split(": ", 1)[1].split(" (")[0].strip()
            assert mcolors.to_hex(handle.get_color()) == mcolors.to_hex(colours[algorithm])
