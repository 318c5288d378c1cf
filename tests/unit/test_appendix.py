"""The appendix's paged figures: which experiments each draws (from the config alone,
so the paper knows the page count), the class columns split at the panel limit, one row per
experiment, every line in a legend of at most six entries, the multi-page PDF and its PNG twin,
and the paper's one float per page."""

import re

import pytest
import yaml

from schedbench.hall.figure_style import MAX_LINES_PER_PANEL, ROWS_PER_PAGE, save_pages
from schedbench.hall.paper import group_tex
from schedbench.scheduling.stage.appendix import (
    class_columns,
    figure_experiments,
    line_styles,
    page_count,
    pages,
)
from schedbench.scheduling.stage.figures import ecdf_figures, ratio_vs_eps_figures, rejection_vs_eps_figures
from schedbench.scheduling.stage.metrics import add_labels

from tests.unit.test_config_and_results import runs  # noqa: F401  (the module's results fixture)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")  # the tests keep the figures they inspect open


SMOKE = yaml.safe_load(open("config/smoke.yaml"))["experiments"]


def test_figure_experiments_follow_the_config():
    # smoke: lb_a sweeps K and idisp_tree sweeps m (the rounds figure's); lb_a, anr_* are adversaries
    assert figure_experiments(SMOKE, "ratio_vs_eps", "load") == [
        "anr_adaptive",
        "anr_tree",
        "random_pow2",
        "random_unit",
        "trace_nasa",
    ]
    assert "lb_b" not in figure_experiments(SMOKE, "ratio_vs_eps", "load")
    assert figure_experiments(SMOKE, "ratio_vs_eps", "maxflow") == ["flow_small", "flow_unit"]
    # every experiment of the problem with a rejection-model algorithm, swept adversaries too
    assert figure_experiments(SMOKE, "rejection_vs_eps", "load") == [
        "anr_adaptive",
        "anr_tree",
        "lb_a",
        "lb_b",
        "random_pow2",
        "random_unit",
        "trace_nasa",
    ]
    assert figure_experiments(SMOKE, "rejection_vs_eps", "maxflow") == ["flow_small", "flow_unit", "idisp_tree"]
    assert figure_experiments(SMOKE, "ecdf", "load") == ["anr_tree", "random_pow2", "random_unit", "trace_nasa"]
    with pytest.raises(ValueError, match="kind"):
        figure_experiments(SMOKE, "ratio", "load")


def test_pages_hold_at_most_rows_per_page_in_order():
    names = [f"e{i}" for i in range(2 * ROWS_PER_PAGE + 1)]
    split = pages(names)
    assert [e for page in split for e in page] == names
    assert all(1 <= len(page) <= ROWS_PER_PAGE for page in split)
    assert page_count(len(names)) == len(split) == 3
    assert page_count(0) == 1 and pages([]) == [[]]  # an empty figure is one page saying so


def test_class_columns_split_at_the_panel_limit_in_class_order():
    line_model = {f"lb (beta={k})": "rejection" for k in range(8)}
    line_model |= {"edf": "speed", "edf @ speed 1": "reference", "greedy": "plain"}
    columns = class_columns(line_model)
    assert [title for title, _ in columns] == [
        "rejection model (1 of 2)",
        "rejection model (2 of 2)",
        "speed 1+ε",
        "speed 1, no rejection",
    ]
    assert [len(lines) for _, lines in columns] == [6, 2, 1, 2]
    assert sorted(line for _, lines in columns for line in lines) == sorted(line_model)
    # the variants of one algorithm share its colour and differ in marker and dashes
    styles = line_styles(columns[0][1], {line: "lb" for line in line_model}, {"lb": (0, 0, 1)})
    assert {s["color"] for s in styles.values()} == {(0, 0, 1)}
    assert len({s["marker"] for s in styles.values()}) == len({str(s["dashes"]) for s in styles.values()}) == 6


def _legend_entries(fig) -> list[list[str]]:
    return [[t.get_text() for t in ax.get_legend().texts] for ax in fig.axes if ax.get_legend() is not None]


