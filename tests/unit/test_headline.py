"""The headline figure (scheduling/stage/headline.py): per experiment the best rejection-model
setting, the best in-model speed baseline and the plain baseline — chosen by the lowest mean
ALG/OPT on constructed runs, a migratory reference never chosen, greedy preferred as the plain
baseline, experiments with fewer than two roles left out."""

import pandas as pd
import pytest

from schedbench.scheduling.stage.headline import headline_experiments, headline_figure, headline_lines


def run(algorithm, model, ratio, eps=0.25, experiment="e", migratory=False, status="ok", instance=0):
    return {
        "experiment": experiment,
        "instance": f"{experiment}/{instance:04d}",
        "algorithm": algorithm,
        "problem": "maxflow",
        "model": model,
        "eps": eps,
        "ratio": ratio,
        "status": status,
        "migratory": migratory,
    }


RUNS = pd.DataFrame(
    [
        run("mft-unit", "rejection", 1.5),
        run("mft-unit", "rejection", 2.5, eps=0.125),  # mean 2.0
        run("drop-every-k-flow", "rejection", 1.8),
        run("drop-every-k-flow", "rejection", 1.9, eps=0.125),  # mean 1.85: the best
        run("ll-fifo", "speed", 1.2),
        run("ll-fifo", "speed", 3.0, eps=0.0),  # speed 1: not a speed-augmented run
        run("edf", "speed", 1.4),
        run("global-edf", "speed", 0.5, migratory=True),  # outside the model: never the baseline
        run("random-two-flow", "plain", 2.2, eps=float("nan")),
        run("ll-fifo", "speed", 0.1, status="invalid"),  # not validated: not counted
        run("mft-unit", "rejection", 1.0, experiment="lonely"),  # one role only: no panel
    ]
)


def test_each_role_is_the_lowest_mean_of_its_validated_in_model_runs():
    lines = headline_lines(RUNS, "maxflow", "e")
    assert lines == {
        "rejection": ("drop-every-k-flow", "drop-every-k-flow"),
        "speed": ("ll-fifo", "ll-fifo"),
        "plain": ("random-two-flow", "random-two-flow"),
    }
    assert headline_experiments(RUNS, "maxflow") == ["e"]


def test_greedy_is_the_plain_baseline_where_it_ran():
    runs = pd.concat(
        [
            RUNS,
            pd.DataFrame(
                [run("greedy", "plain", 3.0, eps=float("nan")), run("random-two", "plain", 1.0, eps=float("nan"))]
            ),
        ]
    ).assign(problem="maxflow")
    assert headline_lines(runs, "maxflow", "e")["plain"][0] == "greedy"


def test_the_figure_draws_one_panel_per_experiment_with_its_three_lines():
    fig = headline_figure(RUNS, "maxflow")
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["e (n = 1 < 10: each instance)"]
    assert len(panels[0].get_lines()) == 3
    assert "no maxflow experiment" not in " ".join(t.get_text() for ax in fig.axes for t in ax.texts)
    empty = headline_figure(RUNS[RUNS["experiment"] == "lonely"], "maxflow")
    assert "no maxflow experiment to compare" in empty.axes[0].texts[0].get_text()


def test_a_mean_needs_ten_instances_else_each_instance_is_drawn():
    def runs(n):
        return pd.DataFrame(
            [run("mft-unit", "rejection", 1.5 + k / 100, eps=e, instance=k) for k in range(n) for e in (0.25, 0.125)]
            + [run("ll-fifo", "speed", 1.2 + k / 100, eps=e, instance=k) for k in range(n) for e in (0.25, 0.125)]
        )

    few = [ax for ax in headline_figure(runs(3), "maxflow").axes if ax.get_title()][0]
    assert few.get_title() == "e (n = 3 < 10: each instance)" and len(few.get_lines()) == 2 * 3
    many = [ax for ax in headline_figure(runs(10), "maxflow").axes if ax.get_title()][0]
    assert many.get_title() == "e" and len(many.get_lines()) == 2
    assert list(many.get_lines()[0].get_ydata()) == pytest.approx([1.5 + 0.045] * 2)  # the mean over 10


