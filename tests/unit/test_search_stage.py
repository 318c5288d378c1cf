"""The worst-case search as a pipeline stage: config checks, one task end to end
(exact and black-box, replayed), the table and the figure."""

from __future__ import annotations

import copy

import pandas as pd
import pytest

from schedbench.hall.config import ConfigError
from schedbench.checks import check_config
from schedbench.scheduling.stage.search import collect_search, run_task, search_table_tex
from schedbench.scheduling.stage.search_figures import worst_case_figure

BASE = {
    "seed": 1,
    "eps": [0.5],
    "experiments": {"e": {"family": "anr-tree", "params": {"K": 2}, "instances": 1, "algorithms": {"greedy": None}}},
}


@pytest.mark.parametrize(
    "task, message",
    [
        ({"algorithm": "greedy", "method": "exact"}, "search.tasks.t.m: required"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "bogus": 1}, "search.tasks.t: unknown key 'bogus'"),
        ({"algorithm": "nope", "method": "exact", "m": 4}, "search.tasks.t: unknown algorithm 'nope'"),
        (
            {"algorithm": "edf", "method": "exact", "m": 4, "eps": 0.5},
            "search.tasks.t.algorithm: no exact model for 'edf'",
        ),
        ({"algorithm": "edf", "method": "blackbox", "m": 4, "eps": 0.5}, "search.tasks.t.max_evals: required"),
        ({"algorithm": "greedy", "method": "exact", "m": 0}, "search.tasks.t.m: a positive integer"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "time_limit": -1}, "search.tasks.t.time_limit: a number"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "eps": 0.5}, "'eps' does not apply"),
        ({"algorithm": "greedy", "method": "magic", "m": 4}, "search.tasks.t.method"),
        # what the job refuses, refused by the config check too, naming the key
        ({"algorithm": "greedy", "method": "exact", "m": 4, "sizes": []}, "search.tasks.t.sizes: worst_case: sizes"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "sizes": [0]}, "search.tasks.t.sizes: worst_case: sizes"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "sizes": "12"}, "search.tasks.t.sizes: worst_case: sizes"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "sizes": [1.5]}, "search.tasks.t.sizes: worst_case: sizes"),
        (
            {"algorithm": "lb-unit-reject", "method": "exact", "m": 4, "eps": 0.5, "sizes": [1, 2]},
            "search.tasks.t.sizes: 'lb-unit-reject' is defined for unit sizes only",
        ),
        (
            {"algorithm": "mft-unit", "method": "exact", "m": 4, "eps": 0.5, "sizes": [2]},
            "search.tasks.t.sizes: 'mft-unit' is defined for unit sizes only",
        ),
        ({"algorithm": "greedy", "method": "exact", "m": 3, "sizes": [1, 2]}, "search.tasks.t.n: give n"),
        ({"algorithm": "greedy", "method": "exact", "m": 400, "n": 400}, "search.tasks.t.n: worst_case: the space"),
        (
            {"algorithm": "greedy", "method": "exact", "m": 4, "objective": "max"},
            "search.tasks.t.objective: worst_case",
        ),
        (
            {"algorithm": "greedy", "method": "exact", "m": 4, "objective": "rejection"},
            "search.tasks.t.objective: 'greedy' rejects nothing",
        ),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "release_window": -1}, "search.tasks.t.release_window"),
        ({"algorithm": "mft-unit", "method": "exact", "m": 4, "eps": 0.5, "release_window": None}, "release_window"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "params": [1]}, "search.tasks.t.params: a mapping"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "params": {"ties": "random"}}, "search.tasks.t.params"),
        ({"algorithm": "lb-unit-reject", "method": "exact", "m": 4, "eps": "abc"}, "search.tasks.t.eps: algorithm"),
        (
            {"algorithm": "ll-fifo", "method": "blackbox", "m": 4, "eps": 0.25, "max_evals": 5, "sizes": []},
            "search.tasks.t.sizes: search_worst: sizes",
        ),
        (
            {"algorithm": "ll-fifo", "method": "blackbox", "m": 4, "eps": 0.25, "max_evals": 5, "sizes": ["a"]},
            "search.tasks.t.sizes: search_worst: sizes",
        ),
        (
            {"algorithm": "lb-unit-reject", "method": "blackbox", "m": 4, "eps": 0.5, "max_evals": 5, "sizes": [2]},
            "search.tasks.t.sizes: 'lb-unit-reject' is defined for unit sizes only",
        ),
        (
            {"algorithm": "ll-fifo", "method": "blackbox", "m": 4, "eps": 0.25, "max_evals": 5, "objective": "max"},
            "search.tasks.t.objective: search_worst",
        ),
        (
            {"algorithm": "greedy", "method": "blackbox", "m": 4, "max_evals": 5, "objective": "rejection"},
            "search.tasks.t.objective: 'greedy' rejects nothing",
        ),
        (
            {"algorithm": "ll-fifo", "method": "blackbox", "m": 4, "eps": 0.25, "max_evals": 5, "release_window": -3},
            "search.tasks.t.release_window: an integer >= 0",
        ),
        ({"algorithm": "greedy", "method": "blackbox", "m": 10**6, "max_evals": 5}, "search.tasks.t.m: search_worst"),
        ("greedy", "search.tasks.t: a mapping of keys"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "problem": "load"}, "search.tasks.t.problem: applies to"),
        (
            {"algorithm": "gwmft", "method": "blackbox", "m": 4, "eps": 0.25, "max_evals": 5, "problem": "load"},
            "search.tasks.t.problem",
        ),
        # a key given as null (YAML `m:` or `m: ~`) was a TypeError traceback in the config check
        ({"algorithm": "greedy", "method": "exact", "m": None}, "search.tasks.t.m: needs a value, got null"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "time_limit": None}, "search.tasks.t.time_limit: needs"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "work_limit": None}, "search.tasks.t.work_limit: needs"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "opt": None}, "search.tasks.t.opt: needs a value"),
        ({"algorithm": "greedy", "method": "blackbox", "m": 4, "max_evals": None}, "search.tasks.t.max_evals: needs"),
        (
            {"algorithm": "greedy", "method": "blackbox", "m": 4, "max_evals": 5, "budget_seconds": None},
            "search.tasks.t.budget_seconds: needs a value",
        ),
    ],
)
def test_search_config_errors_name_the_key(task, message):
    cfg = copy.deepcopy(BASE)
    cfg["search"] = {"tasks": {"t": task}}
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_config(cfg)