@pytest.mark.parametrize("make", [ratio_vs_eps_figures, rejection_vs_eps_figures, ecdf_figures])
def test_paged_figures_draw_each_experiment_once_with_short_legends(runs, make):  # noqa: F811
    kind = {ratio_vs_eps_figures: "ratio_vs_eps", rejection_vs_eps_figures: "rejection_vs_eps"}.get(make, "ecdf")
    experiments = sorted(runs["experiment"].unique())
    if kind == "ecdf":
        experiments = [e for e in experiments if e != "anr_adaptive"]  # an adversary: no instance set
    figs = make(runs, problem="load", experiments=experiments, **({"n_boot": 20} if kind != "ecdf" else {}))
    assert len(figs) == page_count(len(experiments))
    rows = []
    for fig in figs:
        titled = [ax.get_title().split("\n")[-1].split(" (")[0] for ax in fig.axes if ax.get_title()]
        rows += list(dict.fromkeys(titled))  # the experiments of the page, top to bottom
        for entries in _legend_entries(fig):
            assert 1 <= len(entries) <= MAX_LINES_PER_PANEL
            assert entries == sorted(entries)
    assert rows == experiments
    drawn = {e for fig in figs for entries in _legend_entries(fig) for e in entries}
    data = add_labels(runs[(runs["status"] == "ok") & runs["experiment"].isin(experiments)])
    if kind == "rejection_vs_eps":
        data = data[data["model"] == "rejection"]
    expected = set(data["label"])
    speed_one = data[(data["model"] == "speed") & (data["eps"] == 0)]
    expected |= {f"{lab} @ speed 1" for lab in speed_one["label"]}
    assert expected <= drawn  # every line is in a legend (speed-model rows also at 1+ε)


def test_save_pages_writes_one_pdf_page_per_figure_and_a_stacked_png(tmp_path):
    import matplotlib.pyplot as plt

    figs = []
    for height in (1.0, 2.0):
        fig, ax = plt.subplots(figsize=(3, height))
        ax.plot([0, 1], [0, 1])
        figs.append(fig)
    save_pages(figs, tmp_path / "paged.pdf")
    pdf = (tmp_path / "paged.pdf").read_bytes()
    assert len(re.findall(rb"/Type\s*/Page\b(?!s)", pdf)) == 2
    png = plt.imread(tmp_path / "paged.png")
    assert png.shape[0] > 2.5 * 150 * 0.8  # both pages, one below the other (150 dpi)
    assert not list(tmp_path.glob(".*tmp*"))


def test_group_tex_gives_a_paged_figure_one_float_per_page_labelled_once():
    tex = group_tex("maxflow", [("ratio_vs_eps_maxflow", "", 3), "headline_maxflow"], [])
    assert [int(k) for k in re.findall(r"\\includegraphics\[page=(\d+),", tex)] == [1, 2, 3]
    assert tex.count("\\label{fig:ratio_vs_eps_maxflow}") == 1
    assert "Page 1 of 3." in tex and "continued: page 3 of 3." in tex
    assert "figures/headline_maxflow.pdf" in tex and "page=" not in tex.split("headline_maxflow")[0][-200:]


def test_a_one_page_figure_says_no_page_count():
    tex = group_tex("load", [("ecdf_load", "", 1)], [])
    assert "\\includegraphics[page=1," in tex and "Page 1 of" not in tex


def test_bipartite_figures_split_policies_by_class_past_the_panel_limit():
    from schedbench.bipartite.stage.figures import POLICY_ORDER, policy_classes

    assert policy_classes(["jfsq", "jsq"], 2) == [("", ["jfsq", "jsq"])]
    split = policy_classes(POLICY_ORDER, 2)
    assert [title for title, _ in split] == ["speed-aware", "speed-oblivious"]
    assert sorted(p for _, members in split for p in members) == sorted(POLICY_ORDER)
    assert all(len(members) + 2 <= MAX_LINES_PER_PANEL for _, members in split)


def test_an_alg_opt_panel_whose_opt_is_only_a_bound_says_so(runs):  # noqa: F811
    """The tables flag a ratio over an unproven OPT; the ALG/OPT panels do too (title), the
    rejected-fraction panels (no OPT in them) do not."""
    from schedbench.hall.figure_style import BOUND_FLAG
    from schedbench.hall.paper import figure_caption
    from schedbench.scheduling.stage.headline import headline_figure

    data = runs.copy()
    data.loc[data["experiment"] == "random_unit", "opt_status"] = "bound"
    exps = ["random_pow2", "random_unit"]

    def titles(figs):
        return {ax.get_title() for fig in figs for ax in fig.axes if ax.get_title()}

    for figs in (
        ratio_vs_eps_figures(data, problem="load", experiments=exps, n_boot=20),
        ecdf_figures(data, problem="load", experiments=exps),
        [headline_figure(data, "load")],
    ):
        flagged = {t for t in titles(figs) if t.endswith(BOUND_FLAG)}
        assert flagged and all("random_unit" in t for t in flagged)
        assert any("random_pow2" in t for t in titles(figs) - flagged)
    rejection = rejection_vs_eps_figures(data, problem="load", experiments=exps, n_boot=20)
    assert not any(t.endswith(BOUND_FLAG) for t in titles(rejection))
    for stem in ("ratio_vs_eps_load", "ecdf_load", "headline_load"):
        assert BOUND_FLAG.strip() in figure_caption(stem)