def test_the_finding_counts_the_experiments_where_rejection_is_at_or_below_its_rival():
    from schedbench.scheduling.stage.headline import findings_macros_tex, headline_finding

    text = headline_finding(RUNS, "maxflow")
    # experiment e at its smallest ε (0.125): drop-every-k-flow 1.9 vs ll-fifo (no run at 0.125)
    # → the rival is the plain baseline (2.2): rejection is below it
    assert "1 of 1 experiments against the plain baseline" in text
    both = pd.concat([RUNS, pd.DataFrame([run("ll-fifo", "speed", 1.5, eps=0.125)])])
    text = headline_finding(both, "maxflow")
    assert "0 of 1 experiments against the best speed-augmented baseline" in text  # 1.9 > 1.5
    assert "1.9 rejecting ε, 1.5 at speed 1+ε, 2.2 plain" in text
    assert "no experiment" in headline_finding(RUNS, "stretch")
    tex = findings_macros_tex(both, ["maxflow", "stretch"])
    assert "\\newcommand{\\FindingMaxflow}{" in tex and "\\newcommand{\\FindingStretch}{" in tex and "ε" not in tex


@pytest.mark.parametrize("instances", [3, 10])
def test_the_rounds_figure_reads_at_print_size_two_panels_a_row_legends_below(instances):
    from schedbench.hall.figure_style import MAX_LINES_PER_PANEL, PANEL_WIDTH
    from schedbench.scheduling.stage.figures import rounds_figure

    rows = [
        {
            "experiment": exp,
            "instance": f"{exp}-{i}",
            "algorithm": a,
            "model": mod,
            "eps": e,
            "ratio": 1.0 + K / 4 + i / 100,
            "status": "ok",
            "g_K": K,
        }
        for exp in ("lb_a", "lb_b", "lbc")
        for a, mod, e in (("greedy", "plain", float("nan")), ("lb-unit-reject", "rejection", 0.25))
        for K in (2, 3, 4)
        for i in range(instances)
    ]
    fig = rounds_figure(pd.DataFrame(rows), "K", n_boot=20)
    panels = [ax for ax in fig.axes if ax.get_title()]
    few = " (n = 3 < 10: each instance)" if instances < 10 else ""
    assert [ax.get_title() for ax in panels] == [f"lb_a{few}", f"lb_b{few}", f"lbc{few}"]
    assert fig.get_size_inches()[0] == pytest.approx(2 * PANEL_WIDTH)  # two columns: no shrinking in the PDF
    for ax in panels:
        assert 1 <= len(ax.get_legend().get_texts()) <= MAX_LINES_PER_PANEL
        drawn = [line for line in ax.get_lines() if len(line.get_xdata()) == 3]  # the curves over K = 2, 3, 4
        if instances < 10:  # each instance its own curve, no mean, no band
            assert len(drawn) == 2 * instances and not ax.collections
        else:  # a mean per line with its bootstrap band
            assert len(drawn) == 2 and len(ax.collections) == 2


@pytest.mark.parametrize("instances", [3, 10])
def test_plain_only_and_sweep_figures_draw_no_mean_or_interval_under_ten_instances(instances):
    from schedbench.scheduling.stage.figures import ratio_vs_eps_figures, sweep_figure

    base = {"experiment": "e", "problem": "load", "status": "ok", "rejected_frac": 0.0, "wasted_work_frac": 0.0}
    plain = pd.DataFrame(
        [
            {**base, "instance": f"i{i}", "algorithm": a, "model": "plain", "eps": float("nan"), "ratio": 1 + i / 10}
            for a in ("greedy", "random-two")
            for i in range(instances)
        ]
    )
    (fig,) = ratio_vs_eps_figures(plain, n_boot=20)
    (ax,) = [ax for ax in fig.axes if ax.get_title()]
    if instances < 10:  # each instance a dot, no point estimate, no error bar
        assert ax.get_title() == "e (n = 3 < 10: each instance)" and not ax.get_lines()
        assert sum(len(c.get_offsets()) for c in ax.collections) == 2 * instances
    else:  # a mean per algorithm with its interval
        assert ax.get_title() == "e" and len(ax.get_lines()) >= 2
    swept = pd.DataFrame(
        [
            {
                **base,
                "instance": f"i{i}",
                "algorithm": "lb-unit-reject",
                "model": "rejection",
                "eps": e,
                "p_alpha_rule": rule,
                "ratio": 1 + i / 10,
            }
            for e in (0.25, 0.5)
            for rule in ("paper", "safe")
            for i in range(instances)
        ]
    )
    top = sweep_figure(swept, ["alpha_rule"], n_boot=20).axes[0]
    assert top.get_title() == ("e (n = 3 < 10: each instance)" if instances < 10 else "e")
    assert len([line for line in top.get_lines() if len(line.get_xdata()) == 2]) == 2 * (
        instances if instances < 10 else 1
    )
    assert bool(top.collections) == (instances >= 10)  # bands only over ten or more