def test_the_config_check_passes_the_job_its_arguments(monkeypatch):
    # the check calls the search functions' own argument checks with what run_task passes them
    import schedbench.scheduling.search as search
    from schedbench.scheduling.search.blackbox import check_search_worst
    from schedbench.scheduling.search.exact import check_worst_case
    from schedbench.scheduling.stage.search import check_search

    tasks = {
        "e": {"algorithm": "mft-unit", "method": "exact", "m": 3, "eps": 0.5, "release_window": 2, "work_limit": 5},
        "b": {"algorithm": "ll-fifo", "method": "blackbox", "m": 4, "eps": 0.25, "max_evals": 5, "sizes": [2, 1]},
    }
    check_search({"tasks": tasks})

    class Stop(Exception):
        pass

    def stop(check):
        def run(algorithm, **kw):
            kw = {k: v for k, v in kw.items() if k not in ("seed", "replay", "log")}
            check(algorithm, **kw)  # what the job passes, accepted by the same check
            raise Stop

        return run

    monkeypatch.setattr(search, "worst_case", stop(check_worst_case))
    monkeypatch.setattr(search, "search_worst", stop(check_search_worst))
    for name, task in tasks.items():
        with pytest.raises(Stop):
            run_task(name, task, 1, "unused.json")


def test_tasks_run_replay_and_tabulate(tmp_path):
    exact = run_task(
        "g4", {"algorithm": "greedy", "method": "exact", "m": 4, "opt": 1, "time_limit": 30}, 3, tmp_path / "g4.json"
    )
    assert (exact["ratio"], exact["proved"], exact["replayed"]) == (3.0, True, True)  # ANR: ⌈log2 4⌉ + 1
    bb = {"algorithm": "ll-fifo", "method": "blackbox", "m": 4, "eps": 0.25, "max_evals": 20}
    first = run_task("bb", bb, 3, tmp_path / "bb.json")
    again = run_task("bb", bb, 3, tmp_path / "bb2.json")
    assert first["replayed"] and not first["proved"] and first["ratio"] == again["ratio"]  # deterministic
    table = collect_search([tmp_path / "g4.json", tmp_path / "bb.json"])
    assert list(table["task"]) == ["g4", "bb"]
    tex = search_table_tex(table)
    assert "greedy & cp-sat (ratio) & 4 & -- & 3.000 & 1 & proved" in tex
    # the adversaries' column: the largest ratio over proven optima only (a bound's ratio overstates)
    adversary_runs = pd.DataFrame(
        {
            "algorithm": ["greedy"] * 3,
            "claimed_opt": [1.0, 1.0, 1.0],
            "status": ["ok", "ok", "invalid"],
            "opt_status": ["optimal", "bound", "optimal"],
            "ratio": [2.5, 9.0, 7.0],
        }
    )
    row = next(line for line in search_table_tex(table, adversary_runs).splitlines() if line.startswith("greedy"))
    assert row.rstrip(" \\").endswith("& 2.5")
    fig = worst_case_figure(table)
    assert fig.axes[0].get_xlabel() == "machines m"
    assert "no search tasks" in search_table_tex(collect_search([]))


def test_the_worst_case_figure_has_a_panel_per_problem_with_at_most_six_lines():
    import pandas as pd

    from schedbench.hall.figure_style import MAX_LINES_PER_PANEL

    rows = [
        {
            "objective_kind": "ratio",
            "algorithm": a,
            "eps": e,
            "problem": p,
            "m": m,
            "ratio": 2.0,
            "proved": True,
            "ratio_bound": float("nan"),
        }
        for p, algs in (("load", ["greedy"]), ("maxflow", ["edf", "imd", "ll-fifo", "lwf", "mft-unit", "ssf-edf"]))
        for a in algs
        for e in ((0.25, 0.5) if a == "ll-fifo" else (0.25,))  # seven maxflow lines
        for m in (2, 4)
    ]
    fig = worst_case_figure(pd.DataFrame(rows))
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["load", "maxflow (1 of 2)", "maxflow (2 of 2)"]
    entries = [[t.get_text() for t in ax.get_legend().get_texts()] for ax in fig.axes]
    assert all(len(e) <= MAX_LINES_PER_PANEL for e in entries) and sum(map(len, entries)) == 8
